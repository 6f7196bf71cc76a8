"""A remote store: any SPARQL 1.1 server, over the SPARQL 1.1 Protocol and Graph Store Protocol.

``KG_STORE=http://127.0.0.1:7878`` selects it (the Oxigraph server's layout: ``/query``,
``/update``, ``/store``); ``KG_STORE_QUERY``, ``KG_STORE_UPDATE`` and ``KG_STORE_GRAPHS``
name other endpoints (Fuseki: ``query``, ``update``, ``data`` under the dataset's URL).

- Queries go to the query endpoint as ``application/sparql-query``. Results come back
  as SPARQL JSON (graphs as JSON-LD) and are parsed into pyoxigraph's own result
  objects, so callers cannot tell the stores apart. A JSON body cut short does not
  parse, and is an error, never a partial result (the Oxigraph server answers a query
  stopped by its time limit with HTTP 200 and a truncated body). SPARQL XML, RDF/XML
  and the line-based formats are refused: some of their cuts still parse.
- Values are bound with a trailing ``VALUES`` clause (SPARQL 1.1), its terms written by
  pyoxigraph's serializer, never formatted by hand.
- A whole graph is read with a Graph Store Protocol GET.
- A write is one SPARQL Update request (one transaction: all of it or none), streamed
  from the load's spool file rather than held in memory.
- The load manifest and the version token live in the store itself, in the named graph
  ``<urn:x-claimgraph:manifest>``: the manifest as one JSON literal (``rdf:value``,
  datatype ``rdf:JSON``), the version as ``dcterms:identifier``. Both change in the
  same request as the data. Two triples are all the union default graph sees of it;
  :meth:`RemoteStore.quads` and :meth:`RemoteStore.named_graphs` leave it out.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from urllib.parse import urljoin, urlsplit, urlunsplit

import pyoxigraph as ox
import requests
from requests.adapters import HTTPAdapter

from ..config import Settings
from ..errors import (
    BadStoreAnswer,
    QueryError,
    QueryTimeout,
    StoreError,
    StoreUnreachable,
)
from ..rdf.namespaces import DCTERMS, RDF
from .base import (
    GraphStore,
    Manifest,
    QueryResult,
    Term,
    manifest_from_json,
    manifest_to_json,
    union_default,
    update_chunks,
)
from .queries import internal_query

MANIFEST_GRAPH = "urn:x-claimgraph:manifest"
RDF_JSON = str(RDF) + "JSON"
#: Asked for every query: SELECT and ASK as SPARQL JSON, graphs as JSON-LD. Both are
#: JSON, which a cut cannot leave whole; SPARQL XML and RDF/XML are not asked for, as
#: pyoxigraph reads some of their cuts without complaint.
ACCEPT = "application/sparql-results+json, application/ld+json;q=0.9"
RESULTS_JSON = ("application/sparql-results+json", "application/json")
GRAPH_JSON = "application/ld+json"


def redact(url: str) -> str:
    """A URL without its user and password, for messages."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


