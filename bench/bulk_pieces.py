"""The bulk loader's peak memory and time by how many quads it is given a call.

    python bench/bulk_pieces.py QUADS.nq [--pieces 0 1000000 250000] [--work DIR]

For each size (0: the whole file in one call), in a fresh process: ``Store.bulk_extend``
of the file's quads into a new store on disk, that many at a time, then ``optimize()``;
the process's peak resident memory. ``kg.rdf.terms.bulk_extend`` gives the loader
:data:`~kg.rdf.terms.BULK_PIECE` quads a call. A dump of a loaded store makes the file:
``python -c "import pyoxigraph as ox; ox.Store.read_only('STORE/live').dump(output='q.nq',
format=ox.RdfFormat.N_QUADS)"``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ONE = """
import itertools, resource, sys, time
import pyoxigraph as ox
path, target, piece = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = ox.Store(target)
quads = ox.parse(path=path, format=ox.RdfFormat.N_QUADS)
started = time.perf_counter()
if piece == 0:
    store.bulk_extend(quads)
else:
    for first in quads:
        store.bulk_extend(itertools.chain([first], itertools.islice(quads, piece - 1)))
loaded = time.perf_counter() - started
store.optimize()
done = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{loaded:.1f} {done:.1f} {peak:.0f}")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("quads", type=Path)
    parser.add_argument("--pieces", type=int, nargs="+", default=[0, 1_000_000, 250_000])
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kg-bulk")
    args = parser.parse_args()
    print("| quads a call | bulk load s | and optimize s | peak MB |")
    print("|---|---|---|---|")
    for piece in args.pieces:
        target = args.work / f"store-{piece}"
        shutil.rmtree(target, ignore_errors=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        found = subprocess.run(
            [sys.executable, "-c", ONE, str(args.quads), str(target), str(piece)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        shutil.rmtree(target, ignore_errors=True)
        shown = "all" if piece == 0 else f"{piece:,}"
        print(f"| {shown} | {found[0]} | {found[1]} | {int(found[2]):,} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
