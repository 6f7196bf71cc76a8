"""Running one /sparql query on a read-only store handle: what a query worker does, and
what the server's own thread does for a query known to be fast (:mod:`.query_pool`).

Both write the same bytes for the same request, and say how it went the same way: an
:data:`Outcome` tuple, plain data that crosses a process boundary, read back into an
answer or one of our errors by :func:`answer_of`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TypedDict

import pyoxigraph as ox

from ...errors import KgError, QueryError, StoreError
from ...rdf.formats import by_media_type
from ...rdf.results import write, write_json_of_limited
from ...rdf.sparqltext import with_row_limit
from ...store.base import union_default
from ...store.versions import live_version

#: ("ok", body, truncated, rows, seconds the query took), or (kind, message) with kind
#: "query" (the query's fault), "store" or "gone".
Outcome = tuple


class VersionGone(KgError):
    """The store version the server reads was removed by later loads before a worker
    opened it (the server moves on to a newer one within a second)."""

    http_status = 503


@dataclass(frozen=True)
class QueryRequest:
    """What a worker needs to run one query (plain data: it crosses a process boundary)."""

    text: str
    media_type: str
    max_rows: int
    #: variable -> ("iri", value) or ("literal", value, datatype)
    bindings: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: The dataset the request names (the protocol's default-graph-uri, named-graph-uri):
    #: when either is given, the dataset is exactly what they name; else the query's own
    #: (FROM, FROM NAMED), or the union of the named graphs as the default graph.
    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()
    #: What relative IRIs in the query resolve against ("": none; a relative IRI is an error).
    base_iri: str = ""
    #: Another store directory to query (a release's, from the archive) instead of the pool's.
    store: str = ""
    #: The version of the store to read (a version directory's name): the one the pages
    #: beside this query read, so that no reader sees the data go back; "": the live one.
    version: str = ""


@dataclass(frozen=True)
class QueryAnswer:
    body: bytes
    truncated: bool
    rows: int
    #: Whether the server's own thread ran it (a query known to be fast), not a worker.
    in_thread: bool = False


class StoreHandles:
    """One read-only store handle per store directory, on the version last asked for (a
    load makes a new version: the handle of the old one goes, so its files can)."""

    def __init__(self, limit: int = 8):
        self._opened: dict[Path, tuple[Path, ox.Store]] = {}  # store directory -> version, handle
        self._limit = limit
        self._lock = threading.Lock()

    def open(self, root: Path, version: Path) -> ox.Store:
        with self._lock:
            held = self._opened.get(root)
            if held is not None and held[0] == version:
                return held[1]
        store = ox.Store.read_only(str(version))
        with self._lock:
            if len(self._opened) >= self._limit:  # a few releases at a time; the live comes back
                self._opened.clear()
            self._opened[root] = (version, store)
        return store


def run_query(handles: StoreHandles, default_root: Path, request: QueryRequest) -> Outcome:
    """Run ``request`` on its store version and write its answer with the row cap; never
    raises for what a query or a store can do."""
    try:
        root = Path(request.store) if request.store else default_root
        version = root / request.version if request.version else live_version(root)
        if version is None:
            raise OSError(f"no store at {root}")
        if not version.is_dir():
            return (
                "gone",
                "the store version this server reads was replaced by newer loads; try again",
            )
        store = handles.open(root, version)
        started = time.perf_counter()
        body, truncated, rows = _execute(store, request)
        return ("ok", body, truncated, rows, time.perf_counter() - started)
    except SyntaxError as exc:
        return ("query", f"not a valid SPARQL query: {exc}")
    except (ValueError, RuntimeError, TypeError) as exc:
        return ("query", f"the query cannot be run: {exc}")
    except OSError as exc:
        return ("store", f"the store could not be read: {exc}")


def answer_of(outcome: Outcome, in_thread: bool = False) -> QueryAnswer:
    """The answer an outcome holds.

    :raises QueryError: for a query that does not parse or cannot run (400).
    :raises VersionGone: when the version to read was removed meanwhile (503).
    :raises StoreError: when the store could not be read (503).
    """
    status, *payload = outcome
    if status == "ok":
        return QueryAnswer(payload[0], payload[1], payload[2], in_thread)
    if status == "gone":
        raise VersionGone(payload[0])
    raise QueryError(payload[0]) if status == "query" else StoreError(payload[0])


class _QueryOptions(TypedDict, total=False):
    """The keyword arguments of :meth:`pyoxigraph.Store.query` that :func:`_execute` gives."""

    substitutions: dict[ox.Variable, ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple] | None
    base_iri: str | None
    default_graph: list[ox.NamedNode | ox.BlankNode | ox.DefaultGraph]
    named_graphs: list[ox.NamedNode | ox.BlankNode]
    use_default_graph_as_union: bool


def _execute(store: ox.Store, request: QueryRequest) -> tuple[bytes, bool, int]:
    bindings: dict[ox.Variable, ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple] = {
        ox.Variable(name): term_of(spec) for name, spec in request.bindings.items()
    }
    options: _QueryOptions = {
        "substitutions": bindings or None,
        "base_iri": request.base_iri or None,
    }
    if request.default_graphs or request.named_graphs:
        # the request's dataset, as the remote store reads it too: only the graphs named
        # (named-graph-uri alone leaves the default graph empty)
        options["default_graph"] = [ox.NamedNode(g) for g in request.default_graphs]
        options["named_graphs"] = [ox.NamedNode(g) for g in request.named_graphs]
    else:  # the union, or the query's own FROM and FROM NAMED
        options["use_default_graph_as_union"] = union_default(request.text)
    limited = (
        with_row_limit(request.text, request.max_rows + 1)
        if _writes_json(request.media_type)
        else None
    )
    if limited is not None:
        try:
            result = store.query(limited, **options)
        except SyntaxError:  # said of the query as it was sent, below
            limited = None
    if limited is not None:
        # with_row_limit adds a LIMIT to SELECT queries only: their result is solutions
        assert isinstance(result, ox.QuerySolutions)
        written = write_json_of_limited(result, request.max_rows)
    else:
        result = store.query(request.text, **options)
        written = write(result, request.media_type, request.max_rows)
    return written.body, written.truncated, written.rows


@lru_cache(maxsize=64)
def _writes_json(media_type: str) -> bool:
    """Whether a result asked for as ``media_type`` is SPARQL JSON."""
    try:
        return by_media_type(media_type).results == ox.QueryResultsFormat.JSON
    except KeyError:
        return False


def term_of(spec: tuple[str, ...]) -> ox.NamedNode | ox.Literal:
    """A pyoxigraph term from its plain-data form in :attr:`QueryRequest.bindings`."""
    kind, value, *rest = spec
    if kind == "iri":
        return ox.NamedNode(value)
    return ox.Literal(value, datatype=ox.NamedNode(rest[0])) if rest else ox.Literal(value)
