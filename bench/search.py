"""Index search benchmark: finding the rows that contain a word, in one command.

    python bench/search.py 10000 100000 [--stores '/tmp/kg-bench/stores-{n}/kg']

For each size N it builds the index (``kg.read.catalog.Catalog``) of a store that ``kg load``
made (``bench/ingest.py --keep`` keeps them), then times, for each of a few words (best of
three, cold: no cache of search words):

- baseline: a test of every row's text, its answers read as a bitset (the obvious way,
  what the index did before);
- joined: ``Catalog._rows_containing``, one ``str.find`` pass over all rows' texts
  joined, a row per match;

both giving the same rows (checked). Results print as a Markdown table for
bench/README.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg.read.bitsets import bitset  # noqa: E402
from kg.read.catalog import Catalog  # noqa: E402
from kg.store import EmbeddedStore  # noqa: E402

WORDS = ["memory", "2.5b", "accuracy", "promoter", "evo", "synthetic", "nt", "qqq"]


def best_ms(run) -> tuple[float, int]:
    best, value = float("inf"), 0
    for _ in range(3):
        started = time.perf_counter()
        value = run()
        best = min(best, time.perf_counter() - started)
    return best * 1000, value


def per_row(catalog: Catalog, word: str) -> int:
    """The baseline: one test per row, "1" where it matches, read as a binary number."""
    return int("".join(["1" if word in r.text else "0" for r in reversed(catalog.rows)]) or "0", 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="+", type=int)
    parser.add_argument("--stores", default="/tmp/kg-bench/stores-{n}/kg")
    args = parser.parse_args()
    print("| records | word | rows with it | per-row test ms | joined search ms | ratio |")
    print("|---|---|---|---|---|---|")
    for n in args.sizes:
        with EmbeddedStore(Path(args.stores.format(n=n)), read_only=True) as store:
            catalog = Catalog.from_store(store)
        for word in WORDS:
            baseline, expected = best_ms(lambda w=word, c=catalog: per_row(c, w))
            joined, found = best_ms(lambda w=word, c=catalog: bitset(c._rows_containing(w)))
            assert found == expected, word
            print(
                f"| {n:,} | {word} | {expected.bit_count():,} | {baseline:.1f} "
                f"| {joined:.1f} | {baseline / joined:.2f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
