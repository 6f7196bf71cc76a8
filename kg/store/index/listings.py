"""Every value of a facet as a list: searched, sorted and paged (the browser's ``/benchmarks``,
``/models``, ``/sources``, ...), and what the home page counts; read from the index's own
counts (``facet_values``, kept by every write), never from the rows whole.

>>> like_words("Llama 3_8b")
['%llama%', '%3\\\\_8b%']
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from dataclasses import dataclass

from .files import ReadOnlyFile
from .reader import Index

#: The orders a list takes: a key and SQL (ties by label, then value).
VALUE_SORTS: dict[str, str] = {
    "count": "count DESC, shown, value",
    "-count": "count, shown, value",
    "name": "shown COLLATE NOCASE, value",
    "-name": "shown COLLATE NOCASE DESC, value",
}
_SHOWN = "coalesce(nullif(label, ''), value)"


@dataclass(frozen=True)
class ValuePage:
    """One page of a facet's values: (value, label, count) each, and how many there are."""

    values: list[tuple[str, str, int]]
    total: int


def escape_like(text: str) -> str:
    """``text`` with LIKE's wildcards (``%``, ``_``) and the escape (``\\``) escaped."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def like_words(text: str) -> list[str]:
    """Each word of ``text`` as a LIKE pattern matching it anywhere (wildcards escaped with
    ``\\``), lower-cased."""
    return [f"%{escape_like(word)}%" for word in text.casefold().split()]


def value_page(
    index: Index, facet: str, text: str, sort: str, offset: int, limit: int
) -> ValuePage:
    """The values of ``facet`` some row has whose label or value holds every word of
    ``text`` (case-insensitive), in ``sort`` order (:data:`VALUE_SORTS`), ``limit`` from
    ``offset``.

    :raises KeyError: for a sort that is not one of :data:`VALUE_SORTS`.
    """
    order = VALUE_SORTS[sort]
    words = like_words(text)
    held = "".join(
        " AND (lower(label) LIKE ? ESCAPE '\\' OR lower(value) LIKE ? ESCAPE '\\')" for _ in words
    )
    arguments: list[object] = [facet]
    for word in words:
        arguments += [word, word]
    where = f"facet = ? AND count > 0{held}"
    total = index.execute(f"SELECT count(*) FROM facet_values WHERE {where}", arguments)
    found = index.execute(
        f"SELECT value, {_SHOWN} AS shown, count FROM facet_values WHERE {where} "
        f"ORDER BY {order} LIMIT ? OFFSET ?",
        [*arguments, int(limit), int(offset)],
    )
    return ValuePage(list(found), total.fetchone()[0])


def value_counts(index: Index, facets: Collection[str]) -> dict[str, int]:
    """How many values each of ``facets`` has (that some row has)."""
    counted = dict(
        index.execute(
            "SELECT facet, count(*) FROM facet_values WHERE count > 0 GROUP BY facet"
        ).fetchall()
    )
    return {facet: counted.get(facet, 0) for facet in facets}


def activity_counts(index: Index) -> dict[str, int]:
    """How many activities of each kind (review, run, import, ...) the store holds."""
    return dict(index.execute("SELECT kind, count(*) FROM activities GROUP BY kind").fetchall())


def first_rows(
    db: sqlite3.Connection | ReadOnlyFile, key: str, values: Collection[str], columns: str
) -> dict[str, tuple]:
    """For each of ``values`` of the row key ``key`` that a row has, ``columns`` of its
    first row (a benchmark's name and source title, a model's developer): one lookup along
    ``key``'s index each."""
    found: dict[str, tuple] = {}
    for value in values:
        row = db.execute(
            f"SELECT {columns} FROM rows INDEXED BY rows_by_{key} WHERE {key} = ? "
            f"ORDER BY n LIMIT 1",
            (value,),
        ).fetchone()
        if row is not None:
            found[value] = tuple(row)
    return found


def first_of(index: Index, key: str, values: Collection[str], column: str) -> dict[str, str]:
    """:func:`first_rows` of one column, those without a value left out."""
    return {v: row[0] for v, row in first_rows(index, key, values, column).items() if row[0]}
