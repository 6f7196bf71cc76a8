"""Each row's facet values kept a second time as small integers (``row_facets``, the values
in ``facet_codes``), so that a search's facets count a few bytes a row: read from the rows
themselves, 5,000 rows' eleven values took 20 ms more at 35k, most of it making their
text into Python strings (bench/README.md, issue 51's seventh step)."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence

from .files import ReadOnlyFile, rows_among
from .schema import CODED

#: Each value's code, as a subquery per coded column.
_CODES = ", ".join(f"(SELECT code FROM facet_codes WHERE value = rows.{key})" for key in CODED)


def code_rows(db: sqlite3.Connection, condition: str, arguments: Sequence[object] = ()) -> None:
    """Code the facet values of the rows ``condition`` selects (again, where they were):
    each value not yet coded gets the next code (here "" 1, "a" 2, "gpt-4" 3).

    >>> from kg.store.index.schema import TABLES
    >>> db = sqlite3.connect(":memory:")
    >>> db.executescript(TABLES) and None
    >>> rows = "INSERT INTO rows (n, model, source) VALUES (1, 'gpt-4', 'a'), (2, 'gpt-4', '')"
    >>> _ = db.execute(rows)
    >>> code_rows(db, "1")
    >>> db.execute("SELECT n, model, source FROM row_facets ORDER BY n").fetchall()
    [(1, 3, 2), (2, 3, 1)]
    """
    values = " UNION ".join(f"SELECT {key} FROM rows WHERE {condition}" for key in CODED)
    # (a NULL value is no code's: NOT NULL ignored, its code NULL)
    db.execute(
        f"INSERT OR IGNORE INTO facet_codes (value) SELECT * FROM ({values}) ORDER BY 1",
        [*arguments] * len(CODED),
    )
    db.execute(
        f"INSERT OR REPLACE INTO row_facets SELECT n, {_CODES} FROM rows WHERE {condition}",
        list(arguments),
    )


def values_of(db: sqlite3.Connection | ReadOnlyFile, codes: Collection[int]) -> dict[int, str]:
    """Each of ``codes``'s value."""
    return dict(rows_among(db, "SELECT code, value FROM facet_codes WHERE code", codes))


def code_of(db: sqlite3.Connection | ReadOnlyFile, value: str) -> int | None:
    """``value``'s code (None: no row has it)."""
    found = db.execute("SELECT code FROM facet_codes WHERE value = ?", (value,)).fetchone()
    return None if found is None else found[0]
