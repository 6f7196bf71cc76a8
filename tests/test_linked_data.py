"""What a linked-data client meets (docs/linked-data.md): a registry whose base is its own
origin, crawled from its index through every registry IRI of its RDF; what each document
says of itself; forwarded headers from a trusted proxy and from anyone else; the
placeholder base; the vocabulary at /ns."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import requests
from flask import Flask
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import FOAF, OWL, RDF, RDFS
from werkzeug.exceptions import HTTPException

from helpers import DATA
from helpers.servers import Served, free_port, running_server
from kg.config import placeholder_note
from kg.kinds import KINDS
from kg.read.vocabulary import anchor
from kg.web import create_app
from kg.web.state import state

#: How many hops from the index the crawl follows.
DEPTH = 3
#: What a linked-data client asks for: Turtle, else whatever there is.
TURTLE = {"Accept": "text/turtle, */*;q=0.1"}
KG = "https://w3id.org/claimgraph/ns#"
FORWARDED = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "registry.example.org"}
PROXIED = "https://registry.example.org/"


@pytest.fixture(scope="module")
def own_origin(tmp_path_factory) -> Iterator[Served]:
    """`kg serve` whose base is its own origin, trusting 127.0.0.1 as its proxy."""
    root = tmp_path_factory.mktemp("origin")
    shutil.copytree(DATA, root / "data")
    port = free_port()
    env = {"KG_BASE": f"http://127.0.0.1:{port}/", "KG_TRUSTED_PROXIES": "127.0.0.1"}
    with running_server(root, env, "--port", str(port)) as served:
        yield served


def registry_iris(body: bytes, base: str) -> set[str]:
    """Every IRI under ``base`` in a Turtle document, without its fragment."""
    graph = Graph().parse(data=body, format="turtle")
    terms = {t for triple in graph for t in triple}
    return {str(t).split("#", 1)[0] for t in terms if isinstance(t, URIRef) and t.startswith(base)}


def fetch(url: str) -> requests.Response:
    """``url`` as a linked-data client fetches it, following one redirect at most."""
    response = requests.get(url, headers=TURTLE, allow_redirects=False, timeout=30)
    if response.is_redirect:
        response = requests.get(
            urljoin(url, response.headers["Location"]), headers=TURTLE, allow_redirects=False
        )
    return response


def test_every_registry_iri_reaches_a_document(own_origin: Served) -> None:
    base = own_origin.url + "/"
    index = requests.get(base, timeout=30)
    assert index.status_code == 200
    assert "base-note" not in index.text  # a base that resolves: nothing to warn of
    frontier = {urljoin(base, href) for href in re.findall(r'href="(/[^"#?]*)"', index.text)}
    frontier |= {base + ".well-known/void", base + "ns"}
    seen: set[str] = set()
    dead: list[tuple[str, int]] = []
    kinds: Counter[str] = Counter()
    for _ in range(DEPTH):
        found: set[str] = set()
        for url in sorted(frontier - seen):
            seen.add(url)
            response = fetch(url)
            if response.status_code != 200:
                dead.append((url, response.status_code))
            elif response.headers["Content-Type"].startswith("text/turtle"):
                kinds[urlsplit(url).path.split("/")[1]] += 1
                found |= registry_iris(response.content, base)
        frontier = found
    assert dead == []
    # every kind of node was reached, through the RDF of another
    assert {
        "record",
        "source",
        "agent",
        "evaluation",
        "import",
        "model",
        "benchmark",
    } <= set(kinds)
    assert len(seen) > 100


def test_each_kind_of_document_says_what_it_is_about(own_origin: Served) -> None:
    base = own_origin.url + "/"
    record = re.search(r'href="/(record/[^"]+)"', requests.get(base, timeout=30).text)
    assert record is not None
    turtle = requests.get(base + record.group(1), headers=TURTLE, timeout=30)
    nodes = registry_iris(turtle.content, base)
    kinds = ("source", "model", "benchmark", "agent", "evaluation")
    others = {n[len(base) :] for n in nodes if n[len(base) :].split("/")[0] in kinds}
    paths = [record.group(1), *sorted(others)]
    for path in paths:
        answer = requests.get(base + path, headers={"Accept": "text/turtle"}, timeout=30)
        assert answer.status_code == 200, path
        location = answer.headers["Content-Location"]
        assert location == f"{base}{path}.ttl"
        graph = Graph().parse(data=answer.content, format="turtle")
        assert (URIRef(location), FOAF.primaryTopic, URIRef(base + path)) in graph
        links = answer.headers["Link"]
        for suffix, media_type in (
            ("html", "text/html"),
            ("jsonld", "application/ld+json"),
            ("nt", "application/n-triples"),
        ):
            assert f'<{base}{path}.{suffix}>; rel="alternate"; type="{media_type}"' in links
        assert f'<{base}ns>; rel="describedby"' in links
        page = requests.get(base + path, headers={"Accept": "text/html"}, timeout=30)
        assert page.headers["Content-Location"] == f"{base}{path}.html"
        assert f'<link rel="canonical" href="{base}{path}">' in page.text
        assert f'<{base}{path}.ttl>; rel="alternate"; type="text/turtle"' in page.headers["Link"]


def test_a_trusted_proxy_forwards_scheme_and_host(own_origin: Served) -> None:
    base = own_origin.url + "/"

    def get(path: str, **headers: str) -> requests.Response:
        answer = requests.get(base + path, headers={**FORWARDED, **headers}, timeout=30)
        assert answer.status_code == 200, path
        return answer

    assert f"Sitemap: {PROXIED}sitemap.xml" in get("robots.txt").text
    locations = re.findall(r"<loc>([^<]+)</loc>", get("sitemap.xml").text)
    assert locations and all(loc.startswith(PROXIED) for loc in locations)
    feed = get("feed.atom").text
    hrefs = re.findall(r'href="([^"]+)"', feed)
    assert hrefs and all(href.startswith(PROXIED) for href in hrefs)
    void = Graph().parse(
        data=get(".well-known/void", Accept="text/turtle").content, format="turtle"
    )
    void_ns = "http://rdfs.org/ns/void#"
    advertised = [
        o
        for p in ("sparqlEndpoint", "dataDump", "rootResource")
        for o in void.objects(None, URIRef(void_ns + p))
    ]
    assert advertised and all(str(o).startswith(PROXIED) for o in advertised)
    assert (URIRef(KG.rstrip("#")), RDFS.isDefinedBy, URIRef(PROXIED + "ns")) in void
    described = get("sparql", Accept="text/turtle").text
    assert f"<{PROXIED}sparql>" in described
    assert f"<{base}sparql>" not in described
    record = re.search(r'href="/(record/[^"]+)"', get("").text)
    assert record is not None
    answer = get(record.group(1), Accept="text/turtle")
    assert answer.headers["Content-Location"] == f"{PROXIED}{record.group(1)}.ttl"
    assert all(url.startswith(PROXIED) for url in re.findall(r"<([^>]+)>", answer.headers["Link"]))
    # the IRIs are the base's, whoever asks
    assert f"<{base}{record.group(1)}>" in get(record.group(1) + ".nt").text


def test_forwarded_headers_from_anyone_else_are_ignored(app: Flask) -> None:
    settings = state(app).settings
    assert not settings.trusted_proxies  # the default: no proxy is trusted
    client = app.test_client()
    assert (
        "Sitemap: http://localhost/sitemap.xml" in client.get("/robots.txt", headers=FORWARDED).text
    )
    # a proxy trusted, but the request comes from another address
    guarded = create_app(
        {"store": settings.store, "base": settings.base, "trusted_proxies": "10.0.0.1"}
    )
    other = guarded.test_client()
    assert (
        "Sitemap: http://localhost/sitemap.xml" in other.get("/robots.txt", headers=FORWARDED).text
    )
    from_proxy = other.get(
        "/robots.txt", headers=FORWARDED, environ_base={"REMOTE_ADDR": "10.0.0.1"}
    )
    assert f"Sitemap: {PROXIED}sitemap.xml" in from_proxy.text


def test_the_placeholder_base_is_warned_of(served: Served) -> None:
    note = placeholder_note("https://claimgraph.example/")
    assert any(note in line for line in served.opening), served.opening
    index = requests.get(served.url + "/", timeout=30).text
    assert 'class="caveat base-note"' in index
    assert "resolve nowhere" in index and "KG_BASE" in index


def test_no_warning_with_a_base_that_resolves(own_origin: Served) -> None:
    assert not any("placeholder" in line for line in own_origin.opening)


def test_the_vocabulary_page_lists_every_term_with_its_uses(client) -> None:
    page = client.get("/ns")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    ontology = Graph().parse(Path(__file__).parents[1] / "ontology" / "claimgraph.ttl")
    for kind in (OWL.Class, OWL.ObjectProperty, OWL.DatatypeProperty):
        for term in ontology.subjects(RDF.type, kind):
            assert f'id="{anchor(str(term))}"' in html, term
    assert '<link rel="canonical" href="http://localhost/ns">' in html
    assert 'id="vocab-ReviewMethods"' in html  # a concept scheme, with its members
    assert 'id="vocab-source-hash-verification"' in html
    row = re.search(r'<tr id="reportedValue">.*?</tr>', html, re.S)
    assert row is not None
    shown = int(re.findall(r'<span class="n"[^>]*>(\d+)</span>', row.group(0))[0])
    store = state(client.application).store
    [counted] = list(
        store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH ?g {{ ?s <{KG}reportedValue> ?o }} }}")
    )
    assert shown == int(counted["n"].value) > 0


@pytest.mark.parametrize(
    ("asked", "syntax"),
    [({"Accept": "text/turtle"}, "turtle"), ({"Accept": "application/ld+json"}, "json-ld")],
)
def test_the_vocabulary_as_rdf(client, asked: dict[str, str], syntax: str) -> None:
    answer = client.get("/ns", headers=asked)
    assert answer.status_code == 200
    graph = Graph().parse(data=answer.data, format=syntax)
    assert (URIRef(KG + "Claim"), RDF.type, OWL.Class) in graph
    assert (URIRef(KG + "reportedValue"), RDFS.label, Literal("reported value")) in graph
    location = answer.headers["Content-Location"]
    assert (URIRef(location), FOAF.primaryTopic, URIRef(KG.rstrip("#"))) in graph
    by_suffix = client.get(urlsplit(location).path)
    assert by_suffix.status_code == 200 and by_suffix.data == answer.data


def test_ontology_redirects_to_the_vocabulary(client) -> None:
    assert client.get("/ontology").headers["Location"] == "/ns"
    moved = client.get("/ontology.ttl")
    assert moved.status_code == 301 and moved.headers["Location"] == "/ns.ttl"


# -- every URL the README and the docs give keeps answering --------------------------------
#: Documented paths that name what the bundled data does not hold, each with why.
NOT_IN_THE_BUNDLED_DATA = {
    "/sitemap-1.xml": "sitemap parts exist once a registry outgrows one sitemap",
    "/sitemap-2.xml": "sitemap parts exist once a registry outgrows one sitemap",
    "/compare": "the form's answer: it needs two records (400 says so)",
    "/compare.csv": "the same, as CSV",
}
KINDS_OF_PATH = re.compile(r"`(/[a-z0-9._/?=&%-]*)`")  # no placeholder (ID, RECORD, N)


def documented_paths(app: Flask) -> list[str]:
    """The concrete paths of this server the README and docs/*.md give. JSON Pointers share
    their look (`/model_info/id`): the catch-all node route would take them, so a path the
    node route matches counts only where its first segment is a kind of node."""
    root = Path(__file__).resolve().parent.parent
    texts = [root.joinpath("README.md").read_text()]
    texts += [page.read_text() for page in sorted(root.joinpath("docs").glob("*.md"))]
    adapter = app.url_map.bind("localhost")
    found = []
    for path in sorted({p for text in texts for p in KINDS_OF_PATH.findall(text)}):
        try:
            endpoint, _ = adapter.match(path.split("?")[0])
        except HTTPException:  # not a page of this server (a file's path)
            continue
        if endpoint != "node" or path.split("/")[1] in {k.segment for k in KINDS}:
            found.append(path)
    return found


def test_every_path_the_docs_give_answers(app: Flask) -> None:
    client = app.test_client()
    paths = documented_paths(app)
    assert {"/ns", "/.well-known/void", "/records.json", "/feed.atom"} <= set(paths)
    for path in paths:
        if path in NOT_IN_THE_BUNDLED_DATA:
            continue
        answer = client.get(path)
        if answer.status_code in (301, 302, 303, 307, 308):  # at most one redirect
            answer = client.get(answer.headers["Location"])
        assert answer.status_code == 200, (path, answer.status_code)
