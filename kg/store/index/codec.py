"""A row as the index's columns and back, and a standing as JSON and back: one spelling
for the writer, the updater and the reader."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from decimal import Decimal
from typing import Any

from ...model.standing import Change, Standing
from .rows import Row
from .schema import ROW_FIELDS, SEARCHED, SORTS, sort_key

#: The Row fields kept as JSON text, and as 0 or 1.
_JSON_FIELDS = {"methods", "method_labels"}
_BOOL_FIELDS = {"lower_is_better", "shares_quote"}
#: The columns a row is written with (besides ``n`` and the board's), in order.
WRITTEN = (
    *ROW_FIELDS,
    "value_number",
    "model_key",
    "model_tail",
    "benchmark_key",
    "source_key",
    *(f"{prefix}_{sort}" for sort in SORTS for prefix in ("sort", "none")),
)
#: The columns of the full-text table, in order.
SEARCHED_COLUMNS = tuple(SEARCHED)


def row_cells(row: Row) -> tuple[object, ...]:
    """The values of :data:`WRITTEN` for ``row``."""
    keys: list[object] = []
    for sort in SORTS:
        key = sort_key(row, sort)
        keys += [key, int(key is None)]
    return (
        *(_cell(getattr(row, name)) for name in ROW_FIELDS),
        float(row.value) if row.value is not None else None,
        row.model.casefold(),
        row.model.rpartition("/")[2].casefold(),
        row.benchmark_label.casefold(),
        row.source_title.casefold(),
        *keys,
    )


def searched_cells(row: Row) -> tuple[str, ...]:
    """What the full-text table holds of ``row`` (its columns of the same names)."""
    return tuple(str(getattr(row, name)) for name in SEARCHED_COLUMNS)


def _cell(value: object) -> object:
    if isinstance(value, list | dict):
        return json.dumps(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bool):
        return int(value)
    return value


def row_from(cells: Sequence[Any]) -> Row:
    """A row read back from its columns (in :data:`ROW_FIELDS` order)."""
    values: dict[str, object] = {}
    for name, cell in zip(ROW_FIELDS, cells, strict=True):
        if name in _JSON_FIELDS:
            values[name] = json.loads(cell)
        elif name in _BOOL_FIELDS:
            values[name] = bool(int(cell))
        elif name == "value":
            values[name] = Decimal(cell) if cell is not None else None
        else:
            values[name] = cell if cell is not None else ""
    return Row(**values)  # type: ignore[arg-type]


def standing_json(standing: Standing) -> str:
    return json.dumps(asdict(standing))


def standing_from_json(text: str) -> Standing:
    """A standing as :func:`standing_json` wrote it."""
    data = json.loads(text)
    change = data.pop("change")
    changes = data.pop("changes")
    return Standing(
        **_tuples(data),
        change=Change(**_tuples(change)) if change is not None else None,
        changes=tuple(Change(**_tuples(c)) for c in changes),
    )


def _tuples(data: dict[str, Any]) -> dict[str, Any]:
    """JSON's lists back as the tuples the dataclasses hold."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
