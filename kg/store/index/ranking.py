"""The ranking rule of a leaderboard, applied to each benchmark's rows when the index is
written (``kg/store/index/write.py``): best first by the metric's direction, on the exact
numeric value (``qudt:numericValue``, a decimal); equal values share a rank and the next
rank skips ("1, 2, 2, 4"), and tied rows keep the order of their ids. A record without a
number, or one that is not current, is listed after the ranked ones, unranked
(docs/views.md)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import cast

from .rows import Row


@dataclass
class Ranked:
    """A row of a leaderboard."""

    row: Row
    #: 1 for the best; equal values share one; None for a record without a number.
    rank: int | None
    #: Another row of the board has the same value.
    tied: bool = False
    #: How many rows of the whole board are of this row's model (2: submitted twice).
    model_rows: int = 1


def rank(rows: Iterable[Row]) -> list[Ranked]:
    """``rows`` of one benchmark, ranked (see the module's text).

    >>> from kg.store.index.rows import Row
    >>> def row(i, v):
    ...     return Row(record=i, id=i, title=i, metric="m", metric_label="m", model=i[0],
    ...                dataset="", quote="", printed=v, unit="", evidence_kind="",
    ...                evidence_kind_label="", status="", status_label="", source="",
    ...                source_title="", value=Decimal(v), model_node=i[0])
    >>> [(r.row.id, r.rank, r.tied) for r in rank([row("a1", "0.5"), row("b", "0.7"),
    ...                                            row("c", "0.5"), row("d", "0.1")])]
    [('b', 1, False), ('a1', 2, True), ('c', 2, True), ('d', 4, False)]
    """
    rows = list(rows)
    # A claim that is not current (retracted, superseded, disputed, ...) holds no rank: it
    # is listed after the ranked ones, as a row without a number is (docs/standing.md).
    numbered = [r for r in rows if r.value is not None and r.is_current]
    lower = bool(numbered) and numbered[0].lower_is_better
    numbered.sort(key=lambda r: r.id)
    # stable: ties stay by id; every row in numbered has a value
    numbered.sort(key=lambda r: cast(Decimal, r.value), reverse=not lower)
    ranked: list[Ranked] = []
    for position, row in enumerate(numbered, start=1):
        if ranked and ranked[-1].row.value == row.value:
            ranked[-1].tied = True
            ranked.append(Ranked(row, ranked[-1].rank, tied=True))
        else:
            ranked.append(Ranked(row, position))
    ranked += [
        Ranked(r, None)
        for r in sorted(rows, key=lambda r: r.id)
        if r.value is None or not r.is_current
    ]
    per_model: dict[str, int] = {}
    for entry in ranked:
        per_model[model_of(entry.row)] = per_model.get(model_of(entry.row), 0) + 1
    for entry in ranked:
        entry.model_rows = per_model[model_of(entry.row)]
    return ranked


def model_of(row: Row) -> str:
    return row.model_node or row.model
