"""Writing a timeline file (:mod:`.timeline`): the entries in feed order, the records each
concerns, each record's last change and the sitemap's listing, for one index and one
archive version.

Read from the index (rows and activities) and the archive's release members, never the
store, and sorted by SQLite (on disk where it must), so neither time nor memory depends on
more than the entries themselves.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

from ...kinds import graph_noun, kind_and_id
from ..archive import Archive, ReleaseInfo
from ..base import solutions
from ..queries import internal_query
from .activities import utc
from .reader import Index
from .timeline import KINDS, describe_activity, loaded_at, stone_of, what_it_was
from .write import written

#: Bumped when the tables change: a file of another format is written again.
FORMAT = "claimgraph-timeline/2"

#: How much memory the entries' sort may use before it spills to disk (KiB): it holds every
#: entry being sorted, tens of MB at 35,000 records.
SORT_MEMORY_KIB = 256 * 1024

#: A record's entry's title and summary, of the index's row (its columns by name).
RECORD_TITLE = "'New record: ' || title"
RECORD_SUMMARY = (
    "trim(printed || ' ' || unit, ' ' || char(9, 10, 13)) || ' (' || source_title || ')'"
)

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entries (
  pos INTEGER PRIMARY KEY, id TEXT NOT NULL, kind TEXT NOT NULL, at TEXT NOT NULL,
  title TEXT NOT NULL, summary TEXT NOT NULL, page TEXT NOT NULL, released INTEGER NOT NULL,
  deletes TEXT, related TEXT
);
CREATE TABLE entry_records (
  record TEXT NOT NULL, pos INTEGER NOT NULL, PRIMARY KEY (record, pos)
) WITHOUT ROWID;
CREATE TABLE entry_nodes (
  node TEXT NOT NULL, pos INTEGER NOT NULL, PRIMARY KEY (node, pos)
) WITHOUT ROWID;
CREATE TABLE changed (record TEXT PRIMARY KEY, at TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE sitemap (pos INTEGER PRIMARY KEY, iri TEXT NOT NULL, lastmod TEXT);
CREATE TEMP TABLE members (
  position INTEGER NOT NULL, graph TEXT NOT NULL, hash TEXT NOT NULL,
  PRIMARY KEY (position, graph)
) WITHOUT ROWID;
CREATE TEMP TABLE firsts (graph TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
CREATE TEMP TABLE unsorted (
  released INTEGER, at TEXT, kind_order INTEGER, id TEXT, kind TEXT, title TEXT,
  summary TEXT, page TEXT, deletes TEXT, records TEXT
);
"""


def write_timeline(index: Index, archive: Archive, base: str, path: Path) -> None:
    """Write the timeline of ``index``'s version and ``archive``'s releases to ``path``.

    :raises StoreError: when the file cannot be written.
    """
    releases = archive.releases()

    def fill(db: sqlite3.Connection) -> None:
        # the entries are sorted in the temporary database: in memory up to this size
        db.execute(f"PRAGMA temp.cache_size = -{SORT_MEMORY_KIB}")
        db.executescript(SCHEMA)
        db.execute("ATTACH DATABASE ? AS idx", (f"file:{index.path}?mode=ro&immutable=1",))
        _members(db, archive, releases)
        unreleased = len(releases)
        put = _putter(db)
        _releases(db, releases, base, put)
        _activities(db, unreleased, put)
        _records(db, releases, index.version, unreleased)
        _tombstones(db, archive, releases, base, index.version, unreleased, put)
        _sort(db)
        _sitemap(db, base, releases)
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("format", FORMAT), ("index", index.version), ("releases", str(len(releases)))],
        )
        db.commit()
        db.execute("DETACH DATABASE idx")

    written(path, fill)


def _putter(db: sqlite3.Connection):
    def put(
        released: int,
        at: str,
        kind: str,
        ident: str,
        title: str,
        summary: str,
        page: str,
        records,
        deletes: str | None = None,
    ) -> None:
        db.execute(
            "INSERT INTO unsorted VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                released,
                at,
                KINDS.index(kind),
                ident,
                kind,
                title,
                summary,
                page,
                deletes,
                json.dumps(sorted(records)),
            ),
        )

    return put


