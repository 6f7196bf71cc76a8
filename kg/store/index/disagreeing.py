"""The quantities (a model node on a benchmark) the rows give more than one value: the
``disagreeing`` table the disagreements page reads, widest spread first, and what each can
be narrowed by (``disagreeing_by``: the sources and developers of its records), counted
when the index is written so that the page's filters offer their values without reading
the rows (0.24 s at 100k, scaled: 2.4 s at a million).

A spread is also read against the metric's scale, so that a spread of 0.3 on a 0-1 metric
ranks above one of 0.5 on a 0-5 metric: the scale the upstream declares for it
(``min_score`` to ``max_score``; the widest where its rows declare different ones), else
the range the benchmark's own values span (said as such: computed here).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from decimal import Decimal

#: The row columns a disagreement can be narrowed by (docs/views.md).
NARROWED_BY = ("source", "developer")


def find_disagreements(
    db: sqlite3.Connection, quantities: Collection[tuple[str, str]] | None = None
) -> None:
    """The quantities (a model node on a benchmark) the rows give more than one value, with
    their spread (highest less lowest, exactly), of ``quantities`` or of every one. A value
    that stands for none (docs/imports.md) is no value here, as in
    queries/disagreements.rq. Each is kept with what orders the page that lists them: its
    spread as a number, its benchmark's label and the model's name on its lowest row; and
    with the sources and developers of its rows (``disagreeing_by``)."""
    sql = (
        "SELECT model_node, benchmark, value, id, benchmark_label, model, min_score, "
        "max_score, source, developer "
        "FROM rows WHERE model_node != '' AND benchmark != '' AND value IS NOT NULL"
    )
    if quantities is None:
        db.execute("DELETE FROM disagreeing")
        db.execute("DELETE FROM disagreeing_by")
        found = db.execute(sql).fetchall()
    else:
        found = []
        for model, benchmark in quantities:
            for table in ("disagreeing", "disagreeing_by"):
                db.execute(
                    f"DELETE FROM {table} WHERE model = ? AND benchmark = ?", (model, benchmark)
                )
            found += db.execute(
                f"{sql} AND model_node = ? AND benchmark = ?", (model, benchmark)
            ).fetchall()
    values: dict[tuple[str, str], set[Decimal]] = {}
    lowest: dict[tuple[str, str], tuple[Decimal, str, str, str]] = {}
    by: dict[tuple[str, str], set[tuple[str, str]]] = {}
    declared: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for model, benchmark, value, ident, benchmark_label, model_label, low, high, *named in found:
        quantity, number = (model, benchmark), Decimal(value)
        values.setdefault(quantity, set()).add(number)
        if low and high:
            declared.setdefault(quantity, set()).add((low, high))
        by.setdefault(quantity, set()).update(
            (column, v) for column, v in zip(NARROWED_BY, named, strict=True) if v
        )
        low = lowest.get(quantity)
        if low is None or (number, ident) < low[:2]:
            lowest[quantity] = (number, ident, benchmark_label, model_label)
    disagreeing = [quantity for quantity, seen in values.items() if len(seen) > 1]
    spans = _spans(db, {benchmark for _, benchmark in disagreeing})
    db.executemany(
        "INSERT INTO disagreeing VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (
                model,
                benchmark,
                str(spread),
                float(spread),
                *_relative(spread, declared.get((model, benchmark), set()), spans[benchmark]),
                *lowest[(model, benchmark)][2:],
            )
            for model, benchmark in disagreeing
            for seen in (values[(model, benchmark)],)
            for spread in (max(seen) - min(seen),)
        ),
    )
    db.executemany(
        "INSERT INTO disagreeing_by VALUES (?, ?, ?, ?)",
        (
            (column, value, model, benchmark)
            for model, benchmark in disagreeing
            for column, value in sorted(by[(model, benchmark)])
        ),
    )


def _spans(db: sqlite3.Connection, benchmarks: Collection[str]) -> dict[str, float]:
    """How wide a range each benchmark's values span (highest less lowest)."""
    found = {}
    for benchmark in benchmarks:
        low, high = db.execute(
            "SELECT min(value_number), max(value_number) FROM rows "
            "WHERE benchmark = ? AND value IS NOT NULL",
            (benchmark,),
        ).fetchone()
        found[benchmark] = (high - low) if low is not None and high is not None else 0.0
    return found


def _relative(spread: Decimal, declared: set[tuple[str, str]], span: float) -> tuple[float, str]:
    """(the spread as a share of its scale, the scale "low to high" its rows declare, or ""
    where none does and the benchmark's own span was used). Rows that declare different
    scales: the widest they make together (the lowest low to the highest high).

    >>> _relative(Decimal("0.5"), {("0", "5")}, 1.0)
    (0.1, '0 to 5')
    >>> _relative(Decimal("0.5"), {("0", "1"), ("0", "100")}, 2.0)
    (0.005, '0 to 100')
    >>> _relative(Decimal("0.5"), set(), 2.0)
    (0.25, '')
    """
    bounds = [(Decimal(low), Decimal(high), low, high) for low, high in declared]
    if bounds:
        low, _, low_text, _ = min(bounds, key=lambda b: b[0])
        _, high, _, high_text = max(bounds, key=lambda b: b[1])
        if high > low:
            return float(spread / (high - low)), f"{low_text} to {high_text}"
    return (float(spread) / span if span > 0 else 0.0), ""
