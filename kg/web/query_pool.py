"""Running /sparql queries with a time limit that really stops the work.

Embedded store: pyoxigraph cannot cancel a running query and an aggregate runs in one
native call that no signal interrupts: the only reliable stop is to end the process
running it. Each worker holds its own read-only store handle and answers one query at a
time; a query over its time limit gets its worker killed (SIGKILL) and replaced.

Remote store: the query goes to the store, whose own time limit stops the work (set it
to ``KG_QUERY_TIMEOUT`` or less); the client gives up after ``KG_QUERY_TIMEOUT`` too.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import threading
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Protocol

from ..config import Settings
from ..errors import KgError, QueryError, QueryTimeout, StoreError


class Busy(KgError):
    """Every worker stayed busy for as long as a query may run."""

    http_status = 503


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


class QueryRunner(Protocol):
    """What the SPARQL endpoint runs a query with."""

    def run(self, request: QueryRequest) -> QueryAnswer: ...

    def close(self) -> None: ...


def open_query_runner(settings: Settings) -> QueryRunner:
    """Worker processes over the embedded store, or the remote store itself."""
    if settings.remote:
        return RemoteQueryRunner(settings)
    return QueryPool(settings.store, settings.query_workers,  # type: ignore[arg-type]
                     settings.query_timeout)


class RemoteQueryRunner:
    """Queries sent to a remote store from the request's thread (nothing to kill here:
    the store stops the work at its own time limit)."""

    def __init__(self, settings: Settings):
        from ..store.remote import RemoteStore

        self.store = RemoteStore(settings, read_only=True, timeout=settings.query_timeout)

    def run(self, request: QueryRequest) -> QueryAnswer:
        """Run a query on the store and write its answer with the row cap.

        :raises QueryError: when the store refuses the query (400).
        :raises QueryTimeout: when the store did not answer in time (503).
        :raises StoreError: when the store is unreachable or its answer is broken (503).
        """
        import pyoxigraph as ox

        from ..rdf.results import write

        bindings = {name: _term(ox, spec) for name, spec in request.bindings.items()}
        result = self.store.query(request.text, bindings, default_graphs=request.default_graphs,
                                  named_graphs=request.named_graphs,
                                  base_iri=request.base_iri or None)
        written = write(result, request.media_type, request.max_rows)
        return QueryAnswer(written.body, written.truncated, written.rows)

    def close(self) -> None:
        self.store.close()


#: Seconds a new worker may take to start (import and open the store): not part of any
#: query's time limit, or a busy machine would have every first query stopped.
STARTUP_LIMIT = 120.0


class _Worker:
    def __init__(self, context, store: Path):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=worker_main, args=(child, str(store)),
                                       daemon=True, name="kg-query-worker")
        self.process.start()
        child.close()
        self.ready = False

    def wait_ready(self) -> None:
        """Wait for the worker's "ready" (sent once it has imported what it needs)."""
        if not self.ready:
            if not self.conn.poll(STARTUP_LIMIT):
                raise EOFError("a query worker did not start")
            self.conn.recv()
            self.ready = True

    def kill(self) -> None:
        self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()


class QueryPool:
    """A fixed number of query workers over one store directory."""

    def __init__(self, store: Path, workers: int, timeout: float):
        self.store, self.timeout = store, timeout
        self._context = mp.get_context("spawn")  # no fork of a threaded server
        # Last in, first out: the worker that answered last answers next while the load
        # leaves some idle, with its store handle's caches warm (a cold handle took 2-4x
        # as long for one query: bench/README.md, "Canned queries at scale").
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        for _ in range(workers):
            self._add()

    def _add(self) -> None:
        worker = _Worker(self._context, self.store)
        with self._lock:
            self._all.add(worker)
        self._idle.put(worker)

    def pids(self) -> list[int]:
        with self._lock:
            return [w.process.pid for w in self._all if w.process.pid is not None]

    def run(self, request: QueryRequest) -> QueryAnswer:
        """Run a query in a worker.

        :raises QueryError: for a query that does not parse or cannot run (400).
        :raises QueryTimeout: when it ran past the limit; its worker was stopped (503).
        :raises Busy: when no worker became free in time (503).
        """
        try:
            worker = self._idle.get(timeout=self.timeout)
        except queue.Empty:
            raise Busy("every query worker is busy; try again shortly") from None
        healthy = False
        try:
            worker.wait_ready()
            worker.conn.send(request)
            if not worker.conn.poll(self.timeout):
                raise QueryTimeout(
                    f"the query ran longer than the limit of {self.timeout:g} s and was stopped")
            status, *payload = worker.conn.recv()
            healthy = True
        except (EOFError, OSError) as exc:
            raise StoreError(f"a query worker failed ({exc})") from None
        finally:
            if healthy:
                self._idle.put(worker)
            else:
                self._replace(worker)
        if status == "ok":
            return QueryAnswer(*payload)
        if status == "gone":
            raise VersionGone(payload[0])
        raise QueryError(payload[0]) if status == "query" else StoreError(payload[0])

    def _replace(self, worker: _Worker) -> None:
        with self._lock:
            self._all.discard(worker)
        worker.kill()
        self._add()

    def close(self) -> None:
        with self._lock:
            workers = list(self._all)
            self._all.clear()
        for worker in workers:
            worker.kill()


