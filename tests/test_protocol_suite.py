"""The W3C SPARQL 1.1 Protocol tests, sent to `/sparql` of a real `kg serve` on every backend.

The manifest (`tests/fixtures/sparql11-protocol/manifest.ttl`, read with rdflib) lists
34 tests; each is one or more HTTP requests (method, path and query string, headers, a
body in its declared character encoding) and what each answer must be: a status class, a
result format, a boolean. Every request goes out as written, by `http.client`, with the
manifest's `/sparql/` replaced by our endpoint's path as the manifest says to. The three
data graphs the dataset tests name reach each store through `Backend.add_graphs` (test
data, not registry records), beside the bundled data that `kg serve` shows.

The endpoint is read-only. The 20 query tests must pass as written. Of the 14 update
tests, the 7 that expect a 4xx must get it; the 7 that expect an update to succeed must
be refused (403) and leave the store unchanged: their follow-up queries must find nothing
written. `tests/protocol_tally.py` prints the tally per backend at the end of the run.
The manifest tells update tests from query tests by their names only (the update tests'
names have `update` in them).
"""

from __future__ import annotations

import csv
import http.client
import io
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pyoxigraph as ox
import pytest
from rdflib import Graph, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDFS

from helpers import BASE, DATA, ROOT, sample_params
from helpers.servers import BACKENDS, running_server, started_backend
from kg.rdf.results import write
from kg.store.load import load_paths
from kg.store.queries import canned_queries

SUITE = ROOT / "tests" / "fixtures" / "sparql11-protocol"  # vendored: see its README.md
MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
HT = Namespace("http://www.w3.org/2011/http#")
CNT = Namespace("http://www.w3.org/2011/content#")
HTS = Namespace("http://www.w3.org/2011/http-statusCodes#")
UT = Namespace("http://www.w3.org/2009/sparql/tests/test-update#")
#: Every request path of the manifest starts with this; it stands for the endpoint.
MANIFEST_PATH = "/sparql/"
ENDPOINT_PATH = "/sparql"
RESULTS = {
    "application/sparql-results+json": ox.QueryResultsFormat.JSON,
    "application/sparql-results+xml": ox.QueryResultsFormat.XML,
    "text/tab-separated-values": ox.QueryResultsFormat.TSV,
    "text/csv": None,
}
#: What each `mf:expectedFormat` allows (the manifest's test names list them).
FORMATS = {
    "boolean": ("application/sparql-results+json", "application/sparql-results+xml"),
    "tabular": tuple(RESULTS),
    "RDF": ("application/rdf+xml", "text/turtle", "application/n-triples"),
}


@dataclass(frozen=True)
class ProtocolRequest:
    method: str
    path: str
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    #: the status classes allowed (2 for 2xx, ...)
    statuses: frozenset[int]
    boolean: bool | None
    format: str | None


@dataclass(frozen=True)
class ProtocolCase:
    name: str
    title: str
    requests: tuple[ProtocolRequest, ...]
    #: query, update (expects a 4xx) or refused (expects an update to succeed)
    kind: str


def _status_class(term: URIRef) -> int:
    name = str(term).removeprefix(str(HTS))
    if not (name.startswith("StatusCode") and name.endswith("xx")):
        raise ValueError(f"the runner knows status classes only, not {term}")
    return int(name[len("StatusCode")])


def _request(graph: Graph, node) -> ProtocolRequest:
    headers = []
    for header in Collection(graph, graph.value(node, HT.headers) or URIRef("urn:none")):
        headers.append(
            (str(graph.value(header, HT.fieldName)), str(graph.value(header, HT.fieldValue)))
        )
    body = graph.value(node, HT.body)
    data = None
    if body is not None:
        data = str(graph.value(body, CNT.chars)).encode(
            str(graph.value(body, CNT.characterEncoding))
        )
    answer = graph.value(node, HT.resp)
    boolean = graph.value(answer, MF.expectedBoolean)
    fmt = graph.value(answer, MF.expectedFormat)
    return ProtocolRequest(
        method=str(graph.value(node, HT.methodName)),
        path=str(graph.value(node, HT.absolutePath)),
        headers=tuple(headers),
        body=data,
        statuses=frozenset(_status_class(s) for s in graph.objects(answer, MF.expectedStatus)),
        boolean=None if boolean is None else boolean.toPython(),
        format=None if fmt is None else str(fmt),
    )


