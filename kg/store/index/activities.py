"""The index's activities: each review, reproduction run, change of standing and import,
with its end time, the graph that states it and the records it concerns (what
``queries/internal/timeline-activities.rq`` finds). The timeline
(:mod:`kg.store.index.timeline`) is made of them and the rows, so a feed never queries
the store.

A write of a few graphs reads again only what it can change: the activities its graphs
state (before and after) and the activities of the records they name, each read with its
activity or record bound (0.5 ms a record at 35k, where reading them all takes 0.8 s):
see :func:`update_activities`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable
from datetime import UTC, datetime
from itertools import islice

import pyoxigraph as ox

from ..base import GraphStore, solutions
from ..queries import internal_query
from .files import among


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


#: Past this many activities and records to read again, a write reads every activity (one
#: query) and changes the tables by the difference.
ONE_BY_ONE_UP_TO = 2000


def update_activities(
    db: sqlite3.Connection, store: GraphStore, changed: Collection[str], named: Collection[str]
) -> set[str] | None:
    """Bring the tables up to date for a write of the graphs ``changed``, which name the
    IRIs ``named`` (before or after the write; the records among them now in ``rows``).
    The activities read again (besides those of the records among ``named``); None when
    every activity was (past :data:`ONE_BY_ONE_UP_TO`).

    What a write can change: the activities its graphs state (their columns and records),
    and the activities of the records its graphs name (a record's own graph says which
    evaluation and source it has, which an import or a retraction reaches it through; a
    review, run or change of standing names its record). A source's retraction is a
    graph of its own, so the records it reaches come with it."""
    activities = among(db, "SELECT activity FROM activities WHERE graph", changed)
    query = internal_query("activities-in-graph").text
    for graph in sorted(changed):
        activities.update(
            row["activity"].value
            for row in solutions(store.query(query, {"graph": ox.NamedNode(graph)}))
        )
    records = _records_now(db, named)
    if len(activities) + len(records) > ONE_BY_ONE_UP_TO:
        _update_by_difference(db, store)
        return None
    db.executemany("DELETE FROM activities WHERE activity = ?", ((a,) for a in activities))
    db.executemany("DELETE FROM activity_records WHERE activity = ?", ((a,) for a in activities))
    db.executemany("DELETE FROM activity_records WHERE record = ?", ((r,) for r in sorted(named)))
    timeline = internal_query("timeline-activities").text
    for name, bound in [("activity", sorted(activities)), ("record", sorted(records))]:
        for iri in bound:
            _put(db, solutions(store.query(timeline, {name: ox.NamedNode(iri)})))
    # an activity whose last record went (its records removed, or no longer reached)
    db.execute(
        "DELETE FROM activities WHERE NOT EXISTS "
        "(SELECT 1 FROM activity_records ar WHERE ar.activity = activities.activity)"
    )
    return activities


def _records_now(db: sqlite3.Connection, named: Collection[str]) -> set[str]:
    """The records among ``named`` that the index's rows hold."""
    return among(db, "SELECT record FROM rows WHERE record", named)


def _put(db: sqlite3.Connection, rows: Iterable) -> None:
    """Add the activities and (activity, record) pairs of some of the query's rows, as a
    whole write keeps them (an activity's first row's columns, a pair's last row's)."""
    for row in rows:
        db.execute(
            "INSERT OR IGNORE INTO activities VALUES (?, ?, ?, ?, ?)",
            (row["activity"].value, *_columns(row)),
        )
        db.execute(
            "INSERT OR REPLACE INTO activity_records VALUES (?, ?, ?)",
            (row["activity"].value, row["record"].value, _value(row, "what")),
        )


def _update_by_difference(db: sqlite3.Connection, store: GraphStore) -> None:
    """Read the activities again, whole, and change the tables by the difference: the
    query's branches are evaluated whole even when its records or graphs are given in a
    VALUES block, and a write of many graphs changes a few of the 145,000 rows at 35k,
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
