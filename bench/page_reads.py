"""Record pages with what bears on a record read once per version, against read per page.

    python bench/page_reads.py seed 10000 100000 [--stores /work/benchdata/store-{n}/kg]
                               [--corpora /work/benchdata/corpus-{n}] [--requests 100]
                               [--rounds 4] [--work /tmp/kg-bench-page-reads]

A live record page takes the graphs about its record and the runs that reproduce it from
the catalogue (``Catalog.about``, one query a version), and keeps for the version the
other claims of its quoted sentence and what their columns show. This runs the web app
in this process (as bench/pages.py does: ``cache_mb=0``, Flask's test client, CPU time of
this process, the least of ``--rounds`` rounds) two ways, taking turns:

- **per page**: ``Catalog.about`` set to None and nothing kept, so each page runs
  ``queries/internal/record-page.rq`` for its record and reads its sentence's other
  claims again, as a page did before (the runs' facts are kept in both);
- **per version**: as served.

Rows: the same record page each time (the seed record for ``seed``, one random record
else) and a different record on each request. The ratio is per version over per page.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pages import SEED_ID, cpu_ms, getter, open_app, page_arguments  # noqa: E402
from kg.web import record_page  # noqa: E402
from kg.web.state import close, state  # noqa: E402


def one_size(size: str, args: argparse.Namespace) -> list[tuple[str, str, float, float]]:
    app, records = open_app(size, args)
    kept = record_page.RecordPage._kept
    try:
        get = getter(app.test_client())

        with app.app_context():
            catalog = state(app).catalog
        about = catalog.about
        ids = [row.id for row in catalog.rows()]
        rng = random.Random(1)
        one = SEED_ID if size == "seed" else rng.choice(ids)

        def per_page(measure: Callable[[], float]) -> Callable[[], float]:
            def run() -> float:
                catalog.about = None
                record_page.RecordPage._kept = (  # type: ignore[method-assign]
                    lambda self, name: kept(self, name) if name == record_page.KEPT_RUNS else {}
                )
                try:
                    return measure()
                finally:
                    catalog.about = about
                    record_page.RecordPage._kept = kept  # type: ignore[method-assign]

            return run

        def repeated() -> float:
            return cpu_ms(lambda i: f"/record/{one}", get, args.requests)

        def each_another() -> float:
            batch = [rng.choice(ids) for _ in range(args.requests + 1)]
            return cpu_ms(lambda i: f"/record/{batch[i]}", get, args.requests)

        rows = [("record page, repeated", repeated), ("record pages, each another", each_another)]
        best = {(name, way): float("inf") for name, _ in rows for way in ("page", "version")}
        for _ in range(args.rounds):
            for name, measure in rows:
                best[name, "page"] = min(best[name, "page"], per_page(measure)())
                best[name, "version"] = min(best[name, "version"], measure())
        return [(name, records, best[name, "page"], best[name, "version"]) for name, _ in rows]
    finally:
        record_page.RecordPage._kept = kept  # type: ignore[method-assign]
        close(app)


def main() -> int:
    parser = page_arguments(__doc__, 100, 4, "/tmp/kg-bench-page-reads")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print("| page | records | per page, CPU ms | per version, CPU ms | ratio |")
    print("|---|---|---|---|---|")
    for size in args.sizes:
        for name, records, page, version in one_size(size, args):
            print(
                f"| {name} | {records} | {page:.2f} | {version:.2f} | {version / page:.2f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
