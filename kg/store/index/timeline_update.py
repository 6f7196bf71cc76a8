"""A timeline file updated in place for a load that changed some records' words, instead of
written whole (:mod:`.timeline_write`).

An entry's place in the feed is decided by its release, its time, its kind and its id; a
record's entry's time by its first release or its earliest activity. A load that adds or
removes no record, changes no record's id, source or benchmark, and changes no activity
(nor the records one concerns) leaves every entry in its place and every entry's records
as they were: only the titles and summaries of the records whose title, printed value,
unit or source's title changed are made again, from the new index's rows, in a copy of
the previous version's file. A source renamed at 35,000 records: 910 entries, where the
file written whole sorts every entry again (1.1 to 1.9 s).

Any other load (a review added, a record added or removed, an entry dated by the load
itself) writes the file whole. ``tests/test_follow.py`` checks that the updated file holds
what a whole write gives.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ...errors import StoreError
from .reader import Index
from .timeline import loaded_at
from .timeline_write import FORMAT, RECORD_SUMMARY, RECORD_TITLE
from .write import written

#: What a record's entry and the sitemap take from its row and must be as they were, and
#: what its entry's words are made of.
_PLACED = ("id", "source", "benchmark")
_WORDS = ("title", "printed", "unit", "source_title")


def update_timeline(index: Index, before: Index, previous: Path, path: Path) -> bool:
    """Write ``path``, the timeline of ``index``, as ``previous`` (the timeline of
    ``before``, the index ``index`` was updated from, and the same archive version) with the
    entries of the records whose words changed made again. False, writing nothing, when
    the load changed more than words (the caller writes the file whole).

    :raises StoreError: when the file cannot be written.
    """
    if not previous.exists() or index.updated_from != before.version:
        return False
    renamed = _renamed(index, before, previous)
    if renamed is None:
        return False

    def fill(db: sqlite3.Connection) -> None:
        db.execute("ATTACH DATABASE ? AS idx", (_read_only(index.path),))
        db.execute("CREATE TEMP TABLE renamed (record TEXT PRIMARY KEY) WITHOUT ROWID")
        db.executemany("INSERT OR IGNORE INTO renamed VALUES (?)", ((r,) for r in renamed))
        # a record's own entry: kind 'record' and its IRI as id (found by its records)
        db.execute(
            f"UPDATE entries SET "
            f"title = (SELECT {RECORD_TITLE} FROM idx.rows r WHERE r.record = entries.id), "
            f"summary = (SELECT {RECORD_SUMMARY} FROM idx.rows r WHERE r.record = entries.id) "
            "WHERE pos IN (SELECT er.pos FROM entry_records er JOIN renamed n "
            "ON n.record = er.record) AND kind = 'record' AND id IN (SELECT record FROM renamed)"
        )
        db.execute("UPDATE meta SET value = ? WHERE key = 'index'", (index.version,))
        db.execute("INSERT OR REPLACE INTO meta VALUES ('updated_from', ?)", (before.version,))
        db.commit()
        db.execute("DETACH DATABASE idx")

    try:
        written(path, fill, start=previous)
    except StoreError:
        # the previous file went meanwhile (another process pruned it): the file is written
        # whole, which reports any fault that is real
        return False
    return True


def _renamed(index: Index, before: Index, previous: Path) -> list[str] | None:
    """The records whose entry's words changed from ``before`` to ``index``; None when the
    load changed more than that, or ``previous`` is not a timeline of this format."""
    db = sqlite3.connect(":memory:", uri=True)
    try:
        for name, path in (("now", index.path), ("was", before.path), ("line", previous)):
            db.execute(f"ATTACH DATABASE ? AS {name}", (_read_only(path),))
        meta = dict(db.execute("SELECT key, value FROM line.meta"))
        if meta.get("format") != FORMAT or meta.get("index") != before.version:
            return None
        loaded = loaded_at(before.version)
        if loaded is not None and _any(db, "SELECT 1 FROM line.entries WHERE at = ?", loaded):
            return None  # dated by the load before: every such entry moves
        records, activities, pairs = _compared(db)
        for a, b in (("now", "was"), ("was", "now")):
            if _any(
                db,
                f"SELECT 1 FROM {a}.rows n WHERE n.record IN {records} AND NOT EXISTS "
                f"(SELECT 1 FROM {b}.rows o WHERE o.record = n.record)",
            ):
                return None  # a record added or removed
        if _count(db, "now.rows") != _count(db, "was.rows"):
            return None
        both = f"now.rows n JOIN was.rows o ON o.record = n.record WHERE n.record IN {records}"
        if _any(db, f"SELECT 1 FROM {both} AND ({_differ(_PLACED)})"):
            return None
        for table, compared in (("activities", activities), ("activity_records", pairs)):
            for a, b in (("now", "was"), ("was", "now")):
                if _any(
                    db,
                    f"SELECT * FROM {a}.{table} WHERE {compared} "
                    f"EXCEPT SELECT * FROM {b}.{table} WHERE {compared}",
                ):
                    return None
        return [r for (r,) in db.execute(f"SELECT n.record FROM {both} AND ({_differ(_WORDS)})")]
    except sqlite3.Error:
        return None  # an unreadable file: written whole, which reports what is wrong
    finally:
        db.close()


def _compared(db: sqlite3.Connection) -> tuple[str, str, str]:
    """What of the two indexes may differ, as SQL: the records (a list to be IN), the
    activities and the (activity, record) pairs (conditions on their tables). The new index
    lists what its update touched (:data:`~.schema.TOUCHED`): the rest of it is the
    previous index's, byte for byte. Without that list, everything is compared."""
    listed = db.execute("SELECT 1 FROM now.sqlite_master WHERE name = 'touched'").fetchone()
    if listed is None:
        return "(SELECT record FROM now.rows UNION SELECT record FROM was.rows)", "1", "1"
    records = "(SELECT iri FROM now.touched WHERE kind = 'record')"
    read = "(SELECT iri FROM now.touched WHERE kind = 'activity')"
    # an activity of a touched record may have lost or gained that record, or gone
    activities = (
        f"activity IN {read} OR activity IN (SELECT activity FROM now.activity_records "
        f"WHERE record IN {records} UNION SELECT activity FROM was.activity_records "
        f"WHERE record IN {records})"
    )
    return records, activities, f"activity IN {read} OR record IN {records}"


def _differ(columns: tuple[str, ...]) -> str:
    return " OR ".join(f"n.{c} IS NOT o.{c}" for c in columns)


def _any(db: sqlite3.Connection, select: str, *arguments: object) -> bool:
    return db.execute(f"SELECT EXISTS ({select})", arguments).fetchone()[0] == 1


def _count(db: sqlite3.Connection, table: str) -> int:
    return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def _read_only(path: Path) -> str:
    return f"file:{path}?mode=ro&immutable=1"
