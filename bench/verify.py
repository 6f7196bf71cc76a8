"""Verification benchmark: pages per second of kg verify's text extraction and checks,
against plain pypdf text extraction of the same pages, in the same command.

    python bench/verify.py 50 200 1000 [--repeat 5] [--work /tmp/kg-bench-verify]

For each size N it makes a synthetic N-page PDF (bench/pdfgen.py; the seed's sentence on
page 3N/4) and measures, best of ``--repeat`` runs taking turns:

- baseline: ``PdfReader(path)`` and ``page.extract_text()`` of every page (plain pypdf);
- extraction: the same pages through kg.verify.pdfread (opening, warnings collected, text cached);
- matching: kg.verify.pdftext's normalization and quote search over the already extracted text;
- checks, worst case: kg.verify.checks.run_checks for a record whose quote holds another value
  than the page (11.94 for 11.49), so the exact quote is searched on every page (hash,
  extraction, normalization and matching of all N pages);
- checks, usual case: run_checks with the locator naming the sentence's page (one page
  extracted), in milliseconds per record.

Results print as a Markdown table for bench/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pdfgen import SENTENCE, make_pdf, paragraph  # noqa: E402
from kg.verify.checks import Target, run_checks  # noqa: E402
from kg.verify.pdfread import open_pdf  # noqa: E402
from kg.verify.pdftext import QuoteFinder  # noqa: E402


def best(repeat: int, work: dict[str, Callable[[], object]]) -> dict[str, float]:
    """The fastest of ``repeat`` runs of each, in seconds; the runs of the different kinds
    take turns, so the machine's noise (it is shared) hits them alike."""
    times: dict[str, list[float]] = {name: [] for name in work}
    for _ in range(repeat):
        for name, run in work.items():
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    return {name: min(values) for name, values in times.items()}


def baseline(path: Path) -> None:
    from pypdf import PdfReader

    reader = PdfReader(path)
    for page in reader.pages:
        page.extract_text()


def extraction(path: Path) -> list[str]:
    pdf = open_pdf(path)
    return [pdf.text(n) for n in range(1, pdf.page_count + 1)]


def measure(pages: int, repeat: int, work_dir: Path) -> dict[str, float]:
    path = make_pdf(work_dir / f"paper-{pages}.pdf", pages, {3 * pages // 4: paragraph()})
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    texts = extraction(path)
    finder = QuoteFinder(SENTENCE, "11.49")
    other = SENTENCE.replace("11.49", "11.94")
    target = Target("bench-record", "bench-source", "11.94", 1, other, sha)
    usual = Target("bench-record", "bench-source", "11.49", 3 * pages // 4, SENTENCE, sha)
    worst = run_checks(target, path)
    assert [c.outcome for c in worst.checks] == ["passed", "passed", "failed", "failed"]
    assert {c.outcome for c in run_checks(usual, path).checks} == {"passed"}
    return {
        **best(
            repeat,
            {
                "baseline": lambda: baseline(path),
                "extraction": lambda: extraction(path),
                "matching": lambda: [finder.find(t, n) for n, t in enumerate(texts, 1)],
                "worst": lambda: run_checks(target, path),
                "usual": lambda: run_checks(usual, path),
            },
        ),
        "bytes": path.stat().st_size,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="+", type=int, help="page counts")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--work", type=Path, help="where the PDFs go (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kg-bench-verify-") as scratch:
        work = args.work or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        print(
            "| pages | PDF size | pypdf extract_text (baseline) | kg extraction | ratio "
            "| matching alone | checks, quote searched on every page | ratio "
            "| checks, quote on the locator's page |"
        )
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n in args.sizes:
            m = measure(n, args.repeat, work)
            rate = {k: n / m[k] for k in ("baseline", "extraction", "matching", "worst")}
            print(
                f"| {n} | {m['bytes'] / 1e3:,.0f} kB | {rate['baseline']:,.0f} pages/s "
                f"| {rate['extraction']:,.0f} pages/s "
                f"| {m['extraction'] / m['baseline']:.2f}x "
                f"| {rate['matching']:,.0f} pages/s | {rate['worst']:,.0f} pages/s "
                f"| {m['worst'] / m['baseline']:.2f}x | {m['usual'] * 1e3:,.0f} ms |",
                flush=True,
            )


if __name__ == "__main__":
    main()
