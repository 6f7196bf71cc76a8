"""The index's activities: each review, reproduction run, change of standing and import,
with its end time, the graph that states it and the records it concerns (what
``queries/internal/timeline-activities.rq`` finds). The timeline
(:mod:`kg.store.index.timeline`) is made of them and the rows, so a feed never queries
the store.

A write of a few graphs reads them again whole (one query, 0.8 s at 35k records): see
:func:`update_activities`.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from ..base import GraphStore, solutions
from ..queries import internal_query


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


def write_activities(db: sqlite3.Connection, store: GraphStore) -> None:
    """Add every activity ``store`` states, each with every record it concerns."""
    _put(db, solutions(store.query(internal_query("timeline-activities").text)))


def update_activities(db: sqlite3.Connection, store: GraphStore) -> None:
    """Read the activities again, whole: the query's branches are evaluated whole even
    when its records or graphs are given (VALUES: 2 s for 500 records against 0.8 s for
    all 35k), and an activity the write left alone may still concern other records (an
    import's new file, a record quoted from a retracted source)."""
    db.execute("DELETE FROM activity_records")
    db.execute("DELETE FROM activities")
    write_activities(db, store)


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
