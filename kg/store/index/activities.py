"""The index's activities: each review, reproduction run, change of standing and import,
with its end time, the graph that states it and the records it concerns (what
``queries/internal/timeline-activities.rq`` finds). The timeline
(:mod:`kg.store.index.timeline`) is made of them and the rows, so a feed never queries
the store.

A write of a few graphs reads again only the activities of the changed graphs and those
concerning the records it bears on: an activity in a graph the write left alone may still
gain or lose records (an import's new file, a record quoted from a retracted source).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from datetime import UTC, datetime

import pyoxigraph as ox

from ...rdf.sparqltext import inside_where
from ..base import GraphStore, solutions
from ..queries import internal_query

#: How many IRIs one restricted query lists (VALUES), so a query's text stays small.
CHUNK = 500


def utc(text: str) -> str:
    """An xsd:dateTime (or date) as RFC 3339 in UTC, so times sort as text; one without a
    zone is read as UTC.

    >>> utc("2026-10-16T00:00:00+02:00"), utc("2026-12-01")
    ('2026-10-15T22:00:00Z', '2026-12-01T00:00:00Z')
    """
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return utc_text(moment)


def utc_text(moment: datetime) -> str:
    """``moment`` as RFC 3339 in UTC, to the second."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def write_activities(
    db: sqlite3.Connection,
    store: GraphStore,
    variable: str | None = None,
    among: Collection[str] = (),
) -> None:
    """Add the activities ``store`` states (or those whose ``variable``, ``record`` or
    ``graph``, is among ``among``), each with every record it concerns."""
    text = internal_query("timeline-activities").text
    if variable is None:
        _put(db, solutions(store.query(text)))
        return
    listed = sorted(among)
    for start in range(0, len(listed), CHUNK):
        values = " ".join(str(ox.NamedNode(iri)) for iri in listed[start : start + CHUNK])
        _put(db, solutions(store.query(inside_where(text, f"VALUES ?{variable} {{ {values} }}"))))


def update_activities(
    db: sqlite3.Connection, store: GraphStore, records: Collection[str], graphs: Collection[str]
) -> None:
    """Read again the activities of ``graphs`` and those concerning ``records``."""
    for start in range(0, len(graphs), CHUNK):
        part = sorted(graphs)[start : start + CHUNK]
        marks = ", ".join("?" * len(part))
        db.execute(
            "DELETE FROM activity_records WHERE activity IN "
            f"(SELECT activity FROM activities WHERE graph IN ({marks}))",
            part,
        )
        db.execute(f"DELETE FROM activities WHERE graph IN ({marks})", part)
    db.executemany("DELETE FROM activity_records WHERE record = ?", ((r,) for r in records))
    write_activities(db, store, "graph", graphs)
    write_activities(db, store, "record", records)
    db.execute(
        "DELETE FROM activities WHERE activity NOT IN (SELECT activity FROM activity_records)"
    )


def _put(db: sqlite3.Connection, found) -> None:
    for row in found:
        activity = row["activity"].value
        db.execute(
            "INSERT OR IGNORE INTO activities VALUES (?, ?, ?, ?, ?)",
            (
                activity,
                row["kind"].value,
                utc(row["at"].value),
                row["graph"].value,
                _value(row, "note"),
            ),
        )
        db.execute(
            "INSERT OR REPLACE INTO activity_records VALUES (?, ?, ?)",
            (activity, row["record"].value, _value(row, "what")),
        )


def _value(row, name: str) -> str:
    term = row[name]
    return term.value if term is not None else ""
