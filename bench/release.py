"""Release benchmark: kg release against pyoxigraph's own Store.dump of the same store.

    python bench/release.py 1000 10000 100000 [--ready /work/benchdata] [--work DIR]

For each size N it takes a loaded store (copies, ``cp -a``, of ``<ready>/store-N`` and its
corpus ``<ready>/corpus-N``, the store's manifest pointed at the copy; otherwise it
generates a corpus with bench/gen.py and loads it), then measures in this one command,
each in a fresh process:

- baseline: pyoxigraph ``Store.dump`` of the store's live version to N-Quads;
- first release: ``kg release`` into an empty archive (every graph mapped again from its
  file and hashed, kept once, the dump written, the release's store checkpointed, the
  release node validated and indexed);
- again: ``kg release`` with nothing changed (prints the existing id);
- one changed: ``kg release`` after one record was changed and loaded (one graph mapped);
  (a record is changed and loaded before the first release too, so that the store is in the
  state a curator releases whatever shapes the ready-made copy was loaded with);
- diff: ``kg diff`` of the two releases;
- store from dump: the release store built by bulk-loading the dump (what a store that
  cannot checkpoint itself, a remote one, costs instead of the checkpoint).

Wall-clock seconds and peak resident memory come from GNU time. Results print as a
Markdown table for bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import ROOT, timed  # the same timing as the ingest benchmark

KG = [sys.executable, "-m", "kg.cli"]
DUMP = """
import sys, pyoxigraph as ox
sys.path.insert(0, sys.argv[3])
from kg.store.embedded import live_version
from pathlib import Path
store = ox.Store.read_only(str(live_version(Path(sys.argv[1]))))
store.dump(sys.argv[2], format=ox.RdfFormat.N_QUADS)
"""
FROM_DUMP = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from kg.release.build import build_release_store
folder = Path(sys.argv[1])
graphs = list(json.loads((folder / "manifest.json").read_text())["graphs"])
build_release_store(Path(sys.argv[2]), folder / "dump.nq.gz", graphs)
"""


def kg(store: Path, *args: str) -> str:
    done = subprocess.run(
        [*KG, "--store", str(store), *args], check=True, capture_output=True, text=True, cwd=ROOT
    )
    return done.stdout.strip()


def disk_mb(*paths: Path) -> float:
    """Disk used by ``paths`` together (a file hard-linked from two of them counts once)."""
    out = subprocess.run(
        ["du", "-skc", *map(str, paths)], check=True, capture_output=True, text=True
    ).stdout
    return int(out.splitlines()[-1].split()[0]) / 1024


def prepare(n: int, work: Path, ready: Path | None) -> tuple[Path, Path]:
    """A loaded store of N records and its corpus, both private copies."""
    store, corpus = work / f"store-{n}", work / f"corpus-{n}"
    shutil.rmtree(store, ignore_errors=True)
    shutil.rmtree(Path(f"{store}-archive"), ignore_errors=True)
    if ready is not None and (ready / f"store-{n}").is_dir():
        shutil.rmtree(corpus, ignore_errors=True)
        subprocess.run(["cp", "-a", str(ready / f"store-{n}"), str(store)], check=True)
        subprocess.run(["cp", "-a", str(ready / f"corpus-{n}"), str(corpus)], check=True)
        relocate(store, ready / f"corpus-{n}", corpus)
        return store, corpus
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
    kg(store, "load", str(corpus))
    return store, corpus


def relocate(store: Path, old: Path, new: Path) -> None:
    """Point a copied store's load manifest at the copied corpus (``cp -a`` kept sizes and
    times, so kg load sees every file as loaded): a record can then be changed in place."""
    import sqlite3

    version = (store / "live").resolve()
    legacy = version.with_name(version.name + ".manifest.json")
    if legacy.exists():
        legacy.write_text(
            legacy.read_text().replace(json.dumps(str(old))[1:-1], json.dumps(str(new))[1:-1])
        )
    current = version.with_name(version.name + ".manifest.sqlite")
    if current.exists():
        with sqlite3.connect(current) as db:
            db.execute(
                "UPDATE manifest SET file = ? || substr(file, ?)", (str(new), len(str(old)) + 1)
            )