class RemoteStore(GraphStore):
    """A SPARQL 1.1 store at a URL. Each write is one SPARQL Update request, so the
    server's transaction makes it atomic; readers always see the newest version."""

    def __init__(self, settings: Settings, *, read_only: bool = False,
                 timeout: float | None = None):
        if not isinstance(settings.store, str):
            raise StoreError(f"not a store URL: {settings.store}")
        root = settings.store.rstrip("/") + "/"
        self.url = settings.store
        self.query_url = urljoin(root, settings.store_query)
        self.update_url = urljoin(root, settings.store_update)
        self.graphs_url = urljoin(root, settings.store_graphs)
        name, _, value = settings.store_union.partition("=")
        self.union = {name: value} if name and name != "none" else {}
        self.read_only = read_only
        self.timeout = timeout if timeout is not None else settings.store_timeout
        self.session = requests.Session()
        # as many kept-alive connections as a threaded server has threads
        self.session.mount("http://", HTTPAdapter(pool_maxsize=64))
        self.session.mount("https://", HTTPAdapter(pool_maxsize=64))
        self._manifest: Manifest | None = None
        #: The version the manifest was read at: a write checks nobody wrote since.
        self._read_at: str | None = None

    # -- reading --------------------------------------------------------------------------
    def query(
        self, sparql: str, bindings: Mapping[str, Term] | None = None, *,
        default_graphs: Iterable[str] = (), named_graphs: Iterable[str] = (),
        timeout: float | None = None, base_iri: str | None = None,
    ) -> QueryResult:
        """Run a query on the server; ``default_graphs``/``named_graphs`` set the dataset
        as the protocol's ``default-graph-uri``/``named-graph-uri`` do (when either is
        given, the dataset is exactly what they name; else the query's ``FROM``, else the
        union: :func:`~kg.store.base.union_default`); relative IRIs in the query resolve
        against ``base_iri``.

        :raises QueryError: when the server refuses the query (HTTP 400).
        :raises QueryTimeout: when no answer came within ``timeout`` seconds.
        :raises StoreUnreachable: when the server cannot be reached.
        :raises BadStoreAnswer: for an error status or a body that does not parse.
        """
        text = sparql + values_clause(bindings) if bindings else sparql
        if base_iri:
            # The protocol has no parameter for a base: a BASE before the query's own
            # prologue (a BASE of its own still wins), on its first line, so the store's
            # error positions keep their line numbers.
            try:
                text = f"BASE {ox.NamedNode(base_iri)} {text}"
            except ValueError as exc:
                raise QueryError(f"cannot resolve the query's IRIs against {base_iri}: {exc}") \
                    from None
        default_graphs, named_graphs = list(default_graphs), list(named_graphs)
        # never the union parameter beside a dataset: it would override the query's FROM,
        # and a store refuses it beside the protocol's (Oxigraph: 400)
        params: dict[str, object] = (
            dict(self.union) if union_default(sparql, default_graphs, named_graphs) else {})
        if default_graphs:
            params["default-graph-uri"] = default_graphs
        if named_graphs:
            params["named-graph-uri"] = named_graphs
        response = self._send("POST", self.query_url, params=params, data=text.encode(),
                              headers={"Content-Type": "application/sparql-query; charset=utf-8",
                                       "Accept": ACCEPT},
                              timeout=timeout, what="query")
        return _parse_result(response, redact(self.query_url))

    def version(self) -> str | None:
        rows = list(self.query(internal_query("store-version").text,
                               {"graph": ox.NamedNode(MANIFEST_GRAPH)}))
        return rows[0]["version"].value if rows else None

    def manifest(self) -> Manifest:
        if self._manifest is None:
            rows = list(self.query(internal_query("load-manifest").text,
                                   {"graph": ox.NamedNode(MANIFEST_GRAPH)}))
            if rows:
                self._manifest = manifest_from_json(rows[0]["manifest"].value)
                self._read_at = rows[0]["version"].value
            else:
                self._manifest, self._read_at = {}, None
        return dict(self._manifest)

    def named_graphs(self) -> set[str]:
        rows = self.query(internal_query("named-graphs").text)
        return {row["graph"].value for row in rows
                if isinstance(row["graph"], ox.NamedNode)} - {MANIFEST_GRAPH}

    def quads(self, graphs: Iterable[str] | None = None) -> Iterator[ox.Quad]:
        if graphs is None:
            for row in self.query(internal_query("all-quads").text):
                if row["graph"].value != MANIFEST_GRAPH:
                    yield ox.Quad(row["s"], row["p"], row["o"], row["graph"])
            return
        for name in graphs:
            yield from self._graph(name)

    def _graph(self, name: str) -> list[ox.Quad]:
        """One named graph, by a Graph Store Protocol GET (a missing graph is empty)."""
        response = self._send("GET", self.graphs_url, params={"graph": name},
                              headers={"Accept": GRAPH_JSON}, what="graph read",
                              missing_ok=True)
        if response.status_code == 404:
            return []
        graph = ox.NamedNode(name)
        return [ox.Quad(t.subject, t.predicate, t.object, graph)
                for t in _parse_triples(response, redact(self.graphs_url))]

    # -- writing --------------------------------------------------------------------------
    def replace_graphs(
        self, graphs: Mapping[str, Iterable[ox.Quad]], remove: Iterable[str] = (),
        manifest: Manifest | None = None,
    ) -> None:
        self._write(list(graphs.items()), {*graphs, *remove}, manifest)

    def load_nquads(
        self, nquads: Path, graphs: Iterable[str], remove: Iterable[str] = (),
        manifest: Manifest | None = None,
    ) -> None:
        # Streamed from the file: consecutive quads of one graph make one GRAPH block.
        quads = ox.parse(path=str(nquads), format=ox.RdfFormat.N_QUADS)
        content = ((graph.value, group) for graph, group in
                   itertools.groupby(quads, key=lambda q: q.graph_name))
        self._write(content, {*graphs, *remove}, manifest)

    def _write(self, content: Iterable[tuple[str, Iterable[ox.Quad]]], drop: set[str],
               manifest: Manifest | None) -> None:
        if self.read_only:
            raise StoreError("the store was opened read-only")
        manifest = manifest if manifest is not None else self.manifest()
        if self._manifest is None:
            self.manifest()
        # The server serializes transactions but cannot refuse a write made on stale
        # reads: check that no other writer published since this one read the manifest.
        if self.version() != self._read_at:
            raise StoreError(f"the store at {redact(self.url)} changed while this write was "
                             "prepared (another writer?); nothing was written, run it again")
        version = f"v-{time.time_ns()}"
        node = ox.NamedNode(MANIFEST_GRAPH)
        stamp = [ox.Quad(node, ox.NamedNode(RDF.value),
                         ox.Literal(manifest_to_json(manifest), datatype=ox.NamedNode(RDF_JSON)),
                         node),
                 ox.Quad(node, ox.NamedNode(DCTERMS.identifier), ox.Literal(version), node)]
        chunks = update_chunks(itertools.chain(content, [(MANIFEST_GRAPH, stamp)]),
                               drop | {MANIFEST_GRAPH})
        self._send("POST", self.update_url, data=(c.encode() for c in chunks),
                   headers={"Content-Type": "application/sparql-update; charset=utf-8"},
                   what="update")
        self._manifest, self._read_at = dict(manifest), version

    # -- the wire -------------------------------------------------------------------------
    def _send(self, method: str, url: str, *, what: str, timeout: float | None = None,
              missing_ok: bool = False, **kwargs) -> requests.Response:
        """One request; every way it can fail becomes one of our errors."""
        shown = redact(url)
        try:
            response = self.session.request(method, url, timeout=timeout or self.timeout,
                                            **kwargs)
        except requests.ConnectTimeout:
            raise StoreUnreachable(f"cannot reach the SPARQL store at {shown} "
                                   "(no answer to the connection)") from None
        except requests.Timeout:
            raise QueryTimeout(f"the SPARQL store at {shown} did not answer the {what} "
                               f"within {timeout or self.timeout:g} s") from None
        except requests.exceptions.ChunkedEncodingError:
            raise BadStoreAnswer(f"the SPARQL store at {shown} cut its answer to the {what} "
                                 "short") from None
        except requests.ConnectionError as exc:
            reason = _reason(exc)
            raise StoreUnreachable(f"cannot reach the SPARQL store at {shown} ({reason})") \
                from None
        except requests.RequestException as exc:
            raise StoreError(f"the {what} to the SPARQL store at {shown} failed: {exc}") from None
        status = response.status_code
        if status < 300 or (missing_ok and status == 404):
            return response
        message = response.text.strip()[:500] or response.reason
        if status == 400 and what == "query":
            raise QueryError(f"not a valid SPARQL query (the SPARQL store answered HTTP 400: "
                             f"{message})")
        if status in (401, 403):
            raise StoreError(f"the SPARQL store at {shown} refused the {what} (HTTP {status}): "
                             "give credentials in the store URL (http://user:password@host/...)")
        raise BadStoreAnswer(f"the SPARQL store at {shown} answered the {what} with HTTP "
                             f"{status}: {message}")

    def close(self) -> None:
        self.session.close()


