"""The SPARQL endpoint: the protocol, its limits and errors through the app in this process
(Flask's test client); real clients (SPARQLWrapper, rdflib's SPARQLStore) and a query
stopped at its time limit against a real server."""

from __future__ import annotations

import io
import json
import threading
import time
import warnings

import pytest
import requests
from rdflib import Graph
from rdflib.compare import isomorphic
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from rdflib.query import Result
from SPARQLWrapper import CSV, JSON, JSONLD, N3, RDF, RDFXML, TSV, TURTLE, XML, SPARQLWrapper
from SPARQLWrapper.Wrapper import _allowedFormats

from helpers import EMPTY_IN_BUNDLED, RECORDS, SEED_ID, WRITTEN, sample_params
from helpers.servers import Served, descendants, gone
from kg.cli import main
from kg.store.queries import canned_queries

COUNT_CLAIMS = (
    "PREFIX kg: <https://w3id.org/claimgraph/ns#> SELECT (COUNT(?r) AS ?n) WHERE { ?r a kg:Claim }"
)
#: The titles of the records claimgraph wrote (the imported results have titles of their own).
TITLE = (
    "SELECT ?t WHERE { ?r a <https://w3id.org/claimgraph/ns#Claim> ; "
    "<http://purl.org/dc/terms/title> ?t ; <http://purl.org/dc/terms/identifier> ?id "
    'FILTER(STRSTARTS(?id, "saadat-fellay")) } ORDER BY DESC(?t)'
)
PATHOLOGICAL = (
    "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o }"
)


def wrapper(server: str, query: str, fmt: str) -> SPARQLWrapper:
    client = SPARQLWrapper(server + "/sparql")
    client.setQuery(query)
    client.setReturnFormat(fmt)
    return client


def test_sparqlwrapper_json(server: str) -> None:
    result = wrapper(server, COUNT_CLAIMS, JSON).query().convert()
    assert result["results"]["bindings"][0]["n"]["value"] == str(RECORDS)


def test_sparqlwrapper_xml(server: str) -> None:
    doc = wrapper(server, TITLE, XML).query().convert()
    literals = doc.getElementsByTagName("literal")
    assert literals[0].firstChild.data.startswith("Peak memory (Training")


def test_sparqlwrapper_csv_and_tsv(server: str) -> None:
    csv_text = wrapper(server, COUNT_CLAIMS, CSV).query().convert().decode()
    assert csv_text.splitlines() == ["n", str(RECORDS)]
    tsv_text = wrapper(server, COUNT_CLAIMS, TSV).query().convert().decode()
    assert tsv_text.splitlines()[0] == "?n" and tsv_text.splitlines()[1].startswith(f'"{RECORDS}"')


def test_sparqlwrapper_construct(server: str) -> None:
    client = wrapper(
        server,
        f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH <https://claimgraph.example/record/{SEED_ID}> {{ ?s ?p ?o }} }}",
        N3,
    )
    graph = Graph().parse(data=client.query().convert(), format="turtle")
    assert len(graph) > 100


#: SPARQLWrapper's return formats by the query forms it asks them for: its Accept header
#: names a results format for SELECT and ASK, an RDF syntax for CONSTRUCT and DESCRIBE
#: (XML is RDF/XML there); any other pair it sends with */* and a warning.
RESULT_RETURNS = (JSON, XML, CSV, TSV)
GRAPH_RETURNS = (XML, RDFXML, RDF, TURTLE, N3, JSONLD)
AGENTS = "SELECT ?a WHERE { ?a a <http://www.w3.org/ns/prov#Agent> } ORDER BY ?a"
GRAPH_QUERIES = {
    "construct": "CONSTRUCT { ?a a ?t } WHERE { ?a a <http://www.w3.org/ns/prov#Agent>, ?t }",
    "describe": "DESCRIBE <https://claimgraph.example/agent/claude>",
}


def test_every_return_format_sparqlwrapper_offers_is_tried() -> None:
    assert set(RESULT_RETURNS) | set(GRAPH_RETURNS) == set(_allowedFormats)


def _rows(fmt: str, answer) -> list[str]:
    """The ?a column of a SELECT answer as SPARQLWrapper converts it."""
    if fmt == JSON:
        return [b["a"]["value"] for b in answer["results"]["bindings"]]
    if fmt == XML:
        return [u.firstChild.data for u in answer.getElementsByTagName("uri")]
    lines = answer.decode().splitlines()[1:]
    return [line.strip("<>") for line in lines]


