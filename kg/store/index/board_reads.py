"""Reading one leaderboard in pieces: its rows under a filter counted by their filter
values, a page of them in rank order, a row's place, the values a chart draws, and the
quantities that disagree a page at a time.

A board of 100,000 rows is never read whole for a page: each read walks one of the two
covering indexes on ``rows`` (``rows_on_board``, in rank order; ``rows_on_board_by_value``,
by the filters' values), so it reads the few columns it needs and no row it does not show
(kg/store/index/schema.py; figures in bench/README.md). ``condition`` is an SQL condition
on those columns with its parameters (kg.read.boards.BoardFilter makes it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal

from ...model.standing import CURRENT
from .disagreeing import NARROWED_BY
from .listings import escape_like
from .ranking import Ranked
from .reader import Index
from .schema import BOARD_FACET_COLUMNS


def tally(index: Index, benchmark: str, condition: str, parameters: Sequence[object]):
    """Each distinct combination of the board's facet columns' values
    (:data:`~kg.store.index.schema.BOARD_FACET_COLUMNS`, in that order) among the rows
    ``condition`` admits, with how many rows have it: a few thousand at most where a board
    has 100,000 rows."""
    columns = ", ".join(BOARD_FACET_COLUMNS)
    return index.execute(
        f"SELECT {columns}, count(*) FROM rows INDEXED BY rows_on_board_by_value "
        f"WHERE benchmark = ? AND {condition} GROUP BY {columns}",
        (benchmark, *parameters),
    ).fetchall()


def not_current(index: Index, benchmark: str) -> int:
    """How many rows of the whole board are not current (retracted, superseded, ...)."""
    return index.execute(
        "SELECT count(*) FROM rows INDEXED BY rows_on_board_by_value "
        f"WHERE benchmark = ? AND standing NOT IN ({', '.join('?' * len(CURRENT))})",
        (benchmark, *CURRENT),
    ).fetchone()[0]


def models(index: Index, benchmark: str, condition: str, parameters: Sequence[object]) -> int:
    """How many models the admitted rows are of (a row without a model node: its name)."""
    found = index.execute(
        "SELECT coalesce(nullif(model_node, ''), model) FROM rows INDEXED BY rows_on_board "
        f"WHERE benchmark = ? AND {condition}",
        (benchmark, *parameters),
    )
    # a set in Python: a third of SQLite's count(DISTINCT ...) of 130,000 names
    return len({m for (m,) in found})


#: How a board's table can be sorted: name -> the column's SQL value. ``-name`` sorts the
#: other way; empty values come last either way, and rank order breaks ties.
BOARD_ORDERS = {
    "rank": "board_place",
    "model": "lower(model)",
    "source": "lower(source_title)",
    "evaluator": "lower(evaluator_label)",
    "params": "CAST(nullif(params, '') AS REAL)",
    "precision": "lower(precision)",
    "review": "status_label",
    "standing": "standing_label",
}


def order_by(sort: str) -> str:
    """The SQL order of ``sort`` (a name of :data:`BOARD_ORDERS`, ``-`` before it for the
    other way).

    >>> order_by("-model")
    "ORDER BY coalesce(lower(model), '') = '', lower(model) DESC, board_place"
    """
    name = sort.removeprefix("-")
    value = BOARD_ORDERS[name]
    direction = " DESC" if sort.startswith("-") else ""
    if name == "rank":
        return f"ORDER BY board_place{direction}"
    return f"ORDER BY coalesce({value}, '') = '', {value}{direction}, board_place"


def page(
    index: Index,
    benchmark: str,
    condition: str,
    parameters: Sequence[object],
    start: int,
    limit: int,
    sort: str = "rank",
) -> list[Ranked]:
    """The admitted rows from place ``start`` on (0: the first), ``limit`` of them, in
    the order ``sort`` names (:func:`order_by`; by default best first)."""
    order = order_by(sort)
    # the rank order walks the index; another sorts the board's admitted rows
    by = "INDEXED BY rows_on_board " if sort == "rank" else ""
    return index.ranked(
        f"n IN (SELECT n FROM rows {by}WHERE benchmark = ? "
        f"AND {condition} {order} LIMIT {int(limit)} OFFSET {int(start)})",
        (benchmark, *parameters),
        order,
    )


def every(
    index: Index, benchmark: str, condition: str, parameters: Sequence[object], chunk: int = 2000
) -> Iterator[Ranked]:
    """Every admitted row in rank order, read ``chunk`` at a time."""
    after = -1
    while True:
        found = index.ranked(
            f"n IN (SELECT n FROM rows INDEXED BY rows_on_board WHERE benchmark = ? "
            f"AND board_place > ? AND {condition} ORDER BY board_place LIMIT {int(chunk)})",
            (benchmark, after, *parameters),
            "ORDER BY board_place",
        )
        if not found:
            return
        yield from found
        after = _place_of(index, found[-1].row.record, benchmark)


def _place_of(index: Index, record: str, benchmark: str) -> int:
    return index.execute(
        "SELECT board_place FROM rows WHERE record = ? AND benchmark = ?", (record, benchmark)
    ).fetchone()[0]


def place(
    index: Index, benchmark: str, condition: str, parameters: Sequence[object], record: str
) -> int | None:
    """Where the row of ``record`` stands among the admitted rows (0: first; None: the
    filter does not admit it, or it is not on the board)."""
    found = index.execute(
        f"SELECT board_place FROM rows WHERE record = ? AND benchmark = ? AND {condition}",
        (record, benchmark, *parameters),
    ).fetchone()
    if found is None:
        return None
    return index.execute(
        f"SELECT count(*) FROM rows INDEXED BY rows_on_board WHERE benchmark = ? "
        f"AND board_place < ? AND {condition}",
        (benchmark, found[0], *parameters),
    ).fetchone()[0]


def first_of_model(
    index: Index, benchmark: str, condition: str, parameters: Sequence[object], text: str
) -> tuple[str, str] | None:
    """(record IRI, id) of the best admitted row whose model is ``text`` (case aside), else
    of the best whose model holds it; None when no admitted row's does. A walk of the board
    in rank order, its model read from the index."""
    wanted = text.strip().casefold()
    if not wanted:
        return None
    pattern = f"%{escape_like(wanted)}%"
    for test, argument in (
        ("lower(model) = ?", wanted),
        ("lower(model) LIKE ? ESCAPE '\\'", pattern),
    ):
        found = index.execute(
            f"SELECT record, id FROM rows INDEXED BY rows_on_board WHERE benchmark = ? "
            f"AND {condition} AND {test} ORDER BY board_place LIMIT 1",
            (benchmark, *parameters, argument),
        ).fetchone()
        if found is not None:
            return found[0], found[1]
    return None


def place_of_rank(
    index: Index, benchmark: str, condition: str, parameters: Sequence[object], rank: int
) -> int:
    """Where the first admitted row of rank ``rank`` or worse stands (ranked rows come first,
    in rank order)."""
    return index.execute(
        f"SELECT count(*) FROM rows INDEXED BY rows_on_board WHERE benchmark = ? "
        f"AND rank < ? AND {condition}",
        (benchmark, rank, *parameters),
    ).fetchone()[0]


def ranked_values(
    index: Index, benchmark: str, condition: str, parameters: Sequence[object]
) -> list[float]:
    """The values of the admitted rows that hold a rank, best first (what a chart draws)."""
    found = index.execute(
        "SELECT value_number FROM rows INDEXED BY rows_on_board WHERE benchmark = ? "
        f"AND rank IS NOT NULL AND {condition} ORDER BY board_place",
        (benchmark, *parameters),
    )
    return [v for (v,) in found]


#: What a disagreement can be narrowed to, and how: each a condition on the quantity
#: (``d``); a source or developer narrows to the quantities any of whose records has it.
DISAGREEMENT_FILTERS = {
    "benchmark": "d.benchmark = ?",
    **{
        column: (
            "EXISTS (SELECT 1 FROM disagreeing_by b WHERE b.facet = '" + column + "' "
            "AND b.value = ? AND b.model = d.model AND b.benchmark = d.benchmark)"
        )
        for column in NARROWED_BY
    },
}


def _narrowed(filters: dict[str, str]) -> tuple[str, list[object]]:
    where = [DISAGREEMENT_FILTERS[name] for name in sorted(filters)]
    return " AND ".join(where) or "1", [filters[name] for name in sorted(filters)]


def disagreements(
    index: Index, start: int, limit: int, filters: dict[str, str] | None = None
) -> list[tuple[str, str, Decimal, float, str]]:
    """The quantities (model node, benchmark, spread, spread as a share of the scale, the
    declared scale or "") that disagree, the widest spread against its scale first (then
    by benchmark and model: kg/store/index/disagreeing.py), ``limit`` of them from
    ``start``; ``filters`` (:data:`DISAGREEMENT_FILTERS`) narrow them."""
    where, arguments = _narrowed(filters or {})
    return [
        (model, benchmark, Decimal(spread), relative, scale)
        for model, benchmark, spread, relative, scale in index.execute(
            "SELECT model, benchmark, spread, relative, scale FROM disagreeing AS d "
            f"INDEXED BY disagreeing_widest WHERE {where} "
            "ORDER BY relative DESC, benchmark_label, model_label, model, benchmark "
            "LIMIT ? OFFSET ?",
            (*arguments, int(limit), int(start)),
        )
    ]


def disagreement_count(index: Index, filters: dict[str, str] | None = None) -> int:
    where, arguments = _narrowed(filters or {})
    return index.execute(
        f"SELECT count(*) FROM disagreeing AS d WHERE {where}", arguments
    ).fetchone()[0]


def disagreement_choices(index: Index) -> dict[str, list[tuple[str, int]]]:
    """What each filter of the disagreements can choose, with how many quantities it keeps,
    most first: the benchmarks, the sources and the developers (kept with the quantities
    when the index was written)."""
    found: dict[str, list[tuple[str, int]]] = {
        "benchmark": index.execute(
            "SELECT benchmark, count(*) FROM disagreeing GROUP BY benchmark ORDER BY 2 DESC, 1"
        ).fetchall()
    }
    for column in NARROWED_BY:
        found[column] = index.execute(
            "SELECT value, count(*) FROM disagreeing_by WHERE facet = ? GROUP BY value "
            "ORDER BY 2 DESC, 1",
            (column,),
        ).fetchall()
    return found
