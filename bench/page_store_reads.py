"""What the store costs a record page: its graphs read cold (first read) and warm.

    python bench/page_store_reads.py 10000 100000 [--stores /work/benchdata/store-{n}/kg]
                                     [--corpora /work/benchdata/corpus-{n}] [--requests 500]
                                     [--rounds 3] [--work /tmp/kg-bench-page-store-reads]

A record page reads its record's graph and the graphs about it (``page_closure``, with
what bears on each record from the catalogue, as a live page does), then indexes the
quads (``Facts``). This opens the web app's store handle in this process (as
bench/pages.py does) and, for ``--requests`` records that no earlier round read, takes
the CPU time of this process per record for:

- **closure, first read**: ``page_closure`` of a record this process has not read: the
  store's blocks of its graph and of its terms are not in the store's cache yet (the
  files are in the OS's page cache: the store was just loaded or read);
- **closure, read again**: the same records again, their blocks now cached;
- **quads alone, read again**: ``GraphStore.quads`` of the same graphs, no Python work
  on them (the floor of the closure);
- **facts**: ``Facts`` of each closure (the page's index of its quads).

The rows are the least of ``--rounds`` rounds, each round other records; the ratio is to
"closure, read again". What a page reads at random over 100,000 records, against the
same page asked again, is mostly the first row's excess over the second.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pages import open_app, page_arguments  # noqa: E402
from kg.rdf.facts import Facts  # noqa: E402
from kg.store.records import NOTHING_ABOUT, page_closure  # noqa: E402
from kg.web.state import close, state  # noqa: E402

ROWS = ("closure, first read", "closure, read again", "quads alone, read again", "facts")


def per_record(work: Callable[[str], object], ids: list[str]) -> float:
    """Mean CPU ms of this process per id of ``work(id)``."""
    started = time.process_time()
    for ident in ids:
        work(ident)
    return (time.process_time() - started) * 1000 / len(ids)


def one_size(size: str, args: argparse.Namespace) -> tuple[str, dict[str, float]]:
    app, records = open_app(size, args)
    try:
        with app.app_context():
            app_state = state(app)
            catalog, registry = app_state.catalog, app_state.registry(None)
            terms = app_state.terms.graph
        store, base, about = registry.store, registry.base, catalog.about or {}
        fresh = [row.id for row in catalog.rows()]
        random.Random(1).shuffle(fresh)
        if len(fresh) < args.rounds * args.requests:
            raise SystemExit(f"{records} records: fewer than --rounds x --requests")

        def closure(ident: str) -> list:
            return page_closure(store, base, ident, about)[0]

        def quads_alone(ident: str) -> list:
            iri = registry.iri("record", ident)
            return list(store.quads(sorted({iri, *about.get(iri, NOTHING_ABOUT).graphs})))

        best = dict.fromkeys(ROWS, float("inf"))
        for round_ in range(args.rounds):
            ids = fresh[round_ * args.requests : (round_ + 1) * args.requests]
            closure(ids[0])  # warms the code, not the data measured
            times = [
                per_record(closure, ids[1:]),
                per_record(closure, ids[1:]),
                per_record(quads_alone, ids[1:]),
            ]
            found = {ident: closure(ident) for ident in ids[1:]}
            times.append(per_record(lambda ident, found=found: Facts(found[ident], terms), ids[1:]))
            for row, ms in zip(ROWS, times, strict=True):
                best[row] = min(best[row], ms)
        return records, best
    finally:
        close(app)


def main() -> int:
    args = page_arguments(__doc__, 500, 3, "/tmp/kg-bench-page-store-reads").parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print("| read | records | CPU ms / record | ratio to closure, read again |")
    print("|---|---|---|---|")
    for size in args.sizes:
        records, best = one_size(size, args)
        for row in ROWS:
            print(
                f"| {row} | {records} | {best[row]:.3f} | {best[row] / best[ROWS[1]]:.2f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
