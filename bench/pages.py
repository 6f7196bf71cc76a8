"""Pages benchmark: the server CPU of pages rendered anew (no response cache), in this process.

    python bench/pages.py seed 10000 100000 [--stores /work/benchdata/store-{n}/kg]
                          [--corpora /work/benchdata/corpus-{n}] [--requests 50]
                          [--rounds 3] [--work /tmp/kg-bench-pages]

For each size (``seed``: the bundled data of data/, loaded into a fresh store under
``--work``; N: the store of the corpus ``bench/gen.py N --seed 1``, made as bench/serve.py
makes it where ``--stores`` names none), the web app (``create_app`` with ``cache_mb=0``)
runs in this process and Flask's test client asks it, one request after another. Each
row is the mean CPU time of this process (``time.process_time``: the machine is shared,
and CPU time is what the load of others changes least) over ``--requests`` requests after
one warm-up request, and its ratio to ``/healthz`` (the floor of the app and the test
client) measured in the same run. Each page is measured ``--rounds`` times, the rounds of
all pages taking turns, and its row gives the round of least CPU (as bench/timing.best
takes the fastest run: on a shared machine the others' load only ever adds):

- **record page, repeated**: the seed record (the bundled data) or one synthetic record,
  the same page each time;
- **record pages, each another**: a different record on each request (random, seed 1),
  and one that no earlier request of the run asked for while there are any (a record
  asked for again reads store blocks still in the cache): what the shared per-version
  reads (sources, runs) leave of a page;
- **record page, from the response cache**: the same, with the response cache on
  (``--cache-mb``): what a repeated page costs a server;
- **record page, revalidated**: a conditional request with the ETag the client got for
  the page (a 304, answered before the view runs, cache on or off);
- **search, repeated**: ``/records?q=memory`` (and from the response cache);
- **search, cold**: one word, its row set and facet counts dropped before each request
  (as on the first search of that word), over the words of :data:`COLD_WORDS` in turn.
- **record as Turtle**, **a source's page**, **disagreements**: the data answer of the
  record, the node page of the first row's source, the list of disagreements;
- **largest leaderboard** (and its table as CSV), **model with most results**: where the
  data has imported results (the bundled data does; bench/gen.py's corpora do not).

``--compare DIR`` runs the same measures over the code of another checkout first (a
``git worktree`` of an older commit), in this process's command: the before and after of
a change, one table each.

The index (the catalogue) is built once per size before anything is measured (its cost
is bench/serve.py's "index build"), and its time is printed on standard error.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

#: The code measured: this checkout, or the one --compare names (set for the run over it).
ROOT = Path(os.environ.get("KG_BENCH_CODE") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))

from bench.serve import prepare  # noqa: E402
from kg.config import load_settings  # noqa: E402
from kg.store.load import ensure_loaded  # noqa: E402
from kg.web import create_app  # noqa: E402
from kg.web.state import close, state  # noqa: E402

SEED_ID = (
    "saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-flashattention-checkpointing-zero2"
)
#: Words searched cold, one per request in turn: common and rare, and one in no row.
COLD_WORDS = ["memory", "promoter", "accuracy", "synthetic", "evo", "nt", "latency", "qqq"]


def cpu_ms(
    paths: Callable[[int], str],
    get: Callable[[str], int],
    requests: int,
    before: Callable[[], None] = lambda: None,
) -> float:
    """Mean CPU ms of this process per request of ``paths(i)``, after one warm-up request;
    ``before`` runs ahead of each request, outside the time."""
    before()
    get(paths(0))
    total = 0.0
    for i in range(requests):
        before()
        started = time.process_time()
        get(paths(i + 1))
        total += time.process_time() - started
    return total * 1000 / requests


def open_app(size: str, args: argparse.Namespace) -> tuple[Flask, str]:
    """The web app (no response cache) on the data of ``size`` (``seed`` or a number of
    records, made under ``args.work`` where missing), and the records' name for a row."""
    if size == "seed":
        root = args.work / "seed"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(ROOT / "data", root / "data")
        config = {"store": root / "store", "data": root / "data", "archive": root / "archive"}
        ensure_loaded(load_settings(config))
        records = "bundled data"
    else:
        _corpus, store = prepare(int(size), args.work, args.corpora, args.stores)
        config = {"store": store, "archive": args.work / f"archive-{size}"}
        records = f"{int(size):,}"
    return create_app({**config, "cache_mb": 0}), records


def getter(client: FlaskClient) -> Callable[[str], int]:
    """A GET through ``client`` that stops the run unless it answers 200: the body's size."""

    def get(path: str) -> int:
        response = client.get(path)
        if response.status_code != 200:
            raise SystemExit(f"{path}: HTTP {response.status_code}")
        return len(response.data)

    return get


