"""A source's suite: its submissions side by side, one row each (an evaluation file, or a
record where there is none), a column per benchmark of the source, sorted by any column.

Read in pieces, as a board is (kg/store/index/board_reads.py): sorted by a column, the page's
submissions are a walk of that benchmark's board in rank order, kept to the source's current
rows; their other columns are read through the index of each submission's rows. Which
benchmarks a source has, with how many rows, is counted when the index is written
(``source_boards``): the largest source of a million results has 749,790 rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...model.standing import CURRENT
from .files import rows_among
from .reader import Index

_CURRENT = f"standing IN ({', '.join('?' * len(CURRENT))})"


def count_source_boards(db: sqlite3.Connection, benchmarks: Iterable[str] | None) -> None:
    """Count each source's rows on each board (of ``benchmarks``, or every board)."""
    if benchmarks is None:
        db.execute("DELETE FROM source_boards")
        db.execute(
            "INSERT INTO source_boards SELECT source, benchmark, count(*) FROM rows "
            "WHERE benchmark != '' GROUP BY source, benchmark"
        )
        return
    for benchmark in benchmarks:
        db.execute("DELETE FROM source_boards WHERE benchmark = ?", (benchmark,))
        db.execute(
            "INSERT INTO source_boards SELECT source, benchmark, count(*) FROM rows "
            "INDEXED BY rows_on_board_by_value WHERE benchmark = ? GROUP BY source",
            (benchmark,),
        )


@dataclass(frozen=True)
class Column:
    benchmark: str
    #: the board's heading (kg/store/index/headings.py)
    heading: str
    #: the source's rows on the board
    rows: int
    lower_is_better: bool


@dataclass(frozen=True)
class Cell:
    """A submission's result on one benchmark."""

    id: str
    printed: str
    #: what a printed value that stands for none means ("" for a value)
    meant: str
    rank: int | None


@dataclass(frozen=True)
class Submission:
    """One row of a suite: a model's submission (its evaluation file, or its record)."""

    key: str
    model: str
    model_node: str
    cells: dict[str, Cell]


def columns(index: Index, source: str) -> list[Column]:
    """The source's benchmarks, most rows first."""
    found = index.execute(
        "SELECT s.benchmark, b.label, s.rows, b.lower_is_better FROM source_boards s "
        "JOIN boards b ON b.benchmark = s.benchmark WHERE s.source = ? "
        "ORDER BY s.rows DESC, b.label",
        (source,),
    )
    return [Column(b, label, n, bool(lower)) for b, label, n, lower in found]


def submissions(
    index: Index, source: str, benchmark: str, worst_first: bool, start: int, limit: int
) -> tuple[list[Submission], int]:
    """A page of the source's current submissions on ``benchmark``'s board, best first (or
    worst first), ``limit`` from ``start``, each with its cells on every benchmark; and how
    many there are."""
    order = "board_place DESC" if worst_first else "board_place"
    where = f"benchmark = ? AND source = ? AND {_CURRENT}"
    arguments: list[object] = [benchmark, source, *CURRENT]
    total = index.execute(
        f"SELECT count(*) FROM rows INDEXED BY rows_on_board WHERE {where}", arguments
    ).fetchone()[0]
    shown = index.execute(
        f"SELECT coalesce(nullif(evaluation, ''), record), model, model_node FROM rows "
        f"INDEXED BY rows_on_board WHERE {where} ORDER BY {order} LIMIT ? OFFSET ?",
        [*arguments, int(limit), int(start)],
    ).fetchall()
    return [Submission(k, m, node, {}) for k, m, node in shown], total


def fill_cells(index: Index, source: str, page: Sequence[Submission]) -> None:
    """Each submission's cells: its current rows of the source, by benchmark (the best placed
    where it has two on one board)."""
    by_key = {s.key: s for s in page}
    columns = "id, benchmark, printed, meant, rank, board_place, source, standing"
    found = [
        *rows_among(
            index,
            f"SELECT evaluation, {columns} FROM rows INDEXED BY rows_by_evaluation "
            "WHERE evaluation",
            list(by_key),
        ),
        *rows_among(
            index,
            f"SELECT record, {columns} FROM rows INDEXED BY rows_by_record "
            "WHERE evaluation = '' AND record",
            list(by_key),
        ),
    ]
    found.sort(key=lambda r: (r[6] is None, r[6] or 0))  # best placed first
    for key, ident, benchmark, printed, meant, rank, _, of, standing in found:
        if of == source and standing in CURRENT and benchmark:
            by_key[key].cells.setdefault(benchmark, Cell(ident, printed, meant or "", rank))
