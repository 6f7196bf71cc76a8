"""Running /sparql queries with a time limit that really stops the work.

Embedded store: pyoxigraph cannot cancel a running query and an aggregate runs in one
native call that no signal interrupts: the only reliable stop is to end the process
running it. Each worker holds its own read-only store handle and answers one query at a
time; a query over its time limit gets its worker killed (SIGKILL) and replaced.

A query a worker ran within ``inline_limit`` seconds runs in the server's own thread the
next times it is asked of the same store version (the same text, dataset, format and row
cap): a version never changes, so it does the same work again, far within the time limit,
without the handoff to a worker and back, which is most of what a fast query costs
(bench/README.md, "Queries known to be fast"). pyoxigraph lets other threads run meanwhile.
:meth:`QueryPool.run_known` runs only such a query (:mod:`kg.web.sparql.lane` asks it).

Remote store: the query goes to the store, whose own time limit stops the work (set it
to ``KG_QUERY_TIMEOUT`` or less); the client gives up after ``KG_QUERY_TIMEOUT`` too.
"""

from __future__ import annotations

import hashlib
import multiprocessing as mp
import queue
import threading
from collections import OrderedDict
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Protocol

from ...config import Settings
from ...errors import KgError, QueryTimeout, StoreError
from .run import (
    Outcome,
    QueryAnswer,
    QueryRequest,
    StoreHandles,
    VersionGone,
    answer_of,
    run_query,
    term_of,
)

__all__ = [
    "Busy",
    "QueryAnswer",
    "QueryPool",
    "QueryRequest",
    "QueryRunner",
    "RemoteQueryRunner",
    "VersionGone",
    "open_query_runner",
]


class Busy(KgError):
    """Every worker stayed busy for as long as a query may run."""

    http_status = 503


class QueryRunner(Protocol):
    """What the SPARQL endpoint runs a query with."""

    def run(self, request: QueryRequest) -> QueryAnswer: ...

    def run_known(self, request: QueryRequest) -> QueryAnswer | None: ...

    def close(self) -> None: ...


def open_query_runner(settings: Settings) -> QueryRunner:
    """Worker processes over the embedded store, or the remote store itself."""
    if settings.remote:
        return RemoteQueryRunner(settings)
    assert isinstance(settings.store, Path)  # not remote: the store is a directory
    return QueryPool(
        settings.store,
        settings.query_workers,
        settings.query_timeout,
        settings.query_inline_ms / 1000,
    )


class RemoteQueryRunner:
    """Queries sent to a remote store from the request's thread (nothing to kill here:
    the store stops the work at its own time limit)."""

    def __init__(self, settings: Settings):
        from ...store.remote import RemoteStore

        self.store = RemoteStore(settings, read_only=True, timeout=settings.query_timeout)

    def run(self, request: QueryRequest) -> QueryAnswer:
        """Run a query on the store and write its answer with the row cap.

        :raises QueryError: when the store refuses the query (400).
        :raises QueryTimeout: when the store did not answer in time (503).
        :raises StoreError: when the store is unreachable or its answer is broken (503).
        """
        from ...rdf.results import write

        bindings = {name: term_of(spec) for name, spec in request.bindings.items()}
        result = self.store.query(
            request.text,
            bindings,
            default_graphs=request.default_graphs,
            named_graphs=request.named_graphs,
            base_iri=request.base_iri or None,
        )
        written = write(result, request.media_type, request.max_rows)
        return QueryAnswer(written.body, written.truncated, written.rows)

    def run_known(self, request: QueryRequest) -> QueryAnswer | None:
        """None: a remote store's answers cost its round trip, none is known to be fast."""
        return None

    def close(self) -> None:
        self.store.close()


#: Seconds a new worker may take to start (import and open the store): not part of any
#: query's time limit, or a busy machine would have every first query stopped.
STARTUP_LIMIT = 120.0