def one_size(size: str, args: argparse.Namespace) -> list[tuple[str, str, float, float]]:
    app, records = open_app(size, args)
    try:
        client = app.test_client()
        get = getter(client)
        started = time.perf_counter()
        with app.app_context():
            catalog = state(app).catalog
        print(
            f"{records}: index built in {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
            flush=True,
        )
        ids = [row.id for row in catalog.rows()]
        rng = random.Random(1)
        one = SEED_ID if size == "seed" else rng.choice(ids)
        fresh = list(ids)
        rng.shuffle(fresh)

        def another(count: int) -> list[str]:
            # records no round asked for yet, while there are any: a record asked for
            # again finds its store blocks cached, which a first request does not
            nonlocal fresh
            if len(fresh) < count:
                fresh = list(ids)
                rng.shuffle(fresh)
            batch, fresh = fresh[:count], fresh[count:]
            return batch

        def each_another() -> float:
            batch = another(args.requests + 1)
            return cpu_ms(lambda i: f"/record/{batch[i]}", get, args.requests)

        tags: dict[str, str] = {}

        def revalidate(path: str) -> int:  # a client that has the page asks again
            if path not in tags:  # the warm-up request: the client gets the page once
                tags[path] = client.get(path).headers["ETag"]
            tag = tags[path]
            if client.get(path, headers={"If-None-Match": tag}).status_code != 304:
                raise SystemExit(f"{path}: no 304 to its own ETag")
            return 0

        cache = state(app).response_cache

        def cached(measure: Callable[[], float]) -> Callable[[], float]:
            def run() -> float:  # the same app with its response cache on
                cache.limit = args.cache_mb * 2**20
                try:
                    return measure()
                finally:
                    cache.limit = 0

            return run

        def cold() -> None:  # what a first search of a word finds: nothing kept
            catalog._facets.clear()

        n = args.requests
        base = state(app).settings.base
        source = next(catalog.rows()).source.removeprefix(base)
        boards = catalog.boards
        # the largest leaderboard and the model with the most results, where there are any
        board = max(boards.benchmarks(), key=lambda b: b.size, default=None)
        board = board.benchmark if board is not None else None
        most = catalog.index.execute(
            "SELECT model_node, count(*) AS c FROM rows WHERE benchmark != '' "
            "GROUP BY model_node ORDER BY c DESC LIMIT 1"
        ).fetchone()
        model = most[0] if most else None
        pages: list[tuple[str, Callable[[], float]]] = [
            ("/healthz (floor)", lambda: cpu_ms(lambda i: "/healthz", get, n)),
            ("record page, repeated", lambda: cpu_ms(lambda i: f"/record/{one}", get, n)),
            ("record pages, each another", each_another),
            (
                "record page, from the response cache",
                cached(lambda: cpu_ms(lambda i: f"/record/{one}", get, n)),
            ),
            (
                "record page, revalidated (304)",
                lambda: cpu_ms(lambda i: f"/record/{one}", revalidate, n),
            ),
            ("search, repeated", lambda: cpu_ms(lambda i: "/records?q=memory", get, n)),
            (
                "search, repeated, from the response cache",
                cached(lambda: cpu_ms(lambda i: "/records?q=memory", get, n)),
            ),
            (
                "search, cold",
                lambda: cpu_ms(
                    lambda i: f"/records?q={COLD_WORDS[i % len(COLD_WORDS)]}", get, n, cold
                ),
            ),
            ("record as Turtle", lambda: cpu_ms(lambda i: f"/record/{one}.ttl", get, n)),
            ("a source's page", lambda: cpu_ms(lambda i: f"/{source}", get, n)),
            ("disagreements", lambda: cpu_ms(lambda i: "/disagreements", get, n)),
        ]
        if board is not None and model is not None:
            board_path, model_path = f"/{board.removeprefix(base)}", f"/{model.removeprefix(base)}"
            pages += [
                ("largest leaderboard", lambda: cpu_ms(lambda i: board_path, get, n)),
                (
                    "largest leaderboard as CSV",
                    lambda: cpu_ms(lambda i: f"{board_path}/leaderboard.csv", get, n),
                ),
                ("model with most results", lambda: cpu_ms(lambda i: model_path, get, n)),
            ]
        best = [float("inf")] * len(pages)
        for _ in range(args.rounds):
            for i, (_page, measure) in enumerate(pages):
                best[i] = min(best[i], measure())
        return [
            (page, records, ms, ms / best[0]) for (page, _), ms in zip(pages, best, strict=True)
        ]
    finally:
        close(app)


def page_arguments(doc: str, requests: int, rounds: int, work: str) -> argparse.ArgumentParser:
    """The arguments of a benchmark of pages in this process: sizes, data, how many."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("sizes", nargs="+", help="seed, or a number of records")
    parser.add_argument("--stores", default="/work/benchdata/store-{n}/kg")
    parser.add_argument("--corpora", default="/work/benchdata/corpus-{n}")
    parser.add_argument("--requests", type=int, default=requests)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--work", type=Path, default=Path(work))
    return parser


def main() -> int:
    parser = page_arguments(__doc__, 50, 3, "/tmp/kg-bench-pages")
    parser.add_argument(
        "--cache-mb", type=int, default=64, help="the response cache of the rows that use it"
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="DIR",
        help="first measure the code of the checkout DIR (a git worktree of the baseline)",
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.compare is not None:
        argv = [a for a in sys.argv[1:] if a not in ("--compare", str(args.compare))]
        print(f"before: {args.compare} ({_commit(args.compare)})", flush=True)
        env = {**os.environ, "KG_BENCH_CODE": str(args.compare.resolve())}
        subprocess.run([sys.executable, __file__, *argv], env=env, check=True)
        print(f"\nafter: {ROOT} ({_commit(ROOT)})", flush=True)
    print("| page | records | CPU ms / request | ratio to /healthz |")
    print("|---|---|---|---|")
    for size in args.sizes:
        for page, records, ms, ratio in one_size(size, args):
            print(f"| {page} | {records} | {ms:.2f} | {ratio:.1f} |", flush=True)
    return 0


def _commit(tree: Path) -> str:
    found = subprocess.run(
        ["git", "-C", str(tree), "describe", "--always", "--dirty"], capture_output=True, text=True
    )
    return found.stdout.strip() or "not a git checkout"


if __name__ == "__main__":
    raise SystemExit(main())
