"""Writing a store version's index file whole: every record's row, the boards ranked, the
facets' values counted, the full-text table, the standings and what bears on each record,
and the quantities that disagree. Written to a temporary name and renamed, so a file at
the index's name is always whole; a failure leaves no file."""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ...errors import StoreError
from ..base import GraphStore
from ..records import graphs_about
from ..standing import standings
from ..versions import INDEX_FIELDS, INDEX_TEMPORARY
from .activities import write_activities
from .classes import write_classes
from .disagreeing import find_disagreements
from .field_scan import FieldScan
from .headings import name_boards
from .rows import claim_chunks, read_rows
from .schema import ROW_INDEXES, TABLES
from .suites import count_source_boards
from .tables import (
    add_term_uses,
    count_facets,
    index_searched,
    put_rows,
    rank_boards,
    share_quotes,
    term_uses,
    write_about,
    write_imports,
    write_meta,
    write_standings,
)

#: How many records are read from the store at a time.
CHUNK = 2000


def write_index(store: GraphStore, path: Path, version: str | None) -> None:
    """Write the index of ``store`` (at ``version``) to ``path``, replacing what is there.

    :raises StoreError: when the file cannot be written.
    """

    def fill(db: sqlite3.Connection) -> None:
        db.executescript(TABLES)
        found = standings(store)
        scan = (
            FieldScan(store, path.with_name(path.name + INDEX_FIELDS))
            if store.reads_in_process
            else None
        )
        try:
            for chunk in claim_chunks(store, CHUNK):  # memory bounded by a chunk, not the store
                rows = read_rows(store, found, chunk, scanned=scan)
                put_rows(db, sorted(rows, key=lambda r: r.id), searched=False)
        finally:
            if scan is not None:
                scan.close()
        db.executescript(ROW_INDEXES)  # each made in one sorted pass over the rows
        index_searched(db)
        share_quotes(db)
        benchmarks = db.execute("SELECT DISTINCT benchmark FROM rows WHERE benchmark != ''")
        rank_boards(db, sorted(b for (b,) in benchmarks))
        count_facets(db, None)
        name_boards(db)
        count_source_boards(db, None)
        find_disagreements(db)
        write_standings(db, found)
        write_imports(db, store)
        add_term_uses(db, term_uses(store))
        write_about(db, graphs_about(store))
        write_activities(db, store)
        write_classes(db, store)
        write_meta(db, version)

    written(path, fill)


def written(path: Path, fill: Callable[[sqlite3.Connection], None], start: Path | None = None):
    """``path`` written by ``fill`` into a temporary file (a copy of ``start``, or empty),
    then renamed into place.

    :raises StoreError: when it cannot be written.
    """
    temporary = path.with_name(path.name + INDEX_TEMPORARY)
    temporary.unlink(missing_ok=True)
    try:
        if start is not None:
            _copy(start, temporary)
        with _connected(temporary) as db:
            fill(db)
        with temporary.open("rb") as file:
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except (OSError, sqlite3.Error) as exc:
        temporary.unlink(missing_ok=True)
        raise StoreError(f"cannot write the index {path}: {exc}") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


@contextmanager
def _connected(path: Path) -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(path)
    try:
        # a private file until renamed: no journal, no syncs but the last
        db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")
        with db:
            yield db
    finally:
        db.close()


def _copy(source: Path, target: Path) -> None:
    """A copy of ``source`` at ``target``, byte for byte (in the kernel, where it can): an
    index file never changes once renamed into place, so no page can change under the copy.
    SQLite's backup, page by page through the library, took 0.72 s for 200 MB."""
    shutil.copyfile(source, target)
