"""Graph read benchmark: what reading one record's graph back from the store costs, against
parsing the same graph from its N-Quads text (what a copy of each graph's text kept beside
the store would cost a page instead).

    python bench/graph_read.py STORE [--records 400] [--rounds 3]

STORE is an embedded store's directory (``kg --store STORE load CORPUS`` of
``bench/gen.py N --seed 1``); its live version is opened read-only. In this one process,
over ``--records`` random record graphs (seed 1), each row the best of ``--rounds``
passes in ms per graph:

- ``quads_for_pattern``: how a page reads a record's graph now (the baseline);
- ``dump``: the store writing the graph as N-Quads (decoding every term, no Python
  objects);
- ``parse``: ``pyoxigraph.parse`` of that text into quads (no store read);
- ``inflate + parse``: the same from zlib-compressed text, with its size.
"""

from __future__ import annotations

import argparse
import random
import sys
import zlib
from pathlib import Path

import pyoxigraph as ox

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import best  # noqa: E402

NQ = ox.RdfFormat.N_QUADS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--records", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    store = ox.Store.read_only(str((args.store / "live").resolve()))
    records = sorted(
        g.value
        for g in store.named_graphs()
        if isinstance(g, ox.NamedNode) and "/record/" in g.value
    )
    graphs = [ox.NamedNode(g) for g in random.Random(1).sample(records, args.records)]
    texts = [store.dump(format=NQ, from_graph=g) for g in graphs]
    packed = [zlib.compress(t, 6) for t in texts]
    quads = sum(len(list(ox.parse(t, format=NQ))) for t in texts)

    def per_graph(seconds: float) -> float:
        return 1e3 * seconds / len(graphs)

    rows = {
        "quads_for_pattern": best(
            args.rounds,
            lambda: [list(store.quads_for_pattern(None, None, None, g)) for g in graphs],
        ),
        "dump": best(args.rounds, lambda: [store.dump(format=NQ, from_graph=g) for g in graphs]),
        "parse": best(args.rounds, lambda: [list(ox.parse(t, format=NQ)) for t in texts]),
        "inflate + parse": best(
            args.rounds, lambda: [list(ox.parse(zlib.decompress(z), format=NQ)) for z in packed]
        ),
    }
    floor = rows["quads_for_pattern"]
    print(
        f"{len(records):,} record graphs, {len(graphs)} read, {quads / len(graphs):.0f} "
        f"quads each, {sum(map(len, texts)) / len(texts):,.0f} bytes of N-Quads "
        f"({sum(map(len, packed)) / len(packed):,.0f} compressed)"
    )
    print("| read | ms a graph | ratio |")
    print("|---|---|---|")
    for name, seconds in rows.items():
        print(f"| {name} | {per_graph(seconds):.3f} | {seconds / floor:.2f} |")


if __name__ == "__main__":
    main()