def read_manifest() -> tuple[list[ProtocolCase], dict[str, Path]]:
    """The tests in the manifest's order, and every data graph they name (IRI -> file)."""
    manifest = SUITE / "manifest.ttl"
    graph = Graph().parse(manifest, format="turtle", publicID=manifest.as_uri())
    cases, graphs = [], {}
    for test in Collection(graph, graph.value(URIRef(manifest.as_uri()), MF.entries)):
        name = str(test).rsplit("#", 1)[1]
        requests = tuple(
            _request(graph, node)
            for node in Collection(graph, graph.value(graph.value(test, MF.action), HT.requests))
        )
        if "update" in name:
            kind = "refused" if 4 not in requests[0].statuses else "update"
        else:
            kind = "query"
        cases.append(ProtocolCase(name, str(graph.value(test, MF.name)), requests, kind))
        for data in graph.objects(test, UT.graphData):
            graphs[str(graph.value(data, RDFS.label))] = Path(
                urlsplit(str(graph.value(data, UT.graph))).path
            )
    return cases, graphs


CASES, PROTOCOL_GRAPHS = read_manifest()


@dataclass(frozen=True)
class Answer:
    status: int
    media_type: str
    body: bytes

    def __str__(self) -> str:
        return f"HTTP {self.status} {self.media_type}: {self.body[:300]!r}"


@dataclass(frozen=True)
class Endpoint:
    backend: str
    url: str

    def send(self, request: ProtocolRequest) -> Answer:
        """The request as the manifest writes it, at our endpoint's path."""
        parts = urlsplit(self.url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        try:
            path = ENDPOINT_PATH + request.path.removeprefix(MANIFEST_PATH)
            connection.request(
                request.method, path, body=request.body, headers=dict(request.headers)
            )
            response = connection.getresponse()
            body = response.read()
            media_type = (response.getheader("Content-Type") or "").split(";")[0].strip()
            return Answer(response.status, media_type, body)
        finally:
            connection.close()

    def ask(self, query: str) -> bool:
        answer = self.send(
            ProtocolRequest(
                "POST",
                MANIFEST_PATH,
                (("Content-Type", "application/sparql-query"),),
                query.encode(),
                frozenset({2}),
                None,
                "boolean",
            )
        )
        assert answer.status == 200, str(answer)
        return bool(ox.parse_query_results(answer.body, RESULTS[answer.media_type]))


@pytest.fixture(scope="module", params=BACKENDS)
def protocol_endpoint(request, tmp_path_factory) -> Iterator[Endpoint]:
    """`kg serve` over one backend holding the bundled data and the suite's three graphs:
    one server per backend for the whole module."""
    root = tmp_path_factory.mktemp(f"protocol-{request.param}")
    shutil.copytree(DATA, root / "data")
    with started_backend(request.param, root) as backend:
        with backend.open() as store:
            load_paths(store, [root / "data"], BASE)
        backend.add_graphs(PROTOCOL_GRAPHS)
        with running_server(root, backend.environment()) as served:
            yield Endpoint(request.param, served.url)


def check(request: ProtocolRequest, answer: Answer) -> None:
    """What the manifest expects of one answer: status class, format, boolean."""
    assert answer.status // 100 in request.statuses, (
        f"{request.method} {request.path}: expected "
        f"{' or '.join(f'{c}xx' for c in sorted(request.statuses))}, got {answer}"
    )
    if request.format is None:
        return
    assert answer.media_type in FORMATS[request.format], (
        f"expected {request.format} ({', '.join(FORMATS[request.format])}), got {answer}"
    )
    if request.format == "RDF":
        list(ox.parse(answer.body, ox.RdfFormat.from_media_type(answer.media_type)))  # it parses
        return
    if answer.media_type == "text/csv":
        assert next(csv.reader(io.StringIO(answer.body.decode()))), str(answer)
        return
    result = ox.parse_query_results(answer.body, RESULTS[answer.media_type])
    if request.format == "boolean":
        assert isinstance(result, ox.QueryBoolean), str(answer)
        if request.boolean is not None:
            assert bool(result) is request.boolean, str(answer)
    else:
        assert isinstance(result, ox.QuerySolutions), str(answer)
        list(result)  # it parses to its end


