"""Search benchmark: the index page's ranked search on a store version's index, cold and warm.

    python bench/search.py /tmp/kg-bench-import/files-all/store [STORE...] [--query Q ...]

For each store (made by ``kg load`` or ``kg import``; only read) and each query it times,
best of three where warm:

- baseline: the bare full-text match, counted (``SELECT count(*) FROM search WHERE search
  MATCH ?``): what SQLite's FTS5 costs alone;
- cold: the first page of 50 as the index page asks it (the matches counted, ranked, the
  exact names first, snippets), on an index opened afresh, as after a start;
- warm: the same again on the open index;
- facets: the facet counts of the search (the index page's sidebar), uncached.

Results print as a Markdown table for bench/README.md ("A million results"), with the
ratio of cold to the baseline.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg.read.catalog import Catalog  # noqa: E402
from kg.store import EmbeddedStore  # noqa: E402
from kg.store.index import Index, index_for  # noqa: E402
from kg.store.index.query import Search, Selection, facet_counts, page  # noqa: E402

QUERIES = [
    "Meta-Llama-3-8B-Instruct ifeval",
    "ifeval",
    "mmlu",
    "qwen2.5 math",
    "llama",
    "gsm8",
    "ifevl",
    "synthetic",
]


def ms(run) -> tuple[float, object]:
    started = time.perf_counter()
    value = run()
    return (time.perf_counter() - started) * 1000, value


def best_ms(run) -> tuple[float, object]:
    return min((ms(run) for _ in range(3)), key=lambda m: m[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--query", action="append", help="a query (repeatable; default: a list)")
    args = parser.parse_args()
    print(
        "| records | query | matches | bare match ms | cold page ms | ratio | warm page ms "
        "| facets ms | first result |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for path in args.stores:
        with EmbeddedStore(path, read_only=True) as store:
            index_path = index_for(store, path.parent / (path.name + "-index")).path
        for query in args.query or QUERIES:
            search = Search.parse(query)
            fresh = Index(index_path)  # a new connection: nothing of SQLite's kept
            started = time.perf_counter()
            found = Catalog(fresh).page(query, {}, None, 50)
            cold = (time.perf_counter() - started) * 1000
            index = Index(index_path)
            bare, _ = best_ms(
                lambda i=index, s=search: (
                    i.execute(
                        "SELECT count(*) FROM search WHERE search MATCH ?", (s.expression,)
                    ).fetchone()
                    if s
                    else None
                )
            )
            warm, _ = best_ms(
                lambda i=index, q=query: page(i, Selection.of(q, {}), None, 50)  # type: ignore[misc]
            )
            facets, _ = ms(lambda i=index, q=query: facet_counts(i, q, {}, 30))
            first = (
                found.rows[0].model + " · " + found.rows[0].benchmark_label if found.rows else ""
            )
            spelled = f" (as {found.corrected!r})" if found.corrected else ""
            print(
                f"| {fresh.size:,} | {query}{spelled} | {found.total:,} | {bare:.1f} | {cold:.1f} "
                f"| {cold / bare if bare else float('nan'):.1f} | {warm:.1f} | {facets:.1f} "
                f"| {first} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