def bench(n: int, work: Path, ready: Path | None) -> dict[str, float]:
    store, corpus = prepare(n, work, ready)
    archive = Path(f"{store}-archive")
    dump = work / f"dump-{n}.nq"
    baseline, baseline_mb = timed([sys.executable, "-c", DUMP, str(store), str(dump), str(ROOT)])
    quads = sum(1 for _ in dump.open("rb"))
    dump.unlink()

    # A record changed and loaded before each release: the store is then in the state a
    # curator releases, whatever shapes the ready-made copy was loaded with.
    changed = corpus / "records" / "synthetic-record-000001.yaml"
    original = changed.read_text()
    release = [*KG, "--store", str(store), "release"]
    changed.write_text(original.replace("hardware: Synthetic GPU", "hardware: Synthetic GPU A"))
    kg(store, "load", str(changed))
    first, first_mb = timed([*release, "--date", "2026-12-01"])
    again, _ = timed([*release, "--date", "2026-12-01"])
    changed.write_text(original.replace("hardware: Synthetic GPU", "hardware: Synthetic GPU B"))
    kg(store, "load", str(changed))
    one, _ = timed([*release, "--date", "2026-12-02"])
    ids = kg(store, "releases").split("\n")
    old, new = (line.split()[0] for line in ids)
    diff, _ = timed([*KG, "--store", str(store), "diff", old, new])
    lines = kg(store, "diff", old, new).splitlines()
    assert lines[0].startswith("changed record synthetic-record-000001"), lines[:3]

    folder = archive / "releases" / old
    graphs = len(json.loads((folder / "manifest.json").read_text())["graphs"])
    with tempfile.TemporaryDirectory(dir=work) as scratch:
        from_dump, from_dump_mb = timed(
            [sys.executable, "-c", FROM_DUMP, str(folder), str(Path(scratch) / "store"), str(ROOT)]
        )
    result = {
        "n": n,
        "graphs": graphs,
        "quads": quads,
        "baseline": baseline,
        "baseline_mb": baseline_mb,
        "first": first,
        "first_mb": first_mb,
        "again": again,
        "one": one,
        "diff": diff,
        "from_dump": from_dump,
        "from_dump_mb": from_dump_mb,
        "dump_mb": (folder / "dump.nq.gz").stat().st_size / 2**20,
        "objects_mb": (archive / "objects.sqlite").stat().st_size / 2**20,
        "archive_mb": disk_mb(store, archive) - disk_mb(store),
    }
    shutil.rmtree(archive, ignore_errors=True)
    shutil.rmtree(store, ignore_errors=True)
    changed.write_text(original)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="+", type=int)
    parser.add_argument(
        "--ready",
        type=Path,
        help="a directory with store-N and corpus-N already loaded (copied, never written)",
    )
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "kg-bench-release"
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print(
        "| records | graphs | quads | Store.dump s | first release s | ratio | peak MB "
        "(dump / release) | again s | one changed s | kg diff s | store from dump s "
        "| dump MB | objects MB | archive on disk MB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        r = bench(n, args.work, args.ready)
        print(
            f"| {n:,} | {r['graphs']:,} | {r['quads']:,} | {r['baseline']:.1f} "
            f"| {r['first']:.1f} | {r['first'] / r['baseline']:.2f} "
            f"| {r['baseline_mb']:,.0f} / {r['first_mb']:,.0f} | {r['again']:.2f} "
            f"| {r['one']:.2f} | {r['diff']:.2f} | {r['from_dump']:.1f} "
            f"| {r['dump_mb']:,.1f} | {r['objects_mb']:,.1f} | {r['archive_mb']:,.1f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
