"""A source's suite (docs/views.md): its submissions side by side, a column per benchmark of
the source, sorted by any column, a page at a time, from the version's index
(kg/store/index/suites.py). No aggregate is computed: a source's own average, where it
publishes one, is a benchmark of its own and so a column."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import NotFoundError, UsageError
from ..store.index import Index
from ..store.index.suites import Column, Submission, columns, fill_cells, submissions

#: Submissions a page of a suite shows, unless asked otherwise.
SUITE_PAGE = 100


def column_key(column: Column) -> str:
    """A column's name in ``?sort=``: the last segment of its benchmark's IRI."""
    return column.benchmark.rstrip("/").rpartition("/")[2]


@dataclass(frozen=True)
class Suite:
    source: str
    title: str
    columns: list[Column]
    #: the column sorted by, and whether worst first
    sorted_by: Column
    worst_first: bool
    submissions: list[Submission]
    #: the source's current submissions with a result in the sorted column
    total: int
    start: int
    limit: int

    @property
    def sort(self) -> str:
        return ("-" if self.worst_first else "") + column_key(self.sorted_by)


def has_suite(index: Index, source: str) -> bool:
    """Whether ``source`` has results on a leaderboard (and so a suite)."""
    return bool(columns(index, source))


def read_suite(
    index: Index, source: str, sort: str = "", start: int = 0, limit: int = SUITE_PAGE
) -> Suite:
    """The page of ``source``'s suite from ``start``, sorted by the column ``sort`` names
    (a ``-`` first: worst first; "": the column of most rows, best first).

    :raises NotFoundError: for a source the index has no benchmark results of.
    :raises UsageError: for a ``sort`` that names none of its columns.
    """
    found = columns(index, source)
    if not found:
        raise NotFoundError(f"the source {source} has no results on a leaderboard")
    worst_first = sort.startswith("-")
    wanted = sort.removeprefix("-")
    by_key = {column_key(c): c for c in found}
    if wanted and wanted not in by_key:
        raise UsageError(
            f"?sort= takes one of this suite's columns: {', '.join(by_key)} "
            f"(a '-' first for worst first), not {sort!r}"
        )
    column = by_key[wanted] if wanted else found[0]
    page, total = submissions(index, source, column.benchmark, worst_first, start, limit)
    fill_cells(index, source, page)
    title = index.labels("source", [source]).get(source) or source
    return Suite(source, title, found, column, worst_first, page, total, start, limit)
