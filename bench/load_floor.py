"""`kg load` of a data folder against its floor, its peak memory, and a one-file reload.

    python bench/load_floor.py DATA --quads-from STORE --work DIR [--keep]
    python bench/load_floor.py DATA --quads FILE --work DIR [--keep]

For a data folder that `kg import` filled (the 35k real snapshot, `bench/gen.py --shape
real` corpora of any size), measured in this one command, one step after the other:

- the quads: every quad of ``STORE``'s live version (the store ``kg import`` loaded from
  this folder: exactly what ``kg load`` writes), dumped once to ``DIR/quads.nq``, not timed
  (or ``FILE``, such a dump made before: at a million results the dump, the store it came
  from and the store ``kg load`` makes do not fit a disk of 80 GB together);
- the floor: pyoxigraph's ``bulk_load`` of that file into a fresh store on disk, then
  ``optimize()`` (what ``kg load`` does before a bulk-written version goes live), in a
  fresh process; the file is deleted afterwards, so the disk holds one store at a time;
- ``kg load``: ``kg --data DATA --store DIR/kg load`` into a fresh store (read, map,
  validate, write the version, its graph copies and its index);
- a reload: one source's title changed, ``kg load`` again (only that file is validated;
  the index rows of the records quoting the source are read again), then put back.

Seconds and peak resident memory (the largest of the process and its children) come from
GNU time. One Markdown row prints for bench/README.md.
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
sys.path.insert(0, str(ROOT))

from bench.million import pss_mb  # noqa: E402 (the PSS of a process tree, one way)

FLOOR = """
import sys, pyoxigraph as ox
store = ox.Store(sys.argv[1])
store.bulk_load(path=sys.argv[2], format=ox.RdfFormat.N_QUADS)
store.optimize()
"""


def timed(command: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS of its largest process in MB via GNU time, peak PSS of all
    its processes together in MB, sampled every half second) of a command; its output
    goes to ours."""
    with tempfile.NamedTemporaryFile("r") as out:
        started = time.perf_counter()
        process = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", out.name, *command])
        together = 0.0
        while process.poll() is None:
            together = max(together, pss_mb(process.pid))
            time.sleep(0.5)
        if process.returncode:
            raise SystemExit(f"{' '.join(command)}: exit status {process.returncode}")
        seconds = time.perf_counter() - started
        return seconds, int(out.read().split()[-1]) / 1024, together


def dump_quads(store: Path, target: Path) -> int:
    """Every quad of ``store``'s live version into ``target`` (N-Quads); how many."""
    import pyoxigraph as ox

    live = store / "live"
    if not live.is_dir():
        raise SystemExit(f"{store}: no live version (a claimgraph store folder?)")
    source = ox.Store.read_only(str(live.resolve()))
    source.dump(output=str(target), format=ox.RdfFormat.N_QUADS)
    with target.open("rb") as lines:
        return sum(1 for _ in lines)


def kg(data: Path, store: Path, *args: str) -> tuple[float, float, float]:
    return timed(
        [sys.executable, "-m", "kg.cli", "--data", str(data), "--store", str(store), *args]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="the data folder (kg import's --data)")
    given = parser.add_mutually_exclusive_group(required=True)
    given.add_argument("--quads-from", type=Path, help="the store kg import filled")
    given.add_argument("--quads", type=Path, help="its quads, dumped before (deleted here)")
    parser.add_argument("--work", type=Path, required=True, help="a folder for the stores made")
    parser.add_argument(
        "--source", help="the file under DATA/sources/ whose title the reload changes (the first)"
    )
    parser.add_argument("--keep", action="store_true", help="keep WORK/kg for bench/million.py")
    parser.add_argument(
        "--no-back", action="store_true", help="leave the store with the source renamed"
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.quads is not None:
        quads = args.quads
        with quads.open("rb") as lines:
            count = sum(1 for _ in lines)
    else:
        quads = args.work / "quads.nq"
        started = time.perf_counter()
        count = dump_quads(args.quads_from, quads)
        print(f"dumped {count:,} quads in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    floor_store, store = args.work / "floor", args.work / "kg"
    shutil.rmtree(floor_store, ignore_errors=True)
    floor, floor_mb, _ = timed([sys.executable, "-c", FLOOR, str(floor_store), str(quads)])
    shutil.rmtree(floor_store, ignore_errors=True)
    quads.unlink()
    print(f"floor {floor:.1f} s, {floor_mb:,.0f} MB", file=sys.stderr)
    shutil.rmtree(store, ignore_errors=True)
    load, load_mb, load_pss = kg(args.data, store, "load")
    print(f"kg load {load:.1f} s, {load_mb:,.0f} MB, {load_pss:,.0f} MB", file=sys.stderr)
    sources = sorted((args.data / "sources").glob("*.yaml"))
    source = args.data / "sources" / args.source if args.source else sources[0]
    original = source.read_text(encoding="utf-8")
    lines = original.splitlines(keepends=True)
    changed = "".join(
        f"{line.rstrip()} (renamed)\n" if line.startswith("title:") else line for line in lines
    )
    if changed == original:
        raise SystemExit(f"{source}: no title: line to change for the reload")
    source.write_text(changed, encoding="utf-8")
    try:
        reload, reload_mb, _ = kg(args.data, store, "load")
    finally:
        source.write_text(original, encoding="utf-8")
    back = kg(args.data, store, "load")[0] if not args.no_back else float("nan")
    if not args.keep:
        shutil.rmtree(store, ignore_errors=True)
    print(
        "| quads | floor + optimize s | floor peak MB | kg load s | ratio | kg load peak MB "
        "| all its processes MB | reload one source s | its peak MB | and back s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {count:,} | {floor:.1f} | {floor_mb:,.0f} | {load:.1f} | {load / floor:.2f} "
        f"| {load_mb:,.0f} | {load_pss:,.0f} | {reload:.2f} | {reload_mb:,.0f} | {back:.2f} |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
