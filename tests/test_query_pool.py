"""The query workers and the queries known to be fast (kg/web/workers/pool.py) over a real
store on disk: a query a worker answered within the inline limit is answered by the
server's own thread the next times, with the same bytes, on that store version only; a
worker is what answers everything else."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import write_values
from kg.errors import QueryError
from kg.web.workers.pool import QueryPool, QueryRequest

JSON = "application/sparql-results+json"
QUERY = "SELECT ?o WHERE { ?s <urn:p> ?o } ORDER BY ?o"


def ask(version: str, text: str = QUERY, media_type: str = JSON) -> QueryRequest:
    return QueryRequest(text=text, media_type=media_type, max_rows=100, version=version)


def ended(pid: int) -> None:
    """Wait until a killed worker has ended, every thread of it (its store's too), as the
    pool sees it: ``active_children`` asks each child as the pool does, and reaps it."""
    while pid in {child.pid for child in multiprocessing.active_children()}:
        time.sleep(0.01)


def values(body: bytes) -> list[str]:
    return [row["o"]["value"] for row in json.loads(body)["results"]["bindings"]]


@pytest.fixture
def pool(store_dir: Path) -> Iterator[QueryPool]:
    write_values(store_dir, ["a", "b"])
    pool = QueryPool(store_dir, 1, 30.0, inline_limit=30.0)  # every query is "fast" here
    yield pool
    pool.close()


def test_a_query_known_fast_is_answered_in_the_thread_with_the_same_bytes(
    pool: QueryPool, store_dir: Path
) -> None:
    version = os.readlink(store_dir / "live")
    first = pool.run(ask(version))
    again = pool.run(ask(version))
    assert (first.in_thread, again.in_thread) == (False, True)
    assert again.body == first.body and values(again.body) == ["a", "b"]
    assert (again.rows, again.truncated) == (first.rows, first.truncated)


def test_a_known_query_needs_no_worker(pool: QueryPool, store_dir: Path) -> None:
    """Killed workers: the known query is still answered (by this thread), and no worker
    was asked, or the dead one would have been found and replaced."""
    version = os.readlink(store_dir / "live")
    pool.run(ask(version))
    workers = pool.pids()
    for pid in workers:
        os.kill(pid, signal.SIGKILL)
    answer = pool.run(ask(version))
    assert answer.in_thread and values(answer.body) == ["a", "b"]
    assert pool.pids() == workers


def test_what_makes_another_query_goes_to_a_worker(pool: QueryPool, store_dir: Path) -> None:
    """Another format, another text or another version is other work: a worker runs it
    first. A new version's answer is that version's."""
    version = os.readlink(store_dir / "live")
    pool.run(ask(version))
    assert not pool.run(ask(version, media_type="text/csv")).in_thread
    assert not pool.run(ask(version, QUERY + " LIMIT 1")).in_thread
    newer = write_values(store_dir, ["c"])
    fresh = pool.run(ask(newer))
    assert not fresh.in_thread and values(fresh.body) == ["c"]
    assert pool.run(ask(newer)).in_thread
    assert values(pool.run(ask(version)).body) == ["a", "b"]  # the older one, as it was


def test_the_live_version_unnamed_is_never_known(pool: QueryPool, store_dir: Path) -> None:
    """A request for "the live version" reads another version after each load."""
    assert [pool.run(ask("")).in_thread for _ in range(2)] == [False, False]
    write_values(store_dir, ["c"])
    assert values(pool.run(ask("")).body) == ["c"]


def test_a_query_over_the_inline_limit_stays_in_the_workers(store_dir: Path) -> None:
    version = write_values(store_dir, ["a"])
    for limit in (0.0, 1e-9):  # off, or shorter than any query takes
        pool = QueryPool(store_dir, 1, 30.0, inline_limit=limit)
        try:
            assert [pool.run(ask(version)).in_thread for _ in range(3)] == [False] * 3
        finally:
            pool.close()


def test_a_failing_query_is_never_known_fast(pool: QueryPool, store_dir: Path) -> None:
    version = os.readlink(store_dir / "live")
    bad = ask(version, "SELECT ?o WHERE { ?s <urn:p> ?o } ORDER BY")
    for _ in range(2):
        with pytest.raises(QueryError, match="not a valid SPARQL query"):
            pool.run(bad)
    workers = pool.pids()
    for pid in workers:
        os.kill(pid, signal.SIGKILL)
        ended(pid)
    with pytest.raises(QueryError):  # from a worker: the dead one's replacement
        pool.run(bad)
    assert pool.pids() and not set(pool.pids()) & set(workers)


def test_a_worker_that_died_idle_is_replaced_before_it_is_asked(
    pool: QueryPool, store_dir: Path
) -> None:
    version = os.readlink(store_dir / "live")
    pool.run(ask(version, QUERY + " LIMIT 5"))
    (dead,) = pool.pids()
    os.kill(dead, signal.SIGKILL)
    ended(dead)
    answer = pool.run(ask(version, QUERY + " LIMIT 9"))  # a query it does not know
    assert not answer.in_thread and values(answer.body) == ["a", "b"]
    assert pool.pids() != [dead]
