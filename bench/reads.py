"""Read benchmark: what compacting a bulk-loaded store gives its readers, in one command.

    python bench/reads.py 1000 10000 100000 [--work /tmp/kg-bench] [--records 200]

For each size N it takes the N-Quads that ``bench/ingest.py`` wrote for the corpus of N
records (``WORK/quads-N.nq``; run that first), bulk-loads them into a fresh on-disk
store (pyoxigraph ``bulk_load``, as ``kg load`` writes a large batch), then measures:

- reads before: ``quads_for_pattern`` of ``--records`` random record graphs (what a
  record page reads), best of three passes, in ms per graph;
- ``Store.optimize()``: the compaction ``kg load`` now does before a bulk-written version
  goes live, in seconds;
- reads after: the same graphs, the same way.

Also the sorted-run files (``*.sst``) before and after. Results print as a Markdown
table for bench/README.md.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pyoxigraph as ox

BASE = "https://claimgraph.example/"


def read_ms(store: ox.Store, graphs: list[ox.NamedNode]) -> float:
    """Milliseconds per graph, best of three passes over ``graphs``."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for graph in graphs:
            for _quad in store.quads_for_pattern(None, None, None, graph):
                pass
        best = min(best, (time.perf_counter() - started) / len(graphs) * 1000)
    return best


def bench(n: int, work: Path, records: int) -> dict[str, float]:
    nquads = work / f"quads-{n}.nq"
    if not nquads.exists():
        raise SystemExit(f"no {nquads}: run python bench/ingest.py {n} --work {work} first")
    target = work / f"reads-{n}"
    shutil.rmtree(target, ignore_errors=True)
    store = ox.Store(str(target))
    started = time.perf_counter()
    store.bulk_load(path=str(nquads), format=ox.RdfFormat.N_QUADS)
    loaded = time.perf_counter() - started
    ids = random.Random(1).sample(range(n), min(records, n))
    graphs = [ox.NamedNode(f"{BASE}record/synthetic-record-{i:06d}") for i in ids]
    runs_before = len(list(target.glob("*.sst")))
    before = read_ms(store, graphs)
    started = time.perf_counter()
    store.optimize()
    optimized = time.perf_counter() - started
    after = read_ms(store, graphs)
    result = {
        "load": loaded,
        "optimize": optimized,
        "before": before,
        "after": after,
        "sst_before": runs_before,
        "sst_after": len(list(target.glob("*.sst"))),
    }
    del store
    shutil.rmtree(target, ignore_errors=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="+", type=int)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kg-bench")
    parser.add_argument("--records", type=int, default=200)
    args = parser.parse_args()
    print(
        "| records | bulk_load s | optimize s | read ms / record graph before | after "
        "| before / after | .sst files before / after |"
    )
    print("|---|---|---|---|---|---|---|")
    for n in args.sizes:
        r = bench(n, args.work, args.records)
        print(
            f"| {n:,} | {r['load']:.1f} | {r['optimize']:.1f} | {r['before']:.2f} "
            f"| {r['after']:.2f} | {r['before'] / r['after']:.1f} "
            f"| {r['sst_before']} / {r['sst_after']} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
