"""The remote store over a real Oxigraph server, and each way a remote store can fail.

What a server does wrong is played by a tiny HTTP server of the standard library on
loopback (a cut body, an error status, no answer at all); the real Oxigraph server plays
the truncated answer it gives a query stopped by its own time limit.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pyoxigraph as ox
import pytest

from helpers import BASE, SEED_ID, open_test_store
from helpers.servers import Backend, free_port, running_oxigraph
from kg.config import load_settings
from kg.errors import BadStoreAnswer, QueryError, QueryTimeout, StoreError, StoreUnreachable
from kg.rdf.canonical import canonical_nquads
from kg.store.load import load_paths
from kg.store.queries import canned_query
from kg.store.records import describe
from kg.store.remote import MANIFEST_GRAPH, RemoteStore

KG = "https://w3id.org/claimgraph/ns#"
CUT_SELECT = b'{"head":{"vars":["n"]},"results":{"bindings":[{"n":{"type":"literal","value":"1"}}'
HEAVY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def remote(url: str, **settings) -> RemoteStore:
    return RemoteStore(load_settings({"store": url, **settings}, environ={}))


@pytest.fixture
def both(sampled_copy: Path, tmp_path: Path, remote_backend: Backend):
    """The bundled data (a kept file of each origin folder) loaded into an embedded store
    and into a remote one."""
    with open_test_store(tmp_path / "embedded") as store:
        load_paths(store, [sampled_copy], BASE)
    with remote_backend.open() as store:
        load_paths(store, [sampled_copy], BASE)
    embedded = open_test_store(tmp_path / "embedded", read_only=True)
    other = remote_backend.open(read_only=True)
    yield embedded, other
    embedded.close()
    other.close()


def test_both_stores_hold_the_same_dataset(both) -> None:
    embedded, other = both
    assert canonical_nquads(other.quads()) == canonical_nquads(embedded.quads())
    assert other.named_graphs() == embedded.named_graphs()
    assert MANIFEST_GRAPH not in other.named_graphs()
    assert other.manifest() == embedded.manifest()
    assert other.version() is not None and other.version() == other.published_version()


def _rows(result) -> list[tuple[str, ...]]:
    """SELECT rows as text, blank nodes as "_" (their labels differ from store to store)."""
    names = [v.value for v in result.variables]
    return sorted(
        tuple("_" if isinstance(row[n], ox.BlankNode) else str(row[n]) for n in names)
        for row in result
    )


QUERIES = [
    # (query, bindings)
    (canned_query("results-for-model").text, {"model": ox.Literal("NT 2.5B")}),
    (canned_query("stats").text, None),
    (canned_query("runs-and-verdicts").text, None),
    (
        canned_query("source-by-sha256").text,
        {"sha256": ox.Literal("4bc2452110f280a7ba8baa4c7c28beac89769511019666bc77fc33af9b3bcd60")},
    ),
    (f"SELECT ?p ?o WHERE {{ ?s a <{KG}Claim> ; ?p ?o }}", None),
    (f"SELECT ?s ?v WHERE {{ ?s <{KG}printedValue> ?v }}", {"v": ox.Literal("11.49")}),
    ("SELECT ?label WHERE { ?c <http://www.w3.org/2004/02/skos/core#prefLabel> ?label }", None),
]


@pytest.mark.parametrize(("query", "bindings"), QUERIES)
def test_select_answers_are_the_same_objects_with_the_same_rows(both, query, bindings) -> None:
    embedded, other = both
    mine, theirs = embedded.query(query, bindings), other.query(query, bindings)
    assert type(theirs) is type(mine) is ox.QuerySolutions
    assert theirs.variables == mine.variables
    assert _rows(theirs) == _rows(mine) != []


def test_a_query_that_names_its_dataset_reads_it(both) -> None:
    """FROM and FROM NAMED choose the dataset; without them the default graph is the union."""
    graph = f"{BASE}record/{SEED_ID}"
    for store in both:
        size = len(list(store.quads([graph])))
        count = f"SELECT (COUNT(*) AS ?n) FROM <{graph}> WHERE {{ ?s ?p ?o }}"
        assert int(next(iter(store.query(count)))["n"].value) == size > 0
        named = f"SELECT DISTINCT ?g FROM NAMED <{graph}> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}"
        assert [row["g"].value for row in store.query(named)] == [graph]
        union = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
        assert int(next(iter(store.query(union)))["n"].value) > size


def test_ask_construct_and_describe(both) -> None:
    embedded, other = both
    for ask in (f"ASK {{ ?s a <{KG}Claim> }}", f"ASK {{ ?s a <{KG}Nothing> }}"):
        assert isinstance(other.query(ask), ox.QueryBoolean)
        assert bool(other.query(ask)) == bool(embedded.query(ask))
    for graph_query in (
        f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ ?s a <{KG}Claim> ; ?p ?o }}",
        f"DESCRIBE <{BASE}record/{SEED_ID}>",
    ):
        mine, theirs = embedded.query(graph_query), other.query(graph_query)
        assert type(theirs) is type(mine) is ox.QueryTriples
        as_quads = [ox.Quad(t.subject, t.predicate, t.object) for t in theirs]
        assert canonical_nquads(as_quads) == canonical_nquads(
            ox.Quad(t.subject, t.predicate, t.object) for t in mine
        )
        assert as_quads


def test_pages_read_the_same_from_both(both) -> None:
    embedded, other = both
    for kind, ident in (
        ("record", SEED_ID),
        ("activity", f"{SEED_ID}-review-1"),
        ("source", "saadat-fellay-2026-genomic-lm-efficiency"),
    ):
        theirs = describe(other, BASE, kind, ident)
        assert canonical_nquads(theirs) == canonical_nquads(describe(embedded, BASE, kind, ident))
        assert len(theirs) > 5


def test_a_value_cannot_change_the_query(both) -> None:
    """Values go in as terms: quotes, braces and keywords in one stay inside the literal."""
    _, other = both
    before = canonical_nquads(other.quads())
    hostile = ox.Literal('NT 2.5B" } } ; DROP ALL ; SELECT * { ?s ?p ?o # \n\\ "@en')
    assert list(other.query(canned_query("results-for-model").text, {"model": hostile})) == []
    assert canonical_nquads(other.quads()) == before
    with pytest.raises(StoreError, match="blank node"):
        other.query("SELECT ?s WHERE { ?s ?p ?o }", {"o": ox.BlankNode()})


def test_an_unreachable_store() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(StoreUnreachable) as info:
        remote(url).version()
    assert str(info.value) == f"cannot reach the SPARQL store at {url}/query (connection refused)"


def test_a_password_in_the_store_url_is_never_shown() -> None:
    port = free_port()
    with pytest.raises(StoreUnreachable) as info:
        remote(f"http://kg:s3cret@127.0.0.1:{port}/ds", store_query="sparql").version()
    assert str(info.value) == (
        f"cannot reach the SPARQL store at http://127.0.0.1:{port}/ds/sparql (connection refused)"
    )


@contextlib.contextmanager
def fake_store(
    status: int | None,
    content_type: str = "",
    body: bytes = b"",
    declared: int | None = None,
    seen: list[bytes] | None = None,
) -> Iterator[str]:
    """A server that answers every request the same way: ``status`` None never answers;
    ``declared`` announces more bytes than it sends, then hangs up; POST bodies go to
    ``seen``."""
    release = threading.Event()
    requests_seen = seen if seen is not None else []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self._answer()

        def do_POST(self) -> None:
            requests_seen.append(self._body())
            self._answer()

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                chunks = []
                while size := int(self.rfile.readline().strip(), 16):
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
                self.rfile.readline()
                return b"".join(chunks)
            return self.rfile.read(int(self.headers.get("Content-Length", 0)))

        def _answer(self) -> None:
            if status is None:
                release.wait(60)
                return
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(declared or len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            if declared:
                self.close_connection = True

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        release.set()
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        # what the Oxigraph server sends when its time limit stops a query
        (
            "application/sparql-results+json",
            CUT_SELECT + b"The SPARQL operation has been cancelled",
        ),
        ("application/sparql-results+json", CUT_SELECT),
        ("application/sparql-results+json", b'{"head":{},"boolean":tr'),
        (
            "application/ld+json",
            b'[{"@id":"http://a","http://p":[{"@id":"http://b"}]},{"@id":"http://c"',
        ),
    ],
)
def test_a_body_that_does_not_parse_is_an_error_never_a_partial_result(content_type, body) -> None:
    with fake_store(200, content_type, body) as url, pytest.raises(BadStoreAnswer) as info:
        list(remote(url).query("SELECT ?n WHERE { ?s ?p ?n }"))
    assert f"the SPARQL store at {url}/query sent an answer that does not parse" in str(info.value)


def test_a_connection_lost_mid_answer_is_an_error() -> None:
    with (
        fake_store(200, "application/sparql-results+json", CUT_SELECT, declared=10_000) as url,
        pytest.raises(BadStoreAnswer) as info,
    ):
        remote(url).query("SELECT ?n WHERE { ?s ?p ?n }")
    assert "cut its answer to the query short" in str(info.value)


@pytest.mark.parametrize(
    "content_type",
    [
        "text/html",
        # formats some of whose cuts still parse: never taken
        "application/sparql-results+xml",
        "application/rdf+xml",
        "application/n-triples",
    ],
)
def test_an_answer_in_an_unexpected_format_is_an_error(content_type: str) -> None:
    with (
        fake_store(200, content_type, b"<a>") as url,
        pytest.raises(BadStoreAnswer, match=re.escape(f"unexpected format ({content_type};")),
    ):
        remote(url).query("SELECT ?n WHERE { ?s ?p ?n }")


def test_error_statuses(remote_backend: Backend) -> None:
    with fake_store(500, "text/plain", b"disk full") as url, pytest.raises(BadStoreAnswer) as info:
        remote(url).query("SELECT ?n WHERE { ?s ?p ?n }")
    assert str(info.value) == (
        f"the SPARQL store at {url}/query answered the query with HTTP 500: disk full"
    )
    with fake_store(400, "text/plain", b"error at 1:8") as url, pytest.raises(QueryError) as info:
        remote(url).query("SELECT ?n WHERE { ?s ?p ?n }")
    assert "not a valid SPARQL query" in str(info.value) and "error at 1:8" in str(info.value)
    with fake_store(403, "text/plain", b"") as url, pytest.raises(StoreError) as info:
        store = remote(str(remote_backend.store), store_update=url + "/update")
        store.replace_graphs({"http://example.org/g": []}, manifest={})
    assert "refused the update (HTTP 403)" in str(info.value)


def test_no_answer_in_time_is_a_timeout() -> None:
    with fake_store(None) as url, pytest.raises(QueryTimeout) as info:
        remote(url, store_timeout=0.3).query("SELECT ?n WHERE { ?s ?p ?n }")
    assert str(info.value) == (
        f"the SPARQL store at {url}/query did not answer the query within 0.3 s"
    )


def test_the_oxigraph_server_cutting_a_query_at_its_time_limit(tmp_path: Path) -> None:
    with running_oxigraph(tmp_path / "db", "--timeout-s", "1") as url:
        store = remote(url)
        store.replace_graphs(
            {
                f"http://example.org/g{i}": [
                    ox.Quad(
                        ox.NamedNode(f"http://example.org/s{j}"),
                        ox.NamedNode("http://example.org/p"),
                        ox.Literal(str(j)),
                        ox.NamedNode(f"http://example.org/g{i}"),
                    )
                    for j in range(200)
                ]
                for i in range(5)
            },
            manifest={},
        )
        # 1000 triples cubed: far more than a second of work, so the server cuts it
        with pytest.raises(BadStoreAnswer) as info:
            store.query(HEAVY)
        assert "does not parse, probably cut short by the store's own time limit" in str(info.value)
        assert len(list(store.query("SELECT * WHERE { ?s ?p ?o }"))) == 1000 + 2  # + the manifest


def test_a_write_is_one_update_request_with_data_and_manifest(remote_backend: Backend) -> None:
    """What goes over the wire (the update endpoint played by a server that keeps what it
    gets): one SPARQL Update, valid for pyoxigraph's own parser, with the data and the
    manifest together, values written as terms."""
    seen: list[bytes] = []
    graph = ox.NamedNode("http://example.org/g")
    quad = ox.Quad(
        ox.NamedNode("http://example.org/s"),
        ox.NamedNode("http://example.org/p"),
        ox.Literal('a "quoted" } value\n'),
        graph,
    )
    with fake_store(204, seen=seen) as url:
        store = remote(str(remote_backend.store), store_update=url + "/update")
        store.replace_graphs({graph.value: [quad]}, remove=["http://example.org/old"], manifest={})
    [update] = seen
    sink = ox.Store()
    sink.update(update.decode())
    assert {q.graph_name.value for q in sink} == {graph.value, MANIFEST_GRAPH}
    assert quad in sink
    assert update.index(b"DROP SILENT GRAPH <http://example.org/old>") < update.index(b"INSERT")