class _Worker:
    def __init__(self, context, store: Path):
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=worker_main, args=(child, str(store)), daemon=True, name="kg-query-worker"
        )
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
    """A fixed number of query workers over one store directory, and the queries known
    to be fast, which the asking thread runs itself (the module's docstring says why)."""

    #: Queries remembered as fast: a digest each, the least recently asked forgotten first.
    KNOWN = 4096

    def __init__(self, store: Path, workers: int, timeout: float, inline_limit: float = 0.0):
        self.store, self.timeout, self.inline_limit = store, timeout, inline_limit
        self._context = mp.get_context("spawn")  # no fork of a threaded server
        # Last in, first out: the worker that answered last answers next while the load
        # leaves some idle, with its store handle's caches warm (a cold handle took 2-4x
        # as long for one query: bench/README.md, "Canned queries at scale").
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._fast: OrderedDict[bytes, None] = OrderedDict()  # digests, least recent first
        self._handles = StoreHandles()
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
        """Run a query: in this thread where it is known to be fast, else in a worker.

        :raises QueryError: for a query that does not parse or cannot run (400).
        :raises QueryTimeout: when it ran past the limit; its worker was stopped (503).
        :raises Busy: when no worker became free in time (503).
        """
        key = self._key(request)
        if key and self._known(key):
            return answer_of(run_query(self._handles, self.store, request), True)
        outcome = self._in_worker(request)
        if key and outcome[0] == "ok" and outcome[4] <= self.inline_limit:
            with self._lock:
                self._fast[key] = None
                if len(self._fast) > self.KNOWN:
                    self._fast.popitem(last=False)
        return answer_of(outcome)

    def run_known(self, request: QueryRequest) -> QueryAnswer | None:
        """The answer of a query known to be fast, run in this thread; None for any other
        (nothing is run).

        :raises QueryError: for a query that cannot run (400).
        """
        key = self._key(request)
        if not key or not self._known(key):
            return None
        return answer_of(run_query(self._handles, self.store, request), True)

    def _key(self, request: QueryRequest) -> bytes:
        # Only a version named (or a release's store, which never changes) is known: "the
        # live one" is another version after each load.
        known = self.inline_limit > 0 and bool(request.version or request.store)
        return _digest(request) if known else b""

    def _known(self, key: bytes) -> bool:
        with self._lock:
            if key not in self._fast:
                return False
            self._fast.move_to_end(key)
            return True

    def _idle_worker(self) -> _Worker:
        """A worker free to answer, one that died idle (killed, out of memory) replaced.

        :raises Busy: when none became free in time.
        """
        while True:
            try:
                worker = self._idle.get(timeout=self.timeout)
            except queue.Empty:
                raise Busy("every query worker is busy; try again shortly") from None
            if not worker.ready or worker.process.is_alive():
                return worker
            self._replace(worker)

    def _in_worker(self, request: QueryRequest) -> Outcome:
        worker = self._idle_worker()
        healthy = False
        try:
            worker.wait_ready()
            worker.conn.send(request)
            if not worker.conn.poll(self.timeout):
                raise QueryTimeout(
                    f"the query ran longer than the limit of {self.timeout:g} s and was stopped"
                )
            outcome = worker.conn.recv()
            healthy = True
        except (EOFError, OSError) as exc:
            raise StoreError(f"a query worker failed ({exc})") from None
        finally:
            if healthy:
                self._idle.put(worker)
            else:
                self._replace(worker)
        return outcome

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
    handles = StoreHandles()
    conn.send(("ready",))
    while True:
        try:
            request: QueryRequest = conn.recv()
        except (EOFError, OSError):
            return  # the server is gone
        conn.send(run_query(handles, Path(store_path), request))


def _digest(request: QueryRequest) -> bytes:
    """What makes two requests the same work on one store version (the version itself
    included: a load makes another)."""
    return hashlib.blake2b(
        repr(
            (
                request.store,
                request.version,
                request.text,
                request.media_type,
                request.max_rows,
                sorted(request.bindings.items()),
                request.default_graphs,
                request.named_graphs,
                request.base_iri,
            )
        ).encode(),
        digest_size=16,
    ).digest()
