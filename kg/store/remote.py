"""A remote store: any SPARQL 1.1 server, over the SPARQL 1.1 Protocol and Graph Store Protocol.

``KG_STORE=http://127.0.0.1:7878`` selects it (the Oxigraph server's layout: ``/query``,
``/update``, ``/store``); ``KG_STORE_QUERY``, ``KG_STORE_UPDATE`` and ``KG_STORE_GRAPHS``
name other endpoints (Fuseki: ``query``, ``update``, ``data`` under the dataset's URL).

- What differs between servers is declared in :mod:`kg.store.dialects` (found from the
  server's ``Server`` header, or ``KG_STORE_SERVER``): how queries and updates are sent,
  whether one update request is one transaction, which graphs are the server's own.
- Queries go to the query endpoint as ``application/sparql-query`` (form-encoded where
  the server answers only that). Results come back as JSON and are read strictly into
  pyoxigraph's own result objects (:mod:`kg.store.answers`), so callers cannot tell the
  stores apart.
- Values are bound with a ``VALUES`` clause (SPARQL 1.1) first in a SELECT's or ASK's
  WHERE group (trailing for the other forms), its terms written by pyoxigraph's
  serializer, never formatted by hand. :mod:`kg.store.sparql_requests` makes each request.
- A whole graph is read with a Graph Store Protocol GET.
- A write is one SPARQL Update request (one transaction: all of it or none), streamed
  from the load's spool file rather than held in memory; on a server without that
  transaction, it goes in steps behind a version marker that readers check
  (:mod:`kg.store.stepwise`).
- The load manifest and the version token live in the store itself, in the named graph
  ``<urn:x-claimgraph:manifest>``: the manifest as one JSON literal (``rdf:value``,
  datatype ``rdf:JSON``), the version as ``dcterms:identifier``. Both change in the
  same request as the data. Two triples are all the union default graph sees of it;
  :meth:`RemoteStore.quads` and :meth:`RemoteStore.named_graphs` leave it (and the
  pending graph of a stepwise write) out.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from urllib.parse import urljoin

import pyoxigraph as ox
import requests
from requests.adapters import HTTPAdapter

from ..config import Settings
from ..errors import QueryTimeout, StoreError
from ..rdf.sparqltext import query_form
from . import stepwise
from .answers import graph_triples, query_result
from .base import (
    GraphStore,
    Manifest,
    QueryResult,
    Term,
    manifest_from_json,
    manifest_to_json,
    nquads_of,
    solutions,
)
from .dialects import STANDARD, Dialect, detect, named
from .queries import internal_query
from .sparql_requests import (
    UPDATE_TYPE,
    atomic_write,
    graph_get,
    graph_post,
    query_post,
    update_post,
    values_clause,
    with_base,
    with_dataset,
    with_values,
)
from .stepwise import PENDING_GRAPH
from .wire import redact, send

MANIFEST_GRAPH = "urn:x-claimgraph:manifest"
#: Our own graphs beside the data: never counted, dumped or shown.
BOOKKEEPING = frozenset({MANIFEST_GRAPH, PENDING_GRAPH})
#: The kind of server at each query URL, once asked (one question per process).
_DETECTED: dict[str, Dialect] = {}

__all__ = ["MANIFEST_GRAPH", "RemoteStore", "redact"]


class RemoteStore(GraphStore):
    """A SPARQL 1.1 store at a URL. Each write is one SPARQL Update request where the
    server makes that one transaction, else a stepwise write readers never see half of;
    readers always see the newest version."""

    def __init__(
        self, settings: Settings, *, read_only: bool = False, timeout: float | None = None
    ):
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
        self._dialect = named(settings.store_server)
        self.session = requests.Session()
        # as many kept-alive connections as a threaded server has threads
        self.session.mount("http://", HTTPAdapter(pool_maxsize=64))
        self.session.mount("https://", HTTPAdapter(pool_maxsize=64))
        self._manifest: Manifest | None = None
        #: The version the manifest was read at: a write checks nobody wrote since.
        self._read_at: str | None = None

    @property
    def dialect(self) -> Dialect:
        """How this server is talked to (:mod:`kg.store.dialects`)."""
        if self._dialect is None:
            found = _DETECTED.get(self.query_url) or detect(
                self.session, self.query_url, min(self.timeout, 30.0)
            )
            if found is None:
                return STANDARD  # unreachable: the request that follows says so
            self._dialect = _DETECTED[self.query_url] = found
        return self._dialect

    # -- reading --------------------------------------------------------------------------
    def query(
        self,
        sparql: str,
        bindings: Mapping[str, Term] | None = None,
        *,
        default_graphs: Iterable[str] = (),
        named_graphs: Iterable[str] = (),
        timeout: float | None = None,
        base_iri: str | None = None,
    ) -> QueryResult:
        """Run a query on the server; ``default_graphs``/``named_graphs`` set the dataset
        as the protocol's ``default-graph-uri``/``named-graph-uri`` do (when either is
        given, the dataset is exactly what they name; else the query's ``FROM``, else the
        union: :func:`~kg.store.base.union_default`); relative IRIs in the query resolve
        against ``base_iri``.

        :raises QueryError: when the server refuses the query (HTTP 400).
        :raises QueryTimeout: when no answer came within ``timeout`` seconds.
        :raises StoreUnreachable: when the server cannot be reached.
        :raises StoreBusy: while a stepwise write holds the store.
        :raises BadStoreAnswer: for an error status or a body that does not parse.
        """
        text = sparql
        if bindings:
            text = with_values(sparql, bindings, self.dialect.values_inside)
        if base_iri:
            text = with_base(text, base_iri)
        dialect = self.dialect
        text, params = with_dataset(
            sparql, text, dialect, self.union, list(default_graphs), list(named_graphs)
        )
        run = self._asking(text, params, timeout)
        if dialect.atomic_updates or not self.read_only:
            # a writer reads without the check: it is the one that finishes an
            # unfinished stepwise write (its manifest then asks for every file again)
            return run()
        return stepwise.consistent(run, self.version, redact(self.url))

    def _asking(
        self, text: str, params: dict[str, object], timeout: float | None
    ) -> Callable[[], QueryResult]:
        """The request of one query, to send (again, when a stepwise write came between)."""
        dialect, form = self.dialect, query_form(text) or "SELECT"
        request = query_post(dialect, text, params, form)

        def run() -> QueryResult:
            response = self._send("POST", self.query_url, timeout=timeout, what="query", **request)
            if response.headers.get("X-SQL-State"):
                # Virtuoso's "anytime" answer: what it found before its time limit
                raise QueryTimeout(
                    f"the SPARQL store at {redact(self.query_url)} stopped "
                    "the query at its time limit and sent a partial answer "
                    f"({response.headers.get('X-SQL-Message', '').strip()})"
                )
            return query_result(
                response, redact(self.query_url), form, virtuoso=dialect.virtuoso_json
            )

        return run

    def _raw(self, name: str, graph: str) -> list:
        """An internal query about one of our own graphs, without the stepwise check."""
        run = self._asking(
            self.dialect.prologue()
            + internal_query(name).text
            + values_clause({"graph": ox.NamedNode(graph)}),
            {},
            None,
        )
        return list(solutions(run()))

    def version(self) -> str | None:
        rows = self._raw("store-version", MANIFEST_GRAPH)
        return rows[0]["version"].value if rows else None

    def manifest(self) -> Manifest:
        if self._manifest is None:
            rows = self._raw("load-manifest", MANIFEST_GRAPH)
            if rows:
                self._manifest = manifest_from_json(rows[0]["manifest"].value)
                self._read_at = rows[0]["version"].value
                if stepwise.writing(self._read_at):
                    # a stepwise write stopped part-way: nothing is known to be in place
                    self._manifest = stepwise.recovering(self._manifest)
            else:  # none yet, or a first stepwise write stopped before writing one
                self._manifest, self._read_at = {}, self.version()
        return dict(self._manifest)

    def named_graphs(self) -> set[str]:
        rows = self.query(internal_query(self.dialect.graph_listing).text)
        return {
            row["graph"].value for row in solutions(rows) if isinstance(row["graph"], ox.NamedNode)
        } - BOOKKEEPING

    def quads(self, graphs: Iterable[str] | None = None) -> Iterator[ox.Quad]:
        if graphs is None:
            for row in solutions(self.query(internal_query("all-quads").text)):
                if row["graph"].value not in BOOKKEEPING:
                    yield ox.Quad(row["s"], row["p"], row["o"], row["graph"])
            return
        for name in graphs:
            yield from self._graph(name)

    def _graph(self, name: str) -> list[ox.Quad]:
        """One named graph, by a Graph Store Protocol GET (a missing graph is empty); by
        a query where the server's GET answers in no format read strictly."""
        graph = ox.NamedNode(name)
        if self.dialect.form_posts:
            rows = self.query(internal_query("graph-triples").text, {"graph": graph})
            return [ox.Quad(row["s"], row["p"], row["o"], graph) for row in solutions(rows)]
        response = self._send(
            "GET", self.graphs_url, what="graph read", missing_ok=True, **graph_get(name)
        )
        if response.status_code == 404:
            return []
        return [
            ox.Quad(t.subject, t.predicate, t.object, graph)
            for t in graph_triples(response, redact(self.graphs_url))
        ]

    # -- writing --------------------------------------------------------------------------
    def replace_graphs(
        self,
        graphs: Mapping[str, Iterable[ox.Quad]],
        remove: Iterable[str] = (),
        manifest: Manifest | None = None,
    ) -> None:
        self._write(list(graphs.items()), {*graphs, *remove}, manifest)

    def load_nquads(
        self,
        nquads: Path | Sequence[Path],
        graphs: Iterable[str],
        remove: Iterable[str] = (),
        manifest: Manifest | None = None,
        consume: bool = False,
    ) -> None:
        # Streamed from the files: consecutive quads of one graph make one GRAPH block.
        quads = nquads_of(nquads, consume)
        content = (
            (graph.value, group)
            for graph, group in itertools.groupby(quads, key=lambda q: q.graph_name)
        )
        self._write(content, {*graphs, *remove}, manifest)

    def _write(
        self,
        content: Iterable[tuple[str, Iterable[ox.Quad]]],
        drop: set[str],
        manifest: Manifest | None,
    ) -> None:
        if self.read_only:
            raise StoreError("the store was opened read-only")
        manifest = manifest if manifest is not None else self.manifest()
        if self._manifest is None:
            self.manifest()
        # The server serializes transactions but cannot refuse a write made on stale
        # reads: check that no other writer published since this one read the manifest.
        if self.version() != self._read_at:
            raise self._stale()
        if self.dialect.atomic_updates:
            version = self._write_at_once(content, drop, manifest)
        else:
            version = self._write_in_steps(content, drop, manifest)
        self._manifest, self._read_at = dict(manifest), version

    def _write_at_once(
        self, content: Iterable[tuple[str, Iterable[ox.Quad]]], drop: set[str], manifest: Manifest
    ) -> str:
        version = stepwise.new_marker("v")
        self._send(
            "POST",
            self.update_url,
            data=atomic_write(content, drop, MANIFEST_GRAPH, manifest, version),
            headers={"Content-Type": UPDATE_TYPE},
            what="update",
        )
        return version

    def _write_in_steps(
        self, content: Iterable[tuple[str, Iterable[ox.Quad]]], drop: set[str], manifest: Manifest
    ) -> str:
        """The steps of :mod:`kg.store.stepwise`; on failure the marker stays "writing"."""
        current = self._read_at
        left = (
            {row["member"].value for row in self._raw("pending-graphs", PENDING_GRAPH)}
            if stepwise.writing(current)
            else set()
        )
        # each graph's triples: those with blank nodes go in one POST (a blank node's
        # label is scoped to one request), the others in batched INSERT DATA requests
        batch = stepwise.Batches()
        for name, quads in content:
            batch.add(name, quads)
        marker = stepwise.new_marker("w")
        self._update(stepwise.flip(MANIFEST_GRAPH, marker, current))
        if self.version() != marker:
            raise self._stale()
        try:
            touched = (drop | batch.graphs | left) - BOOKKEEPING
            self._update(f"DROP SILENT GRAPH {ox.NamedNode(PENDING_GRAPH)}")
            self._post(PENDING_GRAPH, stepwise.pending_ntriples(touched))
            for update in stepwise.drops(touched):
                self._update(update)
            for update in batch.inserts():
                self._update(update)
            for name, body in batch.posts():
                self._post(name, body)
            # the manifest, the marker left as it is (still "writing"); by an update, as
            # Virtuoso's Graph Store Protocol refuses a literal of over 64 KB
            self._update(stepwise.replace_manifest(MANIFEST_GRAPH, manifest_to_json(manifest)))
            version = stepwise.new_marker("v")
            self._update(stepwise.flip(MANIFEST_GRAPH, version, marker))
        except StoreError as exc:
            raise type(exc)(
                f"{exc}; the load stopped part-way, so readers of the store get "
                "503 until kg load runs again, which completes it"
            ) from None
        self._update(f"DROP SILENT GRAPH {ox.NamedNode(PENDING_GRAPH)}")
        return version

    def _stale(self) -> StoreError:
        return StoreError(
            f"the store at {redact(self.url)} changed while this write was "
            "prepared (another writer?); nothing was written, run it again"
        )

    def _update(self, text: str) -> None:
        self._send("POST", self.update_url, what="update", **update_post(self.dialect, text))

    def _post(self, graph: str, ntriples: str) -> None:
        """Add triples to a graph by a Graph Store Protocol POST (which takes blank nodes and
        any number of triples)."""
        self._send(
            "POST", self.graphs_url, what=f"graph write of <{graph}>", **graph_post(graph, ntriples)
        )

    # -- the wire -------------------------------------------------------------------------
    def _send(
        self,
        method: str,
        url: str,
        *,
        what: str,
        timeout: float | None = None,
        missing_ok: bool = False,
        **kwargs,
    ) -> requests.Response:
        return send(
            self.session,
            method,
            url,
            what=what,
            timeout=timeout or self.timeout,
            missing_ok=missing_ok,
            **kwargs,
        )

    def close(self) -> None:
        self.session.close()