def _data_unchanged() -> str:
    """An ASK that holds while every data graph of the suite holds its triples."""
    blocks = []
    for iri, path in PROTOCOL_GRAPHS.items():
        triples = " ".join(
            f"{t.subject} {t.predicate} {t.object} ."
            for t in ox.parse(path=str(path), format=ox.RdfFormat.N_TRIPLES)
        )
        blocks.append(f"GRAPH {ox.NamedNode(iri)} {{ {triples} }}")
    return "ASK { " + " ".join(blocks) + " }"


@pytest.mark.parametrize(
    "case",
    [pytest.param(case, id=case.name, marks=pytest.mark.w3c_protocol(case.kind)) for case in CASES],
)
def test_manifest(protocol_endpoint: Endpoint, case: ProtocolCase) -> None:
    if case.kind != "refused":
        for request in case.requests:
            check(request, protocol_endpoint.send(request))
    else:
        update, *follow_ups = case.requests
        answer = protocol_endpoint.send(update)
        assert answer.status == 403, f"a read-only endpoint refuses updates, got {answer}"
        assert b"read-only" in answer.body, str(answer)
        for request in follow_ups:  # what the update would have written is not there
            answer = protocol_endpoint.send(request)
            assert answer.status == 200, str(answer)
            assert request.boolean is not None
            assert (
                bool(ox.parse_query_results(answer.body, RESULTS[answer.media_type]))
                is not request.boolean
            ), f"the refused update was carried out: {answer}"
    if case.kind != "query":
        assert protocol_endpoint.ask(_data_unchanged()), "an update changed the store"


def test_the_suite_is_whole() -> None:
    """The manifest read as the README describes it: 20 query tests, 7 + 7 update tests,
    three data graphs; every request has a status to check."""
    kinds = [case.kind for case in CASES]
    assert (kinds.count("query"), kinds.count("update"), kinds.count("refused")) == (20, 7, 7)
    assert sorted(PROTOCOL_GRAPHS) == [
        f"http://kasei.us/2009/09/sparql/data/data{i}.rdf" for i in (1, 2, 3)
    ]
    assert all(path.is_file() for path in PROTOCOL_GRAPHS.values())
    assert all(r.statuses for case in CASES for r in case.requests)


def test_relative_iris_resolve_against_the_endpoint(protocol_endpoint: Endpoint) -> None:
    """A query without BASE has the request's URL as its base (SPARQL 1.1 Query, 4.1.1)."""
    answer = protocol_endpoint.send(
        ProtocolRequest(
            "POST",
            MANIFEST_PATH,
            (("Content-Type", "application/sparql-query"), ("Accept", "application/n-triples")),
            b"CONSTRUCT { <s> <p> <../o> } WHERE {}",
            frozenset({2}),
            None,
            "RDF",
        )
    )
    assert answer.status == 200, str(answer)
    [triple] = ox.parse(answer.body, ox.RdfFormat.N_TRIPLES)
    assert (triple.subject.value, triple.object.value) == (
        protocol_endpoint.url + "/s",
        protocol_endpoint.url + "/o",
    )


DATA1, DATA2 = (f"http://kasei.us/2009/09/sparql/data/data{i}.rdf" for i in (1, 2))
GRAPHS = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g"
DEFAULT = "SELECT DISTINCT ?s WHERE { ?s ?p ?o } ORDER BY ?s"