def _members(db: sqlite3.Connection, archive: Archive, releases: list[ReleaseInfo]) -> None:
    """Every release's members (position, graph, hash), and each graph's first release."""
    index = archive.index
    if index is None or not releases:
        return
    position = {info.id: n for n, info in enumerate(releases)}
    db.executemany(
        "INSERT OR IGNORE INTO members VALUES (?, ?, ?)",
        (
            (position[row["id"].value], row["graph"].value, row["hash"].value)
            for row in solutions(index.query(internal_query("release-members").text))
            if row["id"].value in position
        ),
    )
    db.execute("INSERT INTO firsts SELECT graph, min(position) FROM members GROUP BY graph")


def _releases(db: sqlite3.Connection, releases: list[ReleaseInfo], base: str, put) -> None:
    """A release each, with counts of what it added, changed and removed by kind."""
    for position, info in enumerate(releases):
        counts: Counter[tuple[str, str]] = Counter()
        touched: set[str] = set()
        now_size = 0
        for graph, now, before in db.execute(
            "SELECT m.graph, m.hash, o.hash FROM members m LEFT JOIN members o "
            "ON o.position = ? AND o.graph = m.graph WHERE m.position = ?",
            (position - 1, position),
        ).fetchall():
            now_size += 1
            if now != before:
                _count(counts, touched, graph, base, "added" if before is None else "changed")
        for (graph,) in db.execute(
            "SELECT o.graph FROM members o WHERE o.position = ? AND NOT EXISTS "
            "(SELECT 1 FROM members m WHERE m.position = ? AND m.graph = o.graph)",
            (position - 1, position),
        ).fetchall():
            _count(counts, touched, graph, base, "removed")
        parts = [
            f"{n} {graph_noun(kind, n)} {status}" for (kind, status), n in sorted(counts.items())
        ]
        note = f" {info.note}" if info.note else ""
        put(
            position,
            utc(info.issued),
            "release",
            info.iri,
            f"Release {info.id}{':' if note else ''}{note}",
            f"{now_size} graphs: {'; '.join(parts) if parts else 'no change'}.",
            info.iri,
            touched,
        )


def _count(counts: Counter, touched: set[str], graph: str, base: str, status: str) -> None:
    kind = kind_and_id(graph, base)[0] or "other"
    counts[(kind, status)] += 1
    if kind == "record":
        touched.add(graph)


def _activities(db: sqlite3.Connection, unreleased: int, put) -> None:
    """An entry per review, run, change of standing and import."""
    found = db.execute(
        "SELECT a.activity, a.kind, a.at, a.note, "
        "coalesce((SELECT position FROM firsts f WHERE f.graph = a.graph), ?), "
        "(SELECT json_group_object(ar.record, ar.what) FROM idx.activity_records ar "
        " WHERE ar.activity = a.activity) "
        "FROM idx.activities a",
        (unreleased,),
    )
    for activity, kind, at, note, released, whats_json in found:
        whats = json.loads(whats_json)
        title, summary = describe_activity(activity, kind, whats, note)
        put(released, at, kind, activity, title, summary, activity, whats)


def _records(
    db: sqlite3.Connection, releases: list[ReleaseInfo], version: str, unreleased: int
) -> None:
    """A record is new when a release first holds it; until then, as of its earliest
    activity (or the load that brought it, where nothing dates it). One statement: a
    million records' entries are never Python objects."""
    db.execute("CREATE TEMP TABLE release_at (position INTEGER PRIMARY KEY, at TEXT NOT NULL)")
    db.executemany(
        "INSERT INTO release_at VALUES (?, ?)",
        ((n, utc(info.issued)) for n, info in enumerate(releases)),
    )
    db.execute(
        "INSERT INTO unsorted SELECT coalesce(position, :unreleased), at, :kind, record, "
        f"'record', {RECORD_TITLE}, {RECORD_SUMMARY}, "
        "record, NULL, json_array(record) FROM ("
        " SELECT r.record, r.title, r.printed, r.unit, r.source_title, f.position, "
        " coalesce(ra.at, (SELECT min(a.at) FROM idx.activity_records ar "
        "  JOIN idx.activities a ON a.activity = ar.activity WHERE ar.record = r.record), "
        "  :loaded) AS at "
        " FROM idx.rows r LEFT JOIN firsts f ON f.graph = r.record "
        " LEFT JOIN release_at ra ON ra.position = f.position"
        ") WHERE at IS NOT NULL",  # a store without versions and a record nothing dates
        {"unreleased": unreleased, "kind": KINDS.index("record"), "loaded": loaded_at(version)},
    )


