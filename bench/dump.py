"""Dump benchmark: kg export --all against pyoxigraph's own Store.dump of the same store.

    python bench/dump.py 10000 100000 [--stores DIR] [--work DIR] [--repeat K]

For each size N it takes a loaded store (``<stores>/store-N`` when ``--stores`` has one;
otherwise it generates a corpus with bench/gen.py N --seed 1 and loads it with kg load),
then measures in this one command, each run in a fresh process:

- Store.dump: pyoxigraph's ``Store.dump`` of the whole store (the live version, opened
  read-only) to N-Quads and to JSON-LD: the floor, no Python object per quad;
- kg export: ``kg --store <store> export --all --format nquads|jsonld -o <dir>`` (streamed
  from ``GraphStore.quads()``, hashed for the manifest as it is written), and the gzipped
  N-Quads dump the browser serves.

Wall-clock seconds and peak resident memory (of the process and its children) come from
GNU time; with ``--repeat K`` each pair runs K times, taking turns, and the fastest run
of each counts (peak memory: the largest). Results print as a Markdown table for
bench/README.md.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ingest import timed  # bench/ingest.py: wall seconds and peak RSS via GNU time

ROOT = Path(__file__).resolve().parent.parent

STORE_DUMP = """
import sys, pyoxigraph as ox
fmt = {"nquads": ox.RdfFormat.N_QUADS, "jsonld": ox.RdfFormat.JSON_LD}[sys.argv[3]]
ox.Store.read_only(sys.argv[1]).dump(sys.argv[2], format=fmt)
"""


def store_for(n: int, stores: Path | None, work: Path) -> Path:
    """A loaded store of N generated records: the ready one, or one made here."""
    if stores is not None and (stores / f"store-{n}" / "live").exists():
        return stores / f"store-{n}"
    corpus, store = work / f"corpus-{n}", work / f"store-{n}"
    if not (store / "live").exists():
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
            stdout=subprocess.DEVNULL,
        )
        subprocess.run(
            [sys.executable, "-m", "kg.cli", "--store", str(store), "load", str(corpus)],
            check=True,
            cwd=ROOT,
            stderr=subprocess.DEVNULL,
        )
    return store


def count_quads(store: Path) -> int:
    code = "import sys, pyoxigraph as ox; print(len(ox.Store.read_only(sys.argv[1])))"
    out = subprocess.run(
        [sys.executable, "-c", code, str(store / "live")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return int(out)


def measure(n: int, store: Path, out: Path, repeat: int) -> list[dict]:
    """Each pair ``repeat`` times, the two runs taking turns; the fastest run of each counts
    (the machine is shared: the minimum is the run least disturbed)."""
    rows = []
    quads = count_quads(store)
    for fmt, suffix, packed in (
        ("nquads", "nq", False),
        ("jsonld", "jsonld", False),
        ("nquads", "nq", True),
    ):
        runs: dict[str, list[tuple[float, float]]] = {"floor": [], "kg": []}
        for _ in range(repeat):
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            runs["floor"].append(
                timed(
                    [
                        sys.executable,
                        "-c",
                        STORE_DUMP,
                        str(store / "live"),
                        str(out / f"floor.{suffix}"),
                        fmt,
                    ]
                )
            )
            floor_size = (out / f"floor.{suffix}").stat().st_size
            (out / f"floor.{suffix}").unlink()
            command = [
                sys.executable,
                "-m",
                "kg.cli",
                "--store",
                str(store),
                "export",
                "--all",
                "--format",
                fmt,
                "-o",
                str(out),
            ] + (["--gzip"] if packed else [])
            runs["kg"].append(timed(command))
            name = f"claimgraph.{suffix}" + (".gz" if packed else "")
            size = (out / name).stat().st_size
            print(n, fmt, packed, runs["floor"][-1], runs["kg"][-1], file=sys.stderr, flush=True)
        rows.append(
            {
                "n": n,
                "quads": quads,
                "format": fmt + (" --gzip" if packed else ""),
                "floor_s": min(s for s, _ in runs["floor"]),
                "kg_s": min(s for s, _ in runs["kg"]),
                "floor_mb": max(m for _, m in runs["floor"]),
                "kg_mb": max(m for _, m in runs["kg"]),
                "floor_size": floor_size,
                "size": size,
            }
        )
    shutil.rmtree(out, ignore_errors=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="+", type=int, help="numbers of records")
    parser.add_argument(
        "--stores", type=Path, help="a folder with ready stores named store-N (else made here)"
    )
    parser.add_argument("--work", type=Path, help="where to put corpora, stores and dumps")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs of each measurement; the fastest counts (default 1)",
    )
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="kg-dump-bench-"))
    rows = []
    for n in args.sizes:
        rows += measure(n, store_for(n, args.stores, work), work / "out", args.repeat)
    print(
        "| records | quads | format | Store.dump s | kg export s | ratio | Store.dump peak MB "
        "| kg export peak MB | Store.dump file MB | kg file MB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['n']:,} | {r['quads']:,} | {r['format']} | {r['floor_s']:.1f} "
            f"| {r['kg_s']:.1f} | {r['kg_s'] / r['floor_s']:.2f} | {r['floor_mb']:,.0f} "
            f"| {r['kg_mb']:,.0f} | {r['floor_size'] / 1e6:,.0f} | {r['size'] / 1e6:,.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