@pytest.mark.parametrize("fmt", RESULT_RETURNS)
def test_sparqlwrapper_select_and_ask_in_every_results_format(server: str, fmt: str) -> None:
    agents = _rows(JSON, wrapper(server, AGENTS, JSON).query().convert())
    assert len(agents) >= 3
    assert _rows(fmt, wrapper(server, AGENTS, fmt).query().convert()) == agents
    answer = wrapper(server, "ASK { ?a a <http://www.w3.org/ns/prov#Agent> }", fmt)
    converted = answer.query().convert()
    if fmt == JSON:
        assert converted["boolean"] is True
    elif fmt == XML:
        assert converted.getElementsByTagName("boolean")[0].firstChild.data == "true"
    else:
        assert converted.decode().split() == ["true"]


@pytest.mark.parametrize("fmt", GRAPH_RETURNS)
@pytest.mark.parametrize("form", list(GRAPH_QUERIES))
def test_sparqlwrapper_graphs_in_every_rdf_format(server: str, form: str, fmt: str) -> None:
    """Each return format gives the graph the Turtle answer gives (JSON-LD included)."""
    query = GRAPH_QUERIES[form]
    turtle = requests.get(
        server + "/sparql", params={"query": query}, headers={"Accept": "text/turtle"}, timeout=30
    )
    expected = Graph().parse(data=turtle.text, format="turtle")
    assert len(expected) >= 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rdflib's ConjunctiveGraph, SPARQLWrapper's */*
        converted = wrapper(server, query, fmt).query().convert()
    if isinstance(converted, bytes):  # Turtle and N3 come as text
        converted = Graph().parse(data=converted.decode(), format="turtle")
    got = Graph()
    for triple in converted.triples((None, None, None)):
        got.add(triple)
    assert isomorphic(got, expected)


@pytest.mark.parametrize(
    "media_type,rdflib_format",
    [
        ("text/turtle", "turtle"),
        ("application/n-triples", "nt"),
        ("application/ld+json", "json-ld"),
        ("application/rdf+xml", "xml"),
    ],
)
def test_construct_formats(client, media_type: str, rdflib_format: str) -> None:
    query = "DESCRIBE <https://claimgraph.example/agent/claude>"
    response = client.get("/sparql", query_string={"query": query}, headers={"Accept": media_type})
    assert response.headers["Content-Type"].startswith(media_type)
    graph = Graph().parse(data=response.text, format=rdflib_format)
    assert len(graph) >= 4


def test_rdflib_sparqlstore(server: str) -> None:
    graph = Graph(store=SPARQLStore(server + "/sparql", returnFormat="json"))
    rows = list(graph.query(TITLE))
    assert len(rows) == WRITTEN and all(str(r[0]).startswith("Peak memory") for r in rows)


def test_post_forms(client) -> None:
    form = client.post(
        "/sparql",
        data={"query": COUNT_CLAIMS},
        headers={"Accept": "application/sparql-results+json"},
    )
    direct = client.post(
        "/sparql",
        data=COUNT_CLAIMS.encode(),
        headers={
            "Content-Type": "application/sparql-query",
            "Accept": "application/sparql-results+json",
        },
    )
    assert form.get_json() == direct.get_json()
    assert form.headers["Access-Control-Allow-Origin"] == "*"


def test_dataset_parameters(client) -> None:
    query = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    record_graph = f"https://claimgraph.example/record/{SEED_ID}"
    one = client.get(
        "/sparql",
        query_string={"query": query, "default-graph-uri": record_graph},
        headers={"Accept": "application/json"},
    ).get_json()
    everything = client.get(
        "/sparql", query_string={"query": query}, headers={"Accept": "application/json"}
    ).get_json()
    n_one = int(one["results"]["bindings"][0]["n"]["value"])
    assert 100 < n_one < int(everything["results"]["bindings"][0]["n"]["value"])
    named = client.get(
        "/sparql",
        query_string={
            "query": "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }",
            "named-graph-uri": record_graph,
        },
        headers={"Accept": "application/json"},
    ).get_json()
    assert [b["g"]["value"] for b in named["results"]["bindings"]] == [record_graph]


def test_every_canned_query_matches_kg_query(app, client, runner) -> None:
    store = str(app.extensions["kg"].settings.store)
    for name, query in canned_queries().items():
        params = sample_params(name, query)
        response = client.get(
            "/sparql",
            query_string={"canned": name, **params},
            headers={"Accept": "application/sparql-results+json"},
        )
        assert response.status_code == 200, (name, response.text)
        cli = runner.invoke(
            main,
            [
                "--store",
                store,
                "query",
                name,
                "--format",
                "json",
                *[a for k, v in params.items() for a in ("-p", f"{k}={v}")],
            ],
        )
        assert cli.exit_code == 0, cli.output

        def rows(doc):
            return sorted(json.dumps(b, sort_keys=True) for b in doc["results"]["bindings"])

        assert rows(response.get_json()) == rows(json.loads(cli.stdout)), name
        assert bool(rows(response.get_json())) != (name in EMPTY_IN_BUNDLED), name


@pytest.mark.parametrize(
    "params,data,content_type",
    [
        ({"query": "INSERT DATA { <urn:a> <urn:b> <urn:c> }"}, None, None),
        ({"update": "INSERT DATA { <urn:a> <urn:b> <urn:c> }"}, None, None),
        ({}, b"DELETE WHERE { ?s ?p ?o }", "application/sparql-update"),
        ({"query": "DROP ALL"}, None, None),
        (
            {"query": "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }"},
            None,
            None,
        ),
    ],
)
def test_updates_and_service_are_refused(client, params, data, content_type) -> None:
    headers = {"Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
        response = client.post("/sparql", data=data, headers=headers)
    else:
        response = client.get("/sparql", query_string=params, headers=headers)
    assert response.status_code == 403
    assert "refused" in response.get_json()["message"]
    count = client.get(
        "/sparql", query_string={"query": COUNT_CLAIMS}, headers={"Accept": "application/json"}
    ).get_json()
    assert count["results"]["bindings"][0]["n"]["value"] == str(RECORDS)  # unchanged


def test_syntax_error_is_400_with_position(client) -> None:
    response = client.get(
        "/sparql",
        query_string={"query": "SELECT ?x WHERE { ?x"},
        headers={"Accept": "application/json"},
    )
    assert response.status_code == 400
    assert "error at 1:" in response.get_json()["message"]


def test_truncation_is_marked_in_every_format(client) -> None:
    query = "SELECT * WHERE { ?s ?p ?o }"  # the ontology alone holds more than 500 triples
    for accept in (
        "application/sparql-results+json",
        "application/sparql-results+xml",
        "text/csv",
        "text/tab-separated-values",
    ):
        response = client.get("/sparql", query_string={"query": query}, headers={"Accept": accept})
        assert response.headers["X-Truncated"] == "true", accept
        assert response.headers["X-Rows"] == "500"
    doc = client.get(
        "/sparql", query_string={"query": query}, headers={"Accept": "application/json"}
    ).get_json()
    assert doc["truncated"] is True and len(doc["results"]["bindings"]) == 500
    assert (
        "urn:x-claimgraph:truncated"
        in client.get(
            "/sparql",
            query_string={"query": query},
            headers={"Accept": "application/sparql-results+xml"},
        ).text
    )
    html = client.get("/sparql", query_string={"query": query, "format": "html"}).text
    assert "truncated: the result was cut at 500 rows" in html
    small = client.get(
        "/sparql", query_string={"query": COUNT_CLAIMS}, headers={"Accept": "application/json"}
    )
    assert small.headers["X-Truncated"] == "false"


def numbers(n: int) -> str:
    return " ".join(str(i) for i in range(1, n + 1))


#: 750 rows of three variables, made by the query: sorting every quad of the store instead
#: ran past the fixture's 2-s limit on a loaded two-core machine.
GRID = (
    f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {numbers(30)} }} VALUES ?p {{ {numbers(25)} }} "
    "BIND(?s * ?p AS ?o) }"
)


@pytest.mark.parametrize(
    ("query", "cut"),
    [
        # the cap (500 rows) added as a LIMIT where it can be: exactly the cap, one over it
        (f"SELECT ?n WHERE {{ VALUES ?n {{ {numbers(500)} }} }} ORDER BY DESC(?n)", False),
        (f"SELECT ?n WHERE {{ VALUES ?n {{ {numbers(501)} }} }} ORDER BY DESC(?n) # end", True),
        (f"{GRID} ORDER BY ?s ?p ?o", True),
        # and where it cannot: a LIMIT or OFFSET of its own, a trailing VALUES
        (f"{GRID} ORDER BY ?s ?p ?o LIMIT 700", True),
        (f"{GRID} ORDER BY ?s ?p ?o LIMIT 20", False),
        (f"{GRID} ORDER BY ?s ?p ?o OFFSET 10", True),
        (f"SELECT ?n WHERE {{ }} VALUES ?n {{ {numbers(600)} }}", True),
    ],
)
def test_every_way_of_writing_json_gives_the_same_rows_and_cut(
    client, query: str, cut: bool
) -> None:
    """SPARQL JSON is written by pyoxigraph where the cap can be added to the query as a
    LIMIT, else by the endpoint's own writer (as XML is): the same rows, in the same
    order, the same mark of a cut, read by rdflib's result parsers."""
    answers = {}
    for fmt, accept in (
        ("json", "application/sparql-results+json"),
        ("xml", "application/sparql-results+xml"),
    ):
        response = client.get("/sparql", query_string={"query": query}, headers={"Accept": accept})
        assert response.status_code == 200
        rows = [tuple(row) for row in Result.parse(io.BytesIO(response.data), format=fmt)]
        answers[fmt] = (rows, response.headers["X-Truncated"], response.headers["X-Rows"])
    assert answers["json"] == answers["xml"]
    rows, truncated, count = answers["json"]
    assert int(count) == len(rows) and (truncated == "true") == cut
    assert len(rows) == 500 if cut else len(rows) < 500 or "500" in query


def test_request_size_limit(client) -> None:
    """A query over the limit is refused (400); a body beyond room for any query at the
    limit is not even read (413)."""
    for size, status in ((200_000, 400), (500_000, 413)):
        huge = "SELECT * WHERE { ?s ?p ?o } #" + "x" * size
        response = client.post(
            "/sparql", data={"query": huge}, headers={"Accept": "application/json"}
        )
        assert response.status_code == status


def test_service_description_and_form(client) -> None:
    turtle = client.get("/sparql", headers={"Accept": "text/turtle"}).text
    graph = Graph().parse(data=turtle, format="turtle")
    sd = "http://www.w3.org/ns/sparql-service-description#"
    assert any(str(o) == sd + "SPARQL11Query" for o in graph.objects())
    html = client.get("/sparql", headers={"Accept": "text/html"}).text
    for name in canned_queries():
        assert f'data-query="{name}"' in html
    assert 'name="model"' in html


@pytest.mark.slow
def test_a_pathological_query_is_stopped_while_others_are_answered(served: Served) -> None:
    """Told by events, never by the clock: the query ran until the limit stopped it, another
    client was answered meanwhile, and the worker that ran it is gone (its work really
    stopped: pyoxigraph cannot cancel a query, so the worker is killed and replaced)."""

    def ask(query: str) -> requests.Response:
        return requests.get(
            served.url + "/sparql",
            params={"query": query},
            headers={"Accept": "application/json"},
            timeout=300,
        )

    assert ask(COUNT_CLAIMS).status_code == 200  # the query workers are running
    workers = descendants(served.pid)
    outcome: dict[str, requests.Response] = {}
    thread = threading.Thread(target=lambda: outcome.update(slow=ask(PATHOLOGICAL)))
    thread.start()
    answered = 0
    while thread.is_alive():  # another client keeps being answered meanwhile
        response = ask(COUNT_CLAIMS)
        assert response.status_code == 200, response.text
        answered += thread.is_alive()
        time.sleep(0.1)
    thread.join()
    assert answered >= 1
    assert outcome["slow"].status_code == 503
    assert "ran longer than the limit of 2 s" in outcome["slow"].json()["message"]
    stopped = [pid for pid in workers if gone(pid)]
    assert len(stopped) == 1, (workers, descendants(served.pid))
    assert descendants(served.pid) - workers, "the stopped worker was not replaced"


def test_html_results_link_to_pages(client) -> None:
    html = client.get(
        "/sparql",
        query_string={"canned": "results-for-model", "model": "NT 2.5B"},
        headers={"Accept": "text/html"},
    ).text
    assert f'href="/record/{SEED_ID}"' in html
    assert io.StringIO(html)
