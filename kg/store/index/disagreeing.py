"""The quantities (a model node on a benchmark) the rows give more than one value: the
``disagreeing`` table the disagreements page reads, widest spread first, and what each can
be narrowed by (``disagreeing_by``: the sources and developers of its records), counted
when the index is written so that the page's filters offer their values without reading
the rows (0.24 s at 100k, scaled: 2.4 s at a million)."""

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
        "SELECT model_node, benchmark, value, id, benchmark_label, model, source, developer "
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
    for model, benchmark, value, ident, benchmark_label, model_label, *named in found:
        quantity, number = (model, benchmark), Decimal(value)
        values.setdefault(quantity, set()).add(number)
        by.setdefault(quantity, set()).update(
            (column, v) for column, v in zip(NARROWED_BY, named, strict=True) if v
        )
        low = lowest.get(quantity)
        if low is None or (number, ident) < low[:2]:
            lowest[quantity] = (number, ident, benchmark_label, model_label)
    disagreeing = [quantity for quantity, seen in values.items() if len(seen) > 1]
    db.executemany(
        "INSERT INTO disagreeing VALUES (?, ?, ?, ?, ?, ?)",
        (
            (model, benchmark, str(spread), float(spread), *lowest[(model, benchmark)][2:])
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
