"""An index written whole over one store, its fields scanned once and asked a chunk at a
time, in one process (issue 51's sixth step).

    python bench/index_write.py STORE [--ways scanned asked] [--out DIR]

STORE: a claimgraph store folder (its live version is only read). Each way writes the
index of the live version to ``DIR/index-WAY.sqlite`` with :func:`kg.store.index.write_index`:
``scanned`` reads every node's fields in one pass first (kg/store/index/field_scan.py,
what a store in this process does), ``asked`` asks the store for each chunk's fields with
the records bound (what a remote store does). Prints each way's seconds, their ratio, and
whether the two files hold the same rows.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg.store.embedded import EmbeddedStore  # noqa: E402
from kg.store.index import write_index  # noqa: E402


class _Asked(EmbeddedStore):
    """The same store, read as a remote store's index is: a chunk of records at a time."""

    @property
    def reads_in_process(self) -> bool:
        return False


def rows_of(path: Path) -> list[tuple]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        found = db.execute("SELECT * FROM rows ORDER BY id").fetchall()
    db.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--ways", nargs="+", default=["scanned", "asked"])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="kg-index-write-"))
    seconds: dict[str, float] = {}
    for way in args.ways:
        store = (EmbeddedStore if way == "scanned" else _Asked)(args.store)
        target = out / f"index-{way}.sqlite"
        target.unlink(missing_ok=True)
        started = time.perf_counter()
        write_index(store, target, store.version())
        seconds[way] = time.perf_counter() - started
        print(f"{way}: {seconds[way]:.1f} s", flush=True)
        store.close()
    if {"scanned", "asked"} <= seconds.keys():
        same = rows_of(out / "index-scanned.sqlite") == rows_of(out / "index-asked.sqlite")
        print(f"scanned / asked: {seconds['scanned'] / seconds['asked']:.2f}; same rows: {same}")


if __name__ == "__main__":
    main()
