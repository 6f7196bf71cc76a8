"""The SQLite files beside an embedded store's version (its load manifest, its map of
copies): each written as a copy of the previous version's with only what changed
written, private until one rename puts it in place, never changed after."""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path


def unfinished(target: Path) -> Path:
    """Where the file that becomes ``target`` is written."""
    return target.with_name(target.name + ".tmp")


@contextmanager
def rewritten(target: Path, previous: Path | None) -> Iterator[tuple[sqlite3.Connection, bool]]:
    """An open SQLite file that becomes ``target`` when the block ends, durably: a copy of
    ``previous`` where that exists (and whether it did), else empty. A block that fails
    leaves the unfinished file for the next writer to remove, and ``target`` untouched."""
    temporary = unfinished(target)
    temporary.unlink(missing_ok=True)
    copied = False
    if previous is not None and previous.exists():
        shutil.copyfile(previous, temporary)
        copied = True
    with closing(sqlite3.connect(temporary, isolation_level=None)) as db:
        # No journal: the file is private until the rename below, which is the commit.
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        yield db, copied
    with temporary.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(temporary, target)
