"""What the text copies of the graphs (kg/store/copies.py) give a record's page and cost a
write (issue 25): a record's graph read from the store against the same graph read from
its copy, in one process; what making a copy costs; and the write path the copies need
(the store keeping blank-node labels) against the bulk loader's own.

    python bench/graph_copies.py /work/benchdata/store-100000/kg [--graphs 1000] [--rounds 3]
    python bench/graph_copies.py STORE --writes 20000   # and the write path, 20k records

From the live version of STORE (only read), ``--graphs`` record graphs per round and way,
each read for the first time in this process, the two ways taking turns on disjoint
batches, the least of ``--rounds`` rounds:

- **store**: ``EmbeddedStore.quads`` of the graph on a read-only handle;
- **copy**: ``CopyReader.graph``, what a record's page reads (``graph_quads``).

A version written before copies has none: the copies of the graphs read are then made
first, with the product's ``CopyWriter``, into a copy of the version's directory layout
in a temporary directory. Either way the making is timed on the graphs read, and each
copy is checked to give exactly the store's quads.

``--writes N`` also writes the quads of N record graphs, as an N-Quads file, into fresh
stores both ways, taking turns, the least of ``--rounds``: ``bulk_load`` of the file
(which renames blank nodes) and ``bulk_extend`` of the file parsed in Python (which keeps
them, what the store now does), each then compacted as a load does.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyoxigraph as ox  # noqa: E402

from bench.serve import live_or_exit  # noqa: E402
from kg.store.copies import CopyReader, CopyWriter, map_path  # noqa: E402
from kg.store.embedded import EmbeddedStore  # noqa: E402

RECORDS = "SELECT ?r WHERE { GRAPH ?r { ?r a <https://w3id.org/claimgraph/ns#Claim> } }"
NQUADS = ox.RdfFormat.N_QUADS


def timed_reads(read, graphs: list[str]) -> tuple[float, int]:
    started, quads = time.process_time(), 0
    for graph in graphs:
        quads += len(list(read(graph)))
    return time.process_time() - started, quads


def made_copies(
    store_dir: Path, live: Path, graphs: list[str], work: Path
) -> tuple[Path, Path, float]:
    """Copies of ``graphs`` made by CopyWriter beside a stand-in of ``live`` under
    ``work``; the stand-in's root and version, and the CPU ms a copy took."""
    root, version = work / "store", work / "store" / live.name
    version.mkdir(parents=True)
    with EmbeddedStore(store_dir, read_only=True) as store:
        read = {graph: list(store.quads([graph])) for graph in graphs}
    writer = CopyWriter(root, None)
    started = time.process_time()
    for graph, quads in read.items():
        writer.dropped([graph])
        for _ in writer.passing(quads, lambda name: False):
            pass
    writer.finish(version)
    return root, version, (time.process_time() - started) / len(graphs) * 1000


def reads(args: argparse.Namespace, live: Path) -> None:
    with EmbeddedStore(args.store, read_only=True) as store:
        records = [row["r"].value for row in store.query(RECORDS)]
    need = 2 * args.graphs * args.rounds
    if len(records) < need:
        raise SystemExit(f"{len(records)} records: fewer than the {need} the rounds read")
    chosen = random.Random(1).sample(records, need)
    with tempfile.TemporaryDirectory(prefix="kg-graph-copies-") as work:
        root, version, make_ms = made_copies(args.store, live, chosen, Path(work))
        kept = "made here"
        if map_path(live).exists():
            root, version, kept = args.store, live, "the store's own"
        with EmbeddedStore(args.store, read_only=True) as store:
            copies = CopyReader(root, version)
            for graph in chosen[:50]:  # a copy gives the graph back
                assert sorted(map(str, copies.graph(graph) or [])) == sorted(
                    map(str, store.quads([graph]))
                ), graph
        # fresh handles: no graph of the rounds was read through them yet
        store, copies = EmbeddedStore(args.store, read_only=True), CopyReader(root, version)
        best = {"store": float("inf"), "copy": float("inf")}
        quads = 0
        batches = iter(chosen[i : i + args.graphs] for i in range(0, need, args.graphs))
        for _ in range(args.rounds):
            seconds, quads = timed_reads(lambda g: store.quads([g]), next(batches))
            best["store"] = min(best["store"], seconds)
            seconds, _ = timed_reads(copies.graph, next(batches))
            best["copy"] = min(best["copy"], seconds)
        store.close()
        size = (root / "copies.sqlite").stat().st_size
    per = {way: best[way] / args.graphs * 1000 for way in best}
    print(
        f"{len(records):,} records; {quads / args.graphs:.0f} quads a graph; copies "
        f"{kept}; making one took {make_ms:.3f} ms"
        + (f" ({size / len(chosen) / 1024:.1f} KiB)" if kept == "made here" else "")
    )
    print("| read | records | CPU ms / graph | ratio to the store |")
    print("|---|---|---|---|")
    for way in ("store", "copy"):
        print(f"| {way} | {len(records):,} | {per[way]:.3f} | {per[way] / per['store']:.2f} |")


def writes(args: argparse.Namespace) -> None:
    with EmbeddedStore(args.store, read_only=True) as store:
        records = [row["r"].value for row in store.query(RECORDS)][: args.writes]
        with tempfile.TemporaryDirectory(prefix="kg-graph-writes-") as work:
            nquads = Path(work) / "records.nq"
            with nquads.open("wb") as out:
                for graph in records:
                    out.write(ox.serialize(store.quads([graph]), format=NQUADS))
            best = {"bulk_load": float("inf"), "bulk_extend(parse)": float("inf")}
            for _ in range(args.rounds):
                for way in best:
                    target = Path(work) / "target"
                    started = time.perf_counter()
                    fresh = ox.Store(str(target))
                    if way == "bulk_load":
                        fresh.bulk_load(path=str(nquads), format=NQUADS)
                    else:
                        fresh.bulk_extend(ox.parse(path=str(nquads), format=NQUADS))
                    fresh.optimize()
                    fresh.flush()
                    del fresh
                    best[way] = min(best[way], time.perf_counter() - started)
                    shutil.rmtree(target)
    print(f"\n{len(records):,} record graphs written into a fresh store, wall-clock s:")
    print("| write | s | ratio to bulk_load |")
    print("|---|---|---|")
    for way, seconds in best.items():
        print(f"| {way} | {seconds:.2f} | {seconds / best['bulk_load']:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="a store directory made by kg load")
    parser.add_argument("--graphs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--writes", type=int, default=0, help="also time the write path on this many record graphs"
    )
    args = parser.parse_args()
    live = live_or_exit(args.store)
    reads(args, live)
    if args.writes:
        writes(args)


if __name__ == "__main__":
    main()
