"""Writing a store version's index file: every record's row, its place on its benchmark's
leaderboard and in each sort order, the facets' values, the full-text table, and what the
record pages read of every record at once (standings, the graphs about each node) and the
quantities that disagree. Written to a temporary name and renamed, so a file at the
index's name is always whole."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import asdict
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from ...errors import StoreError
from ...model.standing import Change, Standing
from ..base import GraphStore, solutions
from ..queries import canned_query
from ..records import graphs_about
from ..standing import standings
from .ranking import rank
from .rows import Row, read_rows
from .schema import FACETS, FORMAT, LISTED, ROW_FIELDS, SCHEMA, SORTS, sort_column

#: A quantity: a model node on a benchmark node (docs/views.md).
Quantity = tuple[str, str]


def disagreeing(store: GraphStore) -> dict[Quantity, Decimal]:
    """The quantities reported with more than one value, each with its spread (highest
    less lowest): the canned query ``disagreements`` (queries/disagreements.rq), the one
    statement of what disagrees."""
    found: dict[Quantity, Decimal] = {}
    for row in solutions(store.query(canned_query("disagreements").text)):
        key = (row["model"].value, row["benchmark"].value)
        if key not in found:
            found[key] = Decimal(row["high"].value) - Decimal(row["low"].value)
    return found


def write_index(store: GraphStore, path: Path, version: str | None) -> None:
    """Write the index of ``store`` (at ``version``) to ``path``, replacing what is there.

    :raises StoreError: when the file cannot be written.
    """
    found = standings(store)
    rows = sorted(read_rows(store, found), key=lambda r: r.id)
    temporary = path.with_name(path.name + ".tmp")
    temporary.unlink(missing_ok=True)
    try:
        with sqlite3.connect(temporary) as db:
            db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + SCHEMA)
            _write_rows(db, rows)
            db.executemany(
                "INSERT INTO standings VALUES (?, ?)",
                ((record, json.dumps(asdict(s))) for record, s in found.items()),
            )
            db.executemany(
                "INSERT INTO about VALUES (?, ?)",
                (
                    (node, json.dumps([list(a.graphs), [list(r) for r in a.runs]]))
                    for node, a in graphs_about(store).items()
                ),
            )
            db.executemany(
                "INSERT INTO disagreeing VALUES (?, ?, ?)",
                ((m, b, str(spread)) for (m, b), spread in disagreeing(store).items()),
            )
            db.execute("INSERT INTO search(search) VALUES ('rebuild')")
            db.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [
                    ("format", FORMAT),
                    ("version", version or ""),
                    ("rows", str(len(rows))),
                    ("written", datetime.now(UTC).isoformat(timespec="seconds")),
                ],
            )
        db.close()
        with temporary.open("rb") as written:
            os.fsync(written.fileno())
        os.replace(temporary, path)
    except (OSError, sqlite3.Error) as exc:
        temporary.unlink(missing_ok=True)
        raise StoreError(f"cannot write the index {path}: {exc}") from None


def _write_rows(db: sqlite3.Connection, rows: list[Row]) -> None:
    places: dict[str, tuple[int | None, bool, int, int]] = {}
    boards = []
    by_benchmark: dict[str, list[Row]] = {}
    for row in rows:
        if row.benchmark:
            by_benchmark.setdefault(row.benchmark, []).append(row)
    for benchmark, members in by_benchmark.items():
        ranked = rank(members)
        for place, entry in enumerate(ranked):
            places[entry.row.id] = (entry.rank, entry.tied, entry.model_rows, place)
        numbers = [r.value for r in members if r.value is not None]
        first = ranked[0].row
        boards.append(
            (
                benchmark,
                first.benchmark_label,
                len(ranked),
                str(min(numbers)) if numbers else None,
                str(max(numbers)) if numbers else None,
                int(first.lower_is_better),
            )
        )
    positions = {sort: _positions(rows, sort) for sort in _sorts()}
    columns = [*ROW_FIELDS, "value_number", "model_key", "model_tail", "benchmark_key"]
    columns += ["source_key", "rank", "tied", "model_rows", "board_place"]
    columns += [sort_column(sort) for sort in positions]
    marks = ", ".join("?" * (len(columns) + 1))
    db.executemany(
        f"INSERT INTO rows (n, {', '.join(columns)}) VALUES ({marks})",
        (
            (
                n,
                *(_cell(getattr(row, name)) for name in ROW_FIELDS),
                float(row.value) if row.value is not None else None,
                row.model.casefold(),
                row.model.rpartition("/")[2].casefold(),
                row.benchmark_label.casefold(),
                row.source_title.casefold(),
                *places.get(row.id, (None, False, 1, None)),
                *(positions[sort][n] for sort in positions),
            )
            for n, row in enumerate(rows)
        ),
    )
    db.executemany(
        "INSERT OR IGNORE INTO row_methods VALUES (?, ?)",
        ((method, n) for n, row in enumerate(rows) for method in row.methods),
    )
    db.executemany("INSERT INTO boards VALUES (?, ?, ?, ?, ?, ?)", boards)
    db.executemany("INSERT INTO facet_values VALUES (?, ?, ?, ?)", _facet_values(rows))


def _cell(value: object) -> object:
    """A Row field as a column: lists and maps as JSON, decimals as their text."""
    if isinstance(value, list | dict):
        return json.dumps(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bool):
        return int(value)
    return value


def _sorts() -> Iterable[str]:
    for sort in SORTS:
        yield sort
        yield "-" + sort


def _positions(rows: list[Row], sort: str) -> list[int]:
    """Each row's place in ``sort``'s order (rows are in id order): equal keys keep id
    order both ways, rows without a key come last."""
    key = SORTS[sort.removeprefix("-")]
    keys = [key(row) for row in rows]
    order = sorted(
        (i for i, k in enumerate(keys) if k is not None),
        key=keys.__getitem__,
        reverse=sort.startswith("-"),
    )
    order += [i for i, k in enumerate(keys) if k is None]
    place = [0] * len(order)
    for position, i in enumerate(order):
        place[i] = position
    return place


def _facet_values(rows: list[Row]) -> Iterable[tuple[str, str, str, int]]:
    for name, (key, label_key) in FACETS.items():
        counts: dict[str, list] = {}
        for row in rows:
            values = getattr(row, key)
            for value in values if name == LISTED else [values] if values else []:
                label = getattr(row, label_key)
                label = label.get(value, value) if isinstance(label, dict) else label or value
                counts.setdefault(value, [label, 0])[1] += 1
        for value, (label, count) in counts.items():
            yield name, value, label, count


def standing_from_json(text: str) -> Standing:
    """A standing as :func:`write_index` keeps it, read back."""
    data = json.loads(text)
    change = data.pop("change")
    changes = data.pop("changes")
    fields: dict[str, Any] = _tuples(data)
    return Standing(
        **fields,
        change=Change(**_tuples(change)) if change is not None else None,
        changes=tuple(Change(**_tuples(c)) for c in changes),
    )


def _tuples(data: dict[str, Any]) -> dict[str, Any]:
    """JSON's lists back as the tuples the dataclasses hold."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
