"""What a text copy of each record's graph would save a record page (issue 25): a graph
read from the store against the same graph read from a zlib N-Quads copy in SQLite, in
one process, and what making the copies costs.

    python bench/graph_copies.py /work/benchdata/store-100000/kg [--graphs 1000] [--rounds 3]

Not a feature: the measure behind the proposal of a second copy of the record graphs
(bench/README.md, "Reading a query's text, and the floor of any answer"). From the live
version of STORE (only read), ``--graphs`` record graphs per round and way, each read for
the first time in this process:

- **store**: ``quads_for_pattern`` of the graph on a read-only handle, as a page reads it;
- **copy**: the graph's row of a SQLite table (graph IRI -> zlib of its N-Quads, level 1),
  decompressed and parsed by pyoxigraph.

The copies of all graphs a run reads are made first (timed: serializing, compressing and
inserting them, what a write would add), into a temporary file. The two ways take turns on
disjoint batches, the least of ``--rounds`` rounds. Each copy read is checked to give the
graph's quads (blank nodes by label).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyoxigraph as ox  # noqa: E402

from bench.serve import live_or_exit  # noqa: E402

RECORDS = ("SELECT ?r WHERE { GRAPH ?r { ?r a <https://w3id.org/claimgraph/ns#Claim> } }")
NQUADS = ox.RdfFormat.N_QUADS


def from_store(store: ox.Store, graphs: list[str]) -> tuple[float, int]:
    started, quads = time.process_time(), 0
    for graph in graphs:
        quads += len(list(store.quads_for_pattern(None, None, None, ox.NamedNode(graph))))
    return time.process_time() - started, quads


def from_copies(db: sqlite3.Connection, graphs: list[str]) -> tuple[float, int]:
    started, quads = time.process_time(), 0
    for graph in graphs:
        (body,) = db.execute("SELECT body FROM copies WHERE graph = ?", (graph,)).fetchone()
        quads += len(list(ox.parse(zlib.decompress(body), format=NQUADS)))
    return time.process_time() - started, quads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="a store directory made by kg load")
    parser.add_argument("--graphs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    live = live_or_exit(args.store)
    store = ox.Store.read_only(str(live))
    records = [row["r"].value for row in store.query(RECORDS)]
    need = 2 * args.graphs * args.rounds
    if len(records) < need:
        raise SystemExit(f"{len(records)} records: fewer than the {need} the rounds read")
    chosen = random.Random(1).sample(records, need)

    with tempfile.TemporaryDirectory(prefix="kg-graph-copies-") as work:
        db = sqlite3.connect(Path(work) / "copies.sqlite")
        db.execute("CREATE TABLE copies (graph TEXT PRIMARY KEY, body BLOB)")
        # what a write would add: the quads it holds anyway, serialized and compressed
        read = {graph: list(store.quads_for_pattern(None, None, None, ox.NamedNode(graph)))
                for graph in chosen}
        started, size = time.process_time(), 0
        for graph, quads in read.items():
            body = zlib.compress(ox.serialize(quads, format=NQUADS), 1)
            size += len(body)
            db.execute("INSERT INTO copies VALUES (?, ?)", (graph, body))
        db.commit()
        write_ms = (time.process_time() - started) / len(read) * 1000
        for graph in chosen[:50]:  # a copy gives the graph back
            (body,) = db.execute("SELECT body FROM copies WHERE graph = ?",
                                 (graph,)).fetchone()
            assert set(ox.parse(zlib.decompress(body), format=NQUADS)) == set(read[graph])
        del read
        # a fresh handle: no graph of the rounds was read through it yet
        store = ox.Store.read_only(str(live))
        best = {"store": float("inf"), "copy": float("inf")}
        quads = 0
        batches = iter(chosen[i:i + args.graphs] for i in range(0, need, args.graphs))
        for _ in range(args.rounds):
            seconds, quads = from_store(store, next(batches))
            best["store"] = min(best["store"], seconds)
            seconds, _ = from_copies(db, next(batches))
            best["copy"] = min(best["copy"], seconds)
        db.close()

    per = {way: best[way] / args.graphs * 1000 for way in best}
    print(f"{len(records):,} records; {quads / args.graphs:.0f} quads a graph; copies "
          f"{size / len(chosen) / 1024:.1f} KiB a graph (zlib level 1), made in "
          f"{write_ms:.2f} ms a graph")
    print("| read | records | CPU ms / graph | ratio to the store |")
    print("|---|---|---|---|")
    for way in ("store", "copy"):
        print(f"| {way} | {len(records):,} | {per[way]:.3f} | {per[way] / per['store']:.2f} |")


if __name__ == "__main__":
    main()