def values_clause(bindings: Mapping[str, Term]) -> str:
    """A trailing ``VALUES`` clause giving each variable its term (SPARQL 1.1 §10.2.2).

    :raises StoreError: for a blank node, which no protocol request can name.
    """
    names = sorted(bindings)
    for name in names:
        if isinstance(bindings[name], ox.BlankNode):
            raise StoreError(f"a blank node cannot be sent to a remote store (?{name})")
    variables = " ".join(str(ox.Variable(name)) for name in names)
    terms = " ".join(str(bindings[name]) for name in names)
    return f"\nVALUES ({variables}) {{ ({terms}) }}\n"


def _parse_result(response: requests.Response, shown: str) -> QueryResult:
    """The body as pyoxigraph results; it must parse to its end."""
    if _media_type(response) not in RESULTS_JSON:
        triples = _parse_triples(response, shown)
        graph = ox.Store()
        graph.extend(ox.Quad(t.subject, t.predicate, t.object) for t in triples)
        return graph.query("CONSTRUCT WHERE { ?s ?p ?o }")  # a real QueryTriples
    body = response.content
    try:
        result = ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
        if isinstance(result, ox.QueryBoolean):
            return result
        for _ in result:  # the parser is lazy: read it all once to know it is whole
            pass
        return ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
    except SyntaxError as exc:
        raise _unparsable(shown, exc) from None


def _parse_triples(response: requests.Response, shown: str) -> list[ox.Triple]:
    """A JSON-LD body as triples; it must parse to its end."""
    media_type = _media_type(response)
    if media_type != GRAPH_JSON:
        raise BadStoreAnswer(f"the SPARQL store at {shown} answered in an unexpected format "
                             f"({media_type or 'no Content-Type'}; asked for {ACCEPT})")
    try:
        return [q.triple for q in ox.parse(response.content, ox.RdfFormat.JSON_LD)]
    except SyntaxError as exc:
        raise _unparsable(shown, exc) from None


def _media_type(response: requests.Response) -> str:
    return response.headers.get("Content-Type", "").split(";")[0].strip().lower()


def _unparsable(shown: str, exc: Exception) -> BadStoreAnswer:
    return BadStoreAnswer(
        f"the SPARQL store at {shown} sent an answer that does not parse, probably cut "
        f"short by the store's own time limit ({_first_line(exc)})")


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _reason(exc: Exception) -> str:
    text = str(exc)
    for known in ("Connection refused", "Name or service not known", "Connection reset",
                  "Remote end closed connection", "No route to host", "timed out"):
        if known in text:
            return known.lower()
    return _first_line(exc)[:200]
