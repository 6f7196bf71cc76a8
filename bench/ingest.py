"""Ingest benchmark: kg load against pyoxigraph's own bulk_load of the same quads.

    python bench/ingest.py 1000 10000 [--naive-up-to 1000] [--work /tmp/kg-bench]

For each size N it generates a synthetic corpus (bench/gen.py, seed 1), then measures in
this one command, on this machine:

- floor: pyoxigraph ``Store.bulk_load`` of exactly the quads kg load writes, from one
  N-Quads file, into a fresh on-disk store; and the same followed by ``Store.optimize()``
  (the compaction kg load does before a bulk-written version goes live);
- kg load: ``kg --store <fresh> load <corpus>`` (read, parse, map, validate, write);
- naive: rdflib parsing of that N-Quads file plus pyshacl over the whole graph (only up
  to ``--naive-up-to`` records: it grows fast);
- reload: the same ``kg load`` after changing one record (only that file is validated and
  written).

Wall-clock seconds and peak resident memory (of the process and its children) come from
GNU time. Results print as a Markdown table for bench/README.md.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = "https://claimgraph.example/"


def timed(command: list[str], timeout: float | None = None) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of a command, via GNU time."""
    with tempfile.NamedTemporaryFile("r") as out:
        started = time.perf_counter()
        subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", out.name, *command],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
        )
        seconds = time.perf_counter() - started
        return seconds, int(out.read().split()[-1]) / 1024


def quads_of(corpus: Path, target: Path) -> int:
    """The N-Quads kg load writes for ``corpus`` (the data graphs; made, not timed)."""
    sys.path.insert(0, str(ROOT))
    from kg.model.datafiles import find_data_files
    from kg.model.ingest import ingest

    with target.open("wb") as spool:
        outcomes, problems = ingest(find_data_files([corpus]), BASE, spool=spool)
    assert not problems, problems[:3]
    return sum(o.triples for o in outcomes)


FLOOR = """
import sys, pyoxigraph as ox
store = ox.Store(sys.argv[1])
store.bulk_load(path=sys.argv[2], format=ox.RdfFormat.N_QUADS)
if len(sys.argv) > 3:
    store.optimize()
"""
NAIVE = """
import sys, logging
from rdflib import Dataset, Graph
from pyshacl import validate
sys.path.insert(0, sys.argv[3])
from kg.model.validation import shapes_graph
from kg.rdf.vocabulary import load_terms
logging.disable(logging.WARNING)
data = Dataset()
data.parse(sys.argv[1], format="nquads")
union = Graph()
for quad in data.quads():
    union.add(quad[:3])
union += load_terms().graph
conforms, _, _ = validate(union, shacl_graph=shapes_graph(), inference="none", advanced=True)
print(conforms)
"""


def bench(n: int, work: Path, naive_up_to: int, keep: bool) -> dict[str, object]:
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
    nquads = work / f"quads-{n}.nq"
    # Made once per corpus; later runs reuse it.
    triples = sum(1 for _ in nquads.open("rb")) if nquads.exists() else quads_of(corpus, nquads)
    stores = work / f"stores-{n}"
    shutil.rmtree(stores, ignore_errors=True)
    stores.mkdir()
    floor, floor_mb = timed([sys.executable, "-c", FLOOR, str(stores / "floor"), str(nquads)])
    compacted, _ = timed(
        [sys.executable, "-c", FLOOR, str(stores / "floor-compacted"), str(nquads), "optimize"]
    )
    shutil.rmtree(stores / "floor", ignore_errors=True)
    shutil.rmtree(stores / "floor-compacted", ignore_errors=True)
    load, load_mb = timed(
        [sys.executable, "-m", "kg.cli", "--store", str(stores / "kg"), "load", str(corpus)]
    )
    naive = naive_mb = None
    if n <= naive_up_to:
        naive, naive_mb = timed([sys.executable, "-c", NAIVE, str(nquads), "x", str(ROOT)])
    record = corpus / "records" / "synthetic-record-000001.yaml"
    original = record.read_text()
    record.write_text(original.replace("hardware: Synthetic GPU", "hardware: Synthetic GPU 2"))
    try:
        reload, _ = timed(
            [sys.executable, "-m", "kg.cli", "--store", str(stores / "kg"), "load", str(corpus)]
        )
    finally:
        record.write_text(original)
    if not keep:
        shutil.rmtree(stores, ignore_errors=True)
    return {
        "n": n,
        "files": sum(1 for _ in corpus.rglob("*.yaml")),
        "quads": triples,
        "floor": floor,
        "floor_mb": floor_mb,
        "compacted": compacted,
        "load": load,
        "load_mb": load_mb,
        "naive": naive,
        "naive_mb": naive_mb,
        "reload": reload,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="+", type=int)
    parser.add_argument("--naive-up-to", type=int, default=1000)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kg-bench")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the store kg load made (WORK/stores-N/kg), for bench/serve.py",
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print(
        "| records | files | quads | floor s | kg load s | ratio | floor + optimize s "
        "| ratio to it | naive s | naive/floor | kg load peak MB | floor peak MB "
        "| reload one record s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        r = bench(n, args.work, args.naive_up_to, args.keep)
        naive = (
            f"{r['naive']:.1f} | {r['naive'] / r['floor']:.1f}"
            if r["naive"] is not None
            else "not run | —"
        )
        print(
            f"| {n:,} | {r['files']:,} | {r['quads']:,} | {r['floor']:.1f} | {r['load']:.1f} "
            f"| {r['load'] / r['floor']:.2f} | {r['compacted']:.1f} "
            f"| {r['load'] / r['compacted']:.2f} | {naive} | {r['load_mb']:,.0f} "
            f"| {r['floor_mb']:,.0f} | {r['reload']:.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