@pytest.mark.parametrize(
    "query,dataset,found",
    [
        # no dataset named anywhere: the default graph is the union
        (f"ASK {{ <{DATA1}> a ?t }}", "", True),
        # the request's dataset, exactly: named-graph-uri alone leaves the default graph empty,
        # default-graph-uri alone leaves no named graphs
        (DEFAULT, f"named-graph-uri={DATA1}", []),
        (GRAPHS, f"named-graph-uri={DATA1}", [DATA1]),
        (GRAPHS, f"default-graph-uri={DATA1}", []),
        (DEFAULT, f"default-graph-uri={DATA1}&default-graph-uri={DATA2}", [DATA1, DATA2]),
        # the query's own dataset when the request names none; the request's wins over it
        (DEFAULT.replace("WHERE", f"FROM <{DATA2}> WHERE"), "", [DATA2]),
        (GRAPHS.replace("WHERE", f"FROM NAMED <{DATA1}> WHERE"), "", [DATA1]),
        (DEFAULT.replace("WHERE", f"FROM NAMED <{DATA1}> WHERE"), "", []),
        (DEFAULT.replace("WHERE", f"FROM <{DATA2}> WHERE"), f"default-graph-uri={DATA1}", [DATA1]),
    ],
    ids=[
        "union",
        "named-only-default",
        "named-only-graphs",
        "default-only-graphs",
        "two-defaults",
        "from",
        "from-named",
        "from-named-default",
        "request-over-from",
    ],
)
def test_the_dataset_a_query_reads(
    protocol_endpoint: Endpoint, query: str, dataset: str, found
) -> None:
    """The same dataset on every backend (SPARQL 1.1 Protocol 2.1.4, Query 13.2)."""
    path = MANIFEST_PATH + (
        "?" + urlencode([tuple(p.split("=", 1)) for p in dataset.split("&")]) if dataset else ""
    )
    answer = protocol_endpoint.send(
        ProtocolRequest(
            "POST",
            path,
            (
                ("Content-Type", "application/sparql-query"),
                ("Accept", "application/sparql-results+json"),
            ),
            query.encode(),
            frozenset({2}),
            None,
            None,
        )
    )
    assert answer.status == 200, str(answer)
    doc = json.loads(answer.body)
    if isinstance(found, bool):
        assert doc["boolean"] is found
    else:
        assert [next(iter(row.values()))["value"] for row in doc["results"]["bindings"]] == found


def _rows(doc: dict) -> list[str]:
    """SPARQL JSON rows, sorted, blank nodes as one label (each store mints its own)."""
    return sorted(
        json.dumps(
            {
                var: {"type": "bnode"} if term["type"] == "bnode" else term
                for var, term in row.items()
            },
            sort_keys=True,
        )
        for row in doc["results"]["bindings"]
    )


@pytest.fixture(scope="module")
def canned_reference(tmp_path_factory) -> dict[str, list[str]]:
    """Each canned query's rows as `kg query` gets them (the library, no endpoint) from an
    embedded store holding what every endpoint of this module holds."""
    root = tmp_path_factory.mktemp("protocol-reference")
    with started_backend("embedded", root) as backend:
        with backend.open() as store:
            load_paths(store, [DATA], BASE)
        backend.add_graphs(PROTOCOL_GRAPHS)
        with backend.open(read_only=True) as store:
            return {
                name: _rows(
                    json.loads(
                        write(
                            store.query(
                                query.text, query.bindings(sample_params(name, query), BASE)
                            ),
                            "application/sparql-results+json",
                            1_000_000,
                        ).body
                    )
                )
                for name, query in canned_queries().items()
            }


def test_canned_queries_give_what_kg_query_gives(
    protocol_endpoint: Endpoint, canned_reference: dict[str, list[str]]
) -> None:
    """The bundled data's canned queries, by `/sparql?canned=`, on every backend."""
    for name, query in canned_queries().items():
        given = {"canned": name, **sample_params(name, query)}
        request = ProtocolRequest(
            "GET",
            MANIFEST_PATH + "?" + urlencode(given),
            (("Accept", "application/sparql-results+json"),),
            None,
            frozenset({2}),
            None,
            None,
        )
        answer = protocol_endpoint.send(request)
        assert answer.status == 200, (name, str(answer))
        assert _rows(json.loads(answer.body)) == canned_reference[name], name
    # not a comparison of nothing: most canned queries find rows in the bundled data
    assert sum(map(bool, canned_reference.values())) > len(canned_reference) / 2
