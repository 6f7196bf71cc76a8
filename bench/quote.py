"""What setting the claims of one sentence side by side costs a record page.

    python bench/quote.py 1000 10000 [--work /tmp/kg-bench-quote] [--records 200]

For each size N it generates a corpus (bench/gen.py N --seed 1), loads it with `kg load`
into a fresh on-disk store, and then, in this process, for ``--records`` random records:

- baseline: the record's closure (``record_closure``: what every record page reads);
- quote: the query for the other records of its quoted sentence (``quote_siblings``), and
  the closures of those it finds (what the page reads besides, for the side-by-side table);
- the whole page: ``GET /record/<id>`` through the app's test client, with and without the
  side-by-side table (the table's lookup switched off in the second pass).

Each as milliseconds per record, best of three passes, and the quote's cost as a ratio to
the baseline read. Results print as a Markdown table for bench/README.md.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BASE = "https://claimgraph.example/"


def best_ms(action, items: list[str]) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for item in items:
            action(item)
        best = min(best, (time.perf_counter() - started) * 1000 / len(items))
    return best


def measure(n: int, work: Path, records: int) -> str:
    """One size's row of the table."""
    from kg.store.records import quote_siblings, record_closure
    from kg.web import create_app
    from kg.web.pages.record import RecordPage

    corpus, store_dir = work / f"corpus-{n}", work / f"store-{n}"
    if not corpus.exists():
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "gen.py"),
                str(n),
                "--seed",
                "1",
                "-o",
                str(corpus),
            ],
            check=True,
        )
    if not store_dir.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "kg.cli",
                "--store",
                str(store_dir),
                "--base",
                BASE,
                "load",
                str(corpus),
            ],
            check=True,
            cwd=ROOT,
            capture_output=True,
        )
    app = create_app({"store": store_dir, "archive": work / f"archive-{n}", "base": BASE})
    store = app.extensions["kg"].store
    ids = sorted(p.stem for p in (corpus / "records").glob("*.yaml"))
    sample = random.Random(1).sample(ids, min(records, len(ids)))
    found: list[int] = []

    def quote(ident: str) -> None:
        others = quote_siblings(store, BASE, ident)
        found.append(len(others))
        for other in others[:12]:
            record_closure(store, BASE, other)

    closure = best_ms(lambda i: record_closure(store, BASE, i), sample)
    lookup = best_ms(quote, sample)
    client = app.test_client()
    with_table = best_ms(lambda i: client.get(f"/record/{i}"), sample)
    original = RecordPage.quote_view
    RecordPage.quote_view = lambda self: None  # type: ignore[method-assign]
    try:
        without = best_ms(lambda i: client.get(f"/record/{i}"), sample)
    finally:
        RecordPage.quote_view = original  # type: ignore[method-assign]
    return (
        f"| {n:,} | {closure:.2f} | {lookup:.2f} | {lookup / closure:.2f} | "
        f"{sum(found) / len(found):.2f} | {with_table:.2f} | {without:.2f} | "
        f"{with_table / without:.2f} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sizes", nargs="+", type=int)
    parser.add_argument("--work", type=Path, default=Path("/tmp/kg-bench-quote"))
    parser.add_argument("--records", type=int, default=200)
    args = parser.parse_args(argv)
    print(
        "| records | closure ms (baseline) | quote lookup + sibling closures ms | ratio | "
        "siblings found (mean) | page ms with table | page ms without | page ratio |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        print(measure(n, args.work, args.records), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
