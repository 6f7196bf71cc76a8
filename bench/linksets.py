"""Linksets benchmark: what counting VoID's linksets at load costs, and what it saves.

    python bench/linksets.py STORE CORPUS [--files 2000] [--rounds 3]

STORE is an embedded store a load of this version wrote (``kg --store STORE load CORPUS``),
CORPUS the data it was loaded from (``bench/gen.py N --seed 1``). In this one process:

- **load**: ``count_links`` over the graphs of ``--files`` record files, against
  ``ingest_file`` (read, map, validate, write N-Quads) of the same files: the share of a
  file's ingest that counting its links adds;
- **manifest**: reading the store's load manifest (``read_manifest``), against the same
  manifest with its ``links`` column dropped (a copy, in a temporary folder);
- **VoID**: the figures ``/.well-known/void`` reads once per version (``VoidFigures``)
  against the query over every statement that counted the linksets before the load did
  (``graph-links.rq``; run once, it is the slow one).

Wall-clock seconds (``time.perf_counter``), best of ``--rounds``.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyoxigraph as ox  # noqa: E402

from bench.timing import best  # noqa: E402
from kg.model.datafiles import read_data_file  # noqa: E402
from kg.model.ingest import ingest_file  # noqa: E402
from kg.model.mapping import map_file  # noqa: E402
from kg.rdf.linksets import count_links  # noqa: E402
from kg.store import EmbeddedStore  # noqa: E402
from kg.store.index import Index  # noqa: E402
from kg.store.manifests import read_manifest  # noqa: E402
from kg.store.queries import internal_query  # noqa: E402
from kg.web.following.void import VoidFigures  # noqa: E402

BASE = "https://claimgraph.example/"


def live_version(store: Path) -> Path:
    """The version directory the store's ``live`` pointer names."""
    return (store / "live").resolve()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    files = sorted((args.corpus / "records").glob("*.yaml"))[: args.files]
    ingest_file((files[0], BASE))  # the shapes and terms, read once
    ingest_s = best(args.rounds, lambda: [ingest_file((f, BASE)) for f in files])
    graphs = [
        triples for f in files for _, _, triples in map_file(read_data_file(f), BASE).graphs()
    ]
    links_s = best(args.rounds, lambda: [count_links(t, BASE) for t in graphs])
    print(
        f"load: ingest_file {1e3 * ingest_s / len(files):.3f} ms a file, count_links "
        f"{1e3 * links_s / len(files):.3f} ms a file ({links_s / ingest_s:.1%})"
    )

    version = live_version(args.store)
    with tempfile.TemporaryDirectory() as work:
        bare = Path(work) / version.name
        shutil.copyfile(
            version.with_name(version.name + ".manifest.sqlite"),
            bare.with_name(bare.name + ".manifest.sqlite"),
        )
        with sqlite3.connect(bare.with_name(bare.name + ".manifest.sqlite")) as db:
            db.execute("ALTER TABLE manifest DROP COLUMN links")
        db.close()
        with_s = best(args.rounds, lambda: read_manifest(version))
        without_s = best(args.rounds, lambda: read_manifest(bare))
    print(
        f"manifest: {len(read_manifest(version)):,} graphs, read in {with_s:.3f} s, "
        f"{without_s:.3f} s without links ({with_s / without_s:.2f}x)"
    )

    with EmbeddedStore(args.store, read_only=True) as store:
        void_s = best(
            args.rounds, lambda: VoidFigures(store, BASE, [], Index(store.kept_index()).classes())
        )
        started = time.perf_counter()
        rows = list(store.query(internal_query("graph-links").text, {"base": ox.Literal(BASE)}))
        query_s = time.perf_counter() - started
    print(
        f"VoID: figures {void_s:.2f} s, the linksets query alone {query_s:.2f} s "
        f"({len(rows):,} rows; figures were {void_s + query_s:.2f} s with it, "
        f"{(void_s + query_s) / void_s:.1f}x)"
    )


if __name__ == "__main__":
    main()