def _tombstones(
    db: sqlite3.Connection,
    archive: Archive,
    releases: list[ReleaseInfo],
    base: str,
    version: str,
    unreleased: int,
    put,
) -> None:
    """A record a release held and the live data does not: its entry (which keeps its
    place) and its removal."""
    loaded = loaded_at(version)
    gone = db.execute(
        "SELECT graph, min(position), max(position) FROM members "
        "WHERE graph NOT IN (SELECT record FROM idx.rows) GROUP BY graph"
    ).fetchall()
    for record, first, last in gone:
        if kind_and_id(record, base)[0] != "record":
            continue
        stone = stone_of(releases, last, record, base, loaded)
        if stone is None:
            continue
        title, value = what_it_was(archive, stone)
        put(
            first,
            utc(releases[first].issued),
            "record",
            record,
            f"New record: {title}",
            value,
            record,
            [record],
        )
        put(
            releases.index(stone.removed_in) if stone.removed_in else unreleased,
            stone.at,
            "removal",
            f"{record}#removed-after-{stone.last.id}",
            f"Removed: record {stone.ident}",
            f"The record is no longer in the registry's data; release {stone.last.id} "
            "was the last to hold it.",
            record,
            [record],
            record,
        )


def _sort(db: sqlite3.Connection) -> None:
    """The entries in feed order, numbered from 1; each record's latest entry time."""
    db.execute(  # the keys sorted alone, then the entries taken in their order
        "CREATE TEMP TABLE ordered AS SELECT row_number() OVER "
        "(ORDER BY released, at, kind_order, id) AS pos, rowid AS entry FROM unsorted"
    )
    # an entry about records other than its own page names the first of them
    db.execute(
        "INSERT INTO entries SELECT pos, id, kind, at, title, summary, page, released, "
        "deletes, CASE WHEN NOT EXISTS (SELECT 1 FROM json_each(records) WHERE value = page) "
        "THEN json_extract(records, '$[0]') END "
        "FROM ordered o JOIN unsorted u ON u.rowid = o.entry ORDER BY pos"
    )
    db.execute(
        "INSERT OR IGNORE INTO entry_records SELECT j.value, o.pos "
        "FROM ordered o JOIN unsorted u ON u.rowid = o.entry, json_each(u.records) j "
        "ORDER BY j.value, o.pos"
    )
    db.execute("DROP TABLE ordered")
    db.execute("DROP TABLE unsorted")
    # a source's or benchmark's feed: the entries about its records, by node (listing its
    # records first read 132,898 IRIs for a benchmark of a million: 1.35 s cold)
    db.execute(
        "INSERT OR IGNORE INTO entry_nodes SELECT node, pos FROM ("
        " SELECT r.source AS node, er.pos AS pos FROM entry_records er "
        " JOIN idx.rows r ON r.record = er.record WHERE r.source != '' "
        " UNION ALL SELECT r.benchmark, er.pos FROM entry_records er "
        " JOIN idx.rows r ON r.record = er.record WHERE r.benchmark != ''"
        ") ORDER BY node, pos"
    )
    db.execute(
        "INSERT INTO changed SELECT er.record, max(e.at) FROM entry_records er "
        "JOIN entries e ON e.pos = er.pos GROUP BY er.record"
    )


def _sitemap(db: sqlite3.Connection, base: str, releases: list[ReleaseInfo]) -> None:
    """The pages the sitemap lists, in its order: the index page (as of the newest change),
    each record in id order, each source and benchmark (as of its records' newest change),
    and each release."""
    newest = db.execute("SELECT max(at) FROM changed").fetchone()[0]
    db.execute("INSERT INTO sitemap (iri, lastmod) VALUES (?, ?)", (base, newest))
    db.execute(
        "INSERT INTO sitemap (iri, lastmod) SELECT r.record, c.at FROM idx.rows r "
        "LEFT JOIN changed c ON c.record = r.record ORDER BY r.id"
    )
    db.execute(
        "INSERT INTO sitemap (iri, lastmod) SELECT node, max(at) FROM ("
        " SELECT r.source AS node, c.at AS at FROM idx.rows r "
        " LEFT JOIN changed c ON c.record = r.record "
        " UNION ALL SELECT r.benchmark, c.at FROM idx.rows r "
        " LEFT JOIN changed c ON c.record = r.record"
        ") WHERE substr(node, 1, ?) = ? GROUP BY node ORDER BY node",
        (len(base), base),
    )
    db.executemany(
        "INSERT INTO sitemap (iri, lastmod) VALUES (?, ?)",
        ((info.iri, utc(info.issued)) for info in releases),
    )
