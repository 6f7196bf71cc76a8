"""Counting rows (issue 25): the rows of a SPARQL JSON answer counted in its bytes
(kg.rdf.results.json_rows) against pyoxigraph's results parser (the baseline, what the
endpoint did before), and both against the query that made the answer, in one process.

    python bench/result_rows.py STORE [STORE...] [--queries current-claims ...] [--runs 5]

For each store (made by kg load or kg import; only read) and each canned query (with the
parameters bench/canned.py picks), the answer is made once by the query as the endpoint
runs it (pyoxigraph, JSON), then counted both ways; each figure is the best of ``--runs``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyoxigraph as ox  # noqa: E402

from bench.canned import picks, texts  # noqa: E402
from bench.serve import live_or_exit  # noqa: E402
from kg.rdf.results import json_rows  # noqa: E402

JSON = ox.QueryResultsFormat.JSON
QUERIES = [
    "current-claims",
    "results-without-reproduction",
    "source-by-sha256",
    "missing-metadata",
    "runs-and-verdicts",
]


def best_ms(runs: int, work: Callable[[], object]) -> tuple[object, float]:
    best, out = float("inf"), None
    for _ in range(runs):
        begun = time.perf_counter()
        out = work()
        best = min(best, time.perf_counter() - begun)
    return out, best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", type=Path, nargs="+")
    parser.add_argument("--queries", nargs="+", default=QUERIES)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(
        "| records | canned query | rows | MB | query + JSON ms | parser count ms "
        "| byte count ms | parser / byte | byte count / query |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for store_dir in args.stores:
        one_store(store_dir, args)


def one_store(store_dir: Path, args: argparse.Namespace) -> None:
    live = live_or_exit(store_dir)
    found = picks(live)
    queries, _ = texts(found)
    store = ox.Store.read_only(str(live))
    for name in args.queries:

        def answer(text: str = queries[name]) -> bytes:
            return store.query(text, use_default_graph_as_union=True).serialize(format=JSON)

        body, query_ms = best_ms(args.runs, answer)
        parsed, parser_ms = best_ms(
            args.runs, lambda body=body: sum(1 for _ in ox.parse_query_results(body, format=JSON))
        )
        counted, byte_ms = best_ms(args.runs, lambda body=body: json_rows(body))
        assert parsed == counted, (name, parsed, counted)
        print(
            f"| {int(found['records']):,} | {name} | {counted:,} | "
            f"{len(body) / 2**20:.1f} | {query_ms:.0f} | {parser_ms:.1f} | "
            f"{byte_ms:.1f} | {parser_ms / max(byte_ms, 1e-3):.1f} | "
            f"{byte_ms / query_ms:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
