"""The index's activities: each review, reproduction run, change of standing and import,
with its end time, the graph that states it and the records it concerns (what
``queries/internal/timeline-activities.rq`` finds). The timeline
(:mod:`kg.store.index.timeline`) is made of them and the rows, so a feed never queries
the store.

A write of a few graphs reads them again whole (one query, 0.55 s at 35k records) and
changes the tables by the difference: see :func:`update_activities`.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from itertools import islice

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


#: How many of the query's rows are written at a time.
BATCH = 5000
#: An activity's columns after its IRI: kind, end time (UTC), graph, note.
Activity = tuple[str, str, str, str]


def write_activities(db: sqlite3.Connection, store: GraphStore) -> None:
    """Add every activity ``store`` states, each with every record it concerns: streamed in
    batches (a million results' activities held whole took 0.7 GB)."""
    rows = solutions(store.query(internal_query("timeline-activities").text))
    while batch := list(islice(rows, BATCH)):
        db.executemany(  # an activity's first row gives its columns, as _read keeps them
            "INSERT OR IGNORE INTO activities VALUES (?, ?, ?, ?, ?)",
            ((row["activity"].value, *_columns(row)) for row in batch),
        )
        db.executemany(  # and each record its last row's
            "INSERT OR REPLACE INTO activity_records VALUES (?, ?, ?)",
            ((row["activity"].value, row["record"].value, _value(row, "what")) for row in batch),
        )


def update_activities(db: sqlite3.Connection, store: GraphStore) -> None:
    """Read the activities again, whole, and change the tables by the difference: the
    query's branches are evaluated whole even when its records or graphs are given
    (VALUES: 2 s for 500 records against 0.8 s for all 35k), and an activity the write
    left alone may still concern other records (an import's new file, a record quoted from
    a retracted source); a write of a few graphs changes a few of the 145,000 rows at 35k,
    where deleting and inserting them all took 0.9 s."""
    activities, records = _read(store)
    before = {
        iri: tuple(columns)
        for iri, *columns in db.execute("SELECT activity, kind, at, graph, note FROM activities")
    }
    concerned = {
        (iri, record): what
        for iri, record, what in db.execute("SELECT activity, record, what FROM activity_records")
    }
    db.executemany(
        "DELETE FROM activities WHERE activity = ?", ((iri,) for iri in before.keys() - activities)
    )
    db.executemany(
        "INSERT OR REPLACE INTO activities VALUES (?, ?, ?, ?, ?)",
        ((iri, *columns) for iri, columns in activities.items() if before.get(iri) != columns),
    )
    db.executemany(
        "DELETE FROM activity_records WHERE activity = ? AND record = ?",
        concerned.keys() - records,
    )
    db.executemany(
        "INSERT OR REPLACE INTO activity_records VALUES (?, ?, ?)",
        ((*key, what) for key, what in records.items() if concerned.get(key) != what),
    )


def _read(store: GraphStore) -> tuple[dict[str, Activity], dict[tuple[str, str], str]]:
    """Every activity (its first row's columns) and every (activity, record) it concerns
    with what it did to it (its last row's), as ``timeline-activities.rq`` lists them."""
    activities: dict[str, Activity] = {}
    records: dict[tuple[str, str], str] = {}
    for row in solutions(store.query(internal_query("timeline-activities").text)):
        activity = row["activity"].value
        if activity not in activities:
            activities[activity] = _columns(row)
        records[(activity, row["record"].value)] = _value(row, "what")
    return activities, records


def _columns(row) -> Activity:
    return (row["kind"].value, utc(row["at"].value), row["graph"].value, _value(row, "note"))


def _value(row, name: str) -> str:
    term = row[name]
    return term.value if term is not None else ""
