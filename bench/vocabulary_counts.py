"""What `/ns` pays once per store version: the statements that use each term of the
vocabulary (``queries/internal/term-uses.rq``, :func:`kg.store.index.tables.term_uses`).

    python bench/vocabulary_counts.py STORE [--runs 2]

STORE is an embedded store a load or an import wrote. Prints the quads of the store, and
for each run the seconds of the count, the terms used and the uses: the first `/ns`
request of a store version waits that long; later ones read the counts kept for it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg.store import EmbeddedStore  # noqa: E402
from kg.store.index.tables import term_uses  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    store = EmbeddedStore(args.store, read_only=True)
    print("| run | seconds | terms used | uses |\n|---|---:|---:|---:|")
    for run in range(1, args.runs + 1):
        started = time.perf_counter()
        uses = term_uses(store)
        seconds = time.perf_counter() - started
        print(f"| {run} | {seconds:.1f} | {len(uses)} | {sum(uses.values()):,} |", flush=True)


if __name__ == "__main__":
    main()