def worker_main(conn: Connection, store_path: str) -> None:
    """A worker's loop: one read-only store handle, one query at a time, until the pipe closes."""
    import pyoxigraph as ox

    from ..rdf.results import write, write_json_of_limited
    from ..rdf.sparqltext import with_row_limit
    from ..store.base import union_default
    from ..store.embedded import live_version

    opened: dict[Path, tuple[Path | None, ox.Store]] = {}  # store directory -> its handle
    conn.send(("ready",))
    while True:
        try:
            request: QueryRequest = conn.recv()
        except (EOFError, OSError):
            return  # the server is gone
        try:
            root = Path(request.store or store_path)
            current = root / request.version if request.version else live_version(root)
            if current is None:
                raise OSError(f"no store at {root}")
            if not current.is_dir():
                conn.send(("gone", "the store version this server reads was replaced by "
                                   "newer loads; try again"))
                continue
            version, store = opened.get(root, (None, None))
            if current != version:  # a load made a new version: read that one from now on
                store = ox.Store.read_only(str(current))
                if len(opened) >= 8:  # a few releases at a time; the live store comes back
                    opened.clear()
                opened[root] = (current, store)
            bindings = {ox.Variable(name): _term(ox, spec)
                        for name, spec in request.bindings.items()}
            options = {"substitutions": bindings or None, "base_iri": request.base_iri or None}
            if request.default_graphs or request.named_graphs:
                # the request's dataset, as the remote store reads it too: only the graphs
                # named (named-graph-uri alone leaves the default graph empty)
                options["default_graph"] = [ox.NamedNode(g) for g in request.default_graphs]
                options["named_graphs"] = [ox.NamedNode(g) for g in request.named_graphs]
            else:  # the union, or the query's own FROM and FROM NAMED
                options["use_default_graph_as_union"] = union_default(request.text)
            limited = (with_row_limit(request.text, request.max_rows + 1)
                       if _writes_json(request.media_type) else None)
            if limited is not None:
                try:
                    result = store.query(limited, **options)
                except SyntaxError:  # said of the query as it was sent, below
                    limited = None
            if limited is not None:
                written = write_json_of_limited(result, request.max_rows)
            else:
                result = store.query(request.text, **options)
                written = write(result, request.media_type, request.max_rows)
            conn.send(("ok", written.body, written.truncated, written.rows))
        except SyntaxError as exc:
            conn.send(("query", f"not a valid SPARQL query: {exc}"))
        except (ValueError, RuntimeError, TypeError) as exc:
            conn.send(("query", f"the query cannot be run: {exc}"))
        except OSError as exc:
            conn.send(("store", f"the store could not be read: {exc}"))


def _writes_json(media_type: str) -> bool:
    """Whether a result asked for as ``media_type`` is SPARQL JSON."""
    import pyoxigraph as ox

    from ..rdf.formats import by_media_type

    try:
        return by_media_type(media_type).results == ox.QueryResultsFormat.JSON
    except KeyError:
        return False


def _term(ox, spec: tuple[str, ...]):
    kind, value, *rest = spec
    if kind == "iri":
        return ox.NamedNode(value)
    return ox.Literal(value, datatype=ox.NamedNode(rest[0])) if rest else ox.Literal(value)
