"""Term benchmark: writing a file's N-Quads, through ``ox.Quad`` objects or as lines.

    python bench/terms.py 300 3000 [--work /tmp/kg-bench-terms]

For each size N it generates a corpus of N records (bench/gen.py, seed 1), maps every
file once, then times in this one process, best of three:

- baseline: ``ox.serialize`` of ``ox.Quad`` objects built by ``kg.rdf.terms.to_quads``
  (how ingest wrote a file's N-Quads before);
- lines: ``kg.rdf.terms.nquads`` (each term written by pyoxigraph, no ``Quad`` built),
  which must give the same bytes (checked here too).

Results print as a Markdown table for bench/README.md, in µs per triple.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import pyoxigraph as ox

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import best  # noqa: E402
from kg.model.validation import map_paths  # noqa: E402
from kg.rdf.terms import nquads, to_quads  # noqa: E402

BASE = "https://claimgraph.example/"


def bench(n: int, work: Path) -> dict[str, float]:
    corpus = work / f"corpus-{n}"
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
            stderr=subprocess.DEVNULL,
        )
    files = [(m.triples, str(m.graph)) for m in map_paths([corpus], BASE)]
    triples = sum(len(t) for t, _ in files)
    for t, graph in files:
        assert nquads(t, graph)[0] == ox.serialize(
            list(to_quads(t, graph)), format=ox.RdfFormat.N_QUADS
        )

    def baseline() -> None:
        for t, graph in files:
            ox.serialize(list(to_quads(t, graph)), format=ox.RdfFormat.N_QUADS)

    def lines() -> None:
        for t, graph in files:
            nquads(t, graph)

    return {
        "files": len(files),
        "triples": triples,
        "baseline": best(3, baseline) / triples * 1e6,
        "lines": best(3, lines) / triples * 1e6,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="+", type=int)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kg-bench-terms")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print(
        "| records | files | triples | Quad + serialize µs / triple | lines µs / triple | ratio |"
    )
    print("|---|---|---|---|---|---|")
    for n in args.sizes:
        r = bench(n, args.work)
        print(
            f"| {n:,} | {r['files']:,} | {r['triples']:,} | {r['baseline']:.2f} "
            f"| {r['lines']:.2f} | {r['baseline'] / r['lines']:.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
