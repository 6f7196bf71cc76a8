"""A search's facets counted over its sample, both ways, in one process over one index file.

    python bench/facet_sample.py INDEX WORD [WORD ...] [--rounds N]

INDEX is an index file (``v-<ns>.index.sqlite``, format 10 or later); each WORD a search.
For each word, best of ``--rounds`` (each with the file's selection counts forgotten):

- **from the rows (baseline)**: the sixth step's reading: the sample's eleven facet columns
  read as text from the rows themselves, each row's cells counted in a Python loop, every
  value counted kept; the methods (a list per row) counted by SQLite over the same rows;
- **from the codes**: ``facet_counts`` as the index page asks it (30 values a facet): the
  same sample's coded values (``row_facets``), counted a column at a time, only the values
  that can be shown decoded (kg/store/index/facet_codes.py).

Both read the same rows (the first ``FACET_SAMPLE`` matches in the full-text table's order);
the script checks that the counts they give agree on every value shown.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg.store.index import Index  # noqa: E402
from kg.store.index.facets import FACET_SAMPLE, facet_counts  # noqa: E402
from kg.store.index.query import Search  # noqa: E402
from kg.store.index.schema import CODED, FACETS, LISTED  # noqa: E402


def from_rows(index: Index, word: str) -> dict[str, Counter[str]]:
    """The baseline: the sample's facet values read as text and counted cell by cell."""
    search = Search.parse(word)
    assert search is not None
    columns = ", ".join(f"rows.{key}" for key in CODED)
    found = index.execute(
        f"SELECT {columns} FROM search JOIN rows ON rows.n = search.rowid "
        f"WHERE search MATCH ? ORDER BY search.rowid LIMIT {FACET_SAMPLE}",
        [search.expression],
    )
    counters = [Counter[str]() for _ in CODED]
    for cells in found:
        for counter, value in zip(counters, cells, strict=True):
            counter[value] += 1
    names = [name for name in FACETS if name != LISTED]
    out = dict(zip(names, counters, strict=True))
    # the methods, a list per row, counted by SQLite over the same rows, as both do
    out[LISTED] = Counter(
        dict(
            index.execute(
                "SELECT method, count(*) FROM row_methods WHERE n IN (SELECT rows.n FROM search "
                "JOIN rows ON rows.n = search.rowid WHERE search MATCH ? ORDER BY search.rowid "
                f"LIMIT {FACET_SAMPLE}) GROUP BY method",
                [search.expression],
            ).fetchall()
        )
    )
    return out


def best(rounds: int, run) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = run()
        times.append((time.perf_counter() - start) * 1000)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index", type=Path)
    parser.add_argument("words", nargs="+")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    index = Index(args.index)
    print(f"{index.size:,} rows in {args.index}")
    print("| word | matches | from the rows ms (baseline) | from the codes ms | ratio |")
    print("|---|---|---|---|---|")
    for word in args.words:

        def coded(word: str = word) -> object:
            index.counts.clear()
            return facet_counts(index, word, {}, 30)

        base_ms, base = best(args.rounds, lambda word=word: from_rows(index, word))
        new_ms, counted = best(args.rounds, coded)
        for name, shown in counted.items():  # type: ignore[attr-defined]
            for value, _, n in shown:
                assert base[name][value] == n, (word, name, value)  # type: ignore[index]
        matches = index.execute(
            "SELECT count(*) FROM search WHERE search MATCH ?",
            [Search.parse(word).expression],  # type: ignore[union-attr]
        ).fetchone()[0]
        print(f"| {word} | {matches:,} | {base_ms:.1f} | {new_ms:.1f} | {new_ms / base_ms:.2f} |")


if __name__ == "__main__":
    main()
