"""The endpoint's floor (issue 25): what /sparql costs for a query that reads nothing,
against `oxigraph serve` on the same store, and where that time goes.

    python bench/endpoint_floor.py /work/benchdata/store-10000/kg [--requests 300] [--rounds 2]

The canned queries that oxigraph answers in a few milliseconds are the ones over 1.5x of
it (bench/README.md, "Canned queries at scale"): their ratio is this floor. One query of
no rows (a class no node has) is asked ``--requests`` times, one after another, of:

- **oxigraph serve**: `oxigraph serve-read-only` over a copy of the live version, POST
  /query over HTTP;
- **kg serve**: the same POST to /sparql over HTTP, the response cache off (KG_CACHE_MB=0):
  after its first run the query is known to be fast: it runs in the server's thread and
  is answered before Flask (kg/web/sparql/lane.py);
- **kg serve, every query in a worker**: the same with KG_QUERY_INLINE_MS=0 (what every
  query cost before queries known to be fast ran in the server's thread);
- **kg serve /healthz**: a GET of /healthz of the same server (what any answer through
  the HTTP server and Flask cost, with no query and no worker);
- **web app in process**: the web app of `create_app` asked through Flask's test client
  in this process (no HTTP server, no socket; the query known, so Flask is passed by);
- **query worker in process**: `QueryPool.run` alone (the handoff to a worker process
  and back, with the query run and its JSON written there);
- **query known fast in process**: `QueryPool.run` of a query it has seen a worker answer
  fast (run in this thread, on its own read-only handle);
- **pyoxigraph in process**: the query on a read-only store handle in this process, its
  JSON written.

Each row is the median wall time of a request (the floor is latency, not CPU) of the round
of least median, the rounds of all rows taking turns.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyoxigraph as ox  # noqa: E402

from bench.serve import ENV, Server, oxigraph_serve, store_arguments  # noqa: E402

QUERY = "SELECT ?s WHERE { ?s a <urn:x-claimgraph:no-such-class> }"
JSON = "application/sparql-results+json"


def median_ms(requests: int, ask: Callable[[], object]) -> float:
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        ask()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    args, live = store_arguments(__doc__, requests=300, rounds=2)

    from kg.web import create_app
    from kg.web.workers.pool import QueryPool, QueryRequest

    work = Path(tempfile.mkdtemp(prefix="kg-floor-"))
    copy = work / "oxigraph"
    subprocess.run(["cp", "-a", str(live), str(copy)], check=True)
    oxigraph = oxigraph_serve(copy)
    command = [sys.executable, "-m", "kg.cli", "--store", str(args.store), "serve", "--port", "0"]
    kg = Server(command, None, env={**ENV, "KG_CACHE_MB": "0"})
    kg_workers = Server(command, None, env={**ENV, "KG_CACHE_MB": "0", "KG_QUERY_INLINE_MS": "0"})
    app = create_app({"store": str(args.store), "cache_mb": 0})
    client = app.test_client()
    pool = QueryPool(args.store, 1, 60.0)  # every query in the worker
    known = QueryPool(args.store, 1, 60.0, inline_limit=60.0)
    handle = ox.Store.read_only(str(live))
    body = urllib.parse.urlencode({"query": QUERY}).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": JSON}

    def by_http(server: Server, path: str) -> Callable[[], object]:
        def ask() -> None:
            status, _ = server.get(path, body, headers)
            assert status == 200, status

        return ask

    def healthz() -> None:
        status, _ = kg.get("/healthz")
        assert status == 200, status

    def in_flask() -> None:
        assert (
            client.post("/sparql", data={"query": QUERY}, headers={"Accept": JSON}).status_code
            == 200
        )

    def in_worker() -> None:
        pool.run(QueryRequest(QUERY, JSON, 1000))

    # Only a query of a version named is known (the live one changes with each load).
    fast = QueryRequest(QUERY, JSON, 1000, version=live.name)

    def in_thread() -> None:
        assert known.run(fast).in_thread

    def in_pyoxigraph() -> None:
        handle.query(QUERY, use_default_graph_as_union=True).serialize(
            format=ox.QueryResultsFormat.JSON
        )

    rows = {
        "oxigraph serve (HTTP)": by_http(oxigraph, "/query"),
        "kg serve /sparql (HTTP)": by_http(kg, "/sparql"),
        "kg serve /sparql, every query in a worker (HTTP)": by_http(kg_workers, "/sparql"),
        "kg serve /healthz (HTTP)": healthz,
        "web app in process (test client)": in_flask,
        "query worker in process": in_worker,
        "query known fast in process": in_thread,
        "pyoxigraph in process": in_pyoxigraph,
    }
    try:
        known.run(fast)  # a worker answers it first
        for ask in rows.values():  # starts the workers, warms each path
            for _ in range(20):
                ask()
        best: dict[str, float] = {}
        for _ in range(args.rounds):
            for name, ask in rows.items():
                ms = median_ms(args.requests, ask)
                best[name] = min(best.get(name, ms), ms)
    finally:
        kg.stop()
        kg_workers.stop()
        oxigraph.stop()
        pool.close()
        known.close()
        shutil.rmtree(work, ignore_errors=True)
    floor = best["oxigraph serve (HTTP)"]
    print("| path | median ms / request | ratio to oxigraph serve |")
    print("|---|---|---|")
    for name, ms in best.items():
        print(f"| {name} | {ms:.2f} | {ms / floor:.2f} |")


if __name__ == "__main__":  # the query workers are spawned: they import this module
    main()
