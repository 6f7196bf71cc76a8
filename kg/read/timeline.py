"""The registry's timeline: what readers follow, in the order feeds page it.

Each entry is something that happened, with a time of its own: a record first seen (its
earliest activity, or the first release that held it: a record has no creation time of
its own), a review, a reproduction run and its verdict, a change of standing, an import,
a release with what it changed, and a record removed from the data (a tombstone). Entries
are ordered by the release that first held them, then by time, then by id: an entry that
is in a release keeps its place for good, so a feed's archive page made of released
entries never changes (RFC 5005 archives), while entries not yet released come last, in
time order. The timeline is built once per store version and release (a few queries over
the whole store; kept by the app beside the catalogue).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

import pyoxigraph as ox

from ..kinds import graph_noun
from ..rdf.namespaces import DCTERMS, KG, QUDT
from ..release.history import kind_and_id
from ..store import GraphStore
from ..store.archive import Archive, ReleaseInfo
from ..store.base import solutions
from ..store.index.rows import Row
from ..store.queries import internal_query
from ..store.versions import version_time

#: Kinds of entry, in the order entries of one time are listed.
KINDS = ("release", "import", "record", "review", "run", "standing", "removal")


@dataclass(frozen=True)
class Entry:
    """One thing that happened, as a feed lists it."""

    #: A stable IRI naming the entry (Atom's ``id``).
    id: str
    kind: str
    #: When, in UTC (RFC 3339).
    at: str
    title: str
    summary: str
    #: The registry IRI of the page it is about.
    page: str
    #: The records it concerns (their IRIs).
    records: frozenset[str] = frozenset()
    #: The position of the first release that held it (the number of releases: none yet).
    released: int = 0
    #: A removal: the id of the entry it deletes (RFC 6721's ``deleted-entry``).
    deletes: str | None = None

    @property
    def key(self) -> tuple:
        return (self.released, self.at, KINDS.index(self.kind), self.id)


@dataclass(frozen=True)
class Tombstone:
    """A record that a release held and the live data no longer does."""

    record: str
    ident: str
    #: The last release that held it.
    last: ReleaseInfo
    #: The first release after that one, which no longer held it (None: not released yet).
    removed_in: ReleaseInfo | None
    #: When it went: that release's date, else the time of the load that removed it.
    at: str


@dataclass
class Timeline:
    """Every entry, oldest first (:attr:`Entry.key`), with the tombstones by record IRI."""

    entries: list[Entry]
    tombstones: dict[str, Tombstone] = field(default_factory=dict)
    #: Each record's latest entry time (the sitemap's lastmod).
    changed: dict[str, str] = field(default_factory=dict)

    def about(self, records: set[str]) -> list[Entry]:
        """The entries concerning any of ``records``, oldest first."""
        return [e for e in self.entries if not e.records.isdisjoint(records)]

    @classmethod
    def build(
        cls,
        store: GraphStore,
        archive: Archive,
        rows: Iterable[Row],
        base: str,
        version: str | None,
    ) -> Timeline:
        rows = list(rows)
        releases = archive.releases()
        members = _members(archive, releases)
        first: dict[str, int] = {}
        for position, info in enumerate(releases):
            for graph in members[info.id]:
                first.setdefault(graph, position)
        unreleased = len(releases)
        loaded = loaded_at(version)
        entries = _release_entries(releases, members, base)
        activities, seen = _activities(store, first, unreleased)
        entries += activities
        for row in rows:
            # new when a release first holds it; until then, as of its earliest activity
            at = _release_time(releases, first, row.record) or seen.get(row.record) or loaded
            if at is None:  # a store without versions and a record nothing dates
                continue
            entries.append(
                Entry(
                    row.record,
                    "record",
                    at,
                    f"New record: {row.title}",
                    f"{row.printed} {row.unit}".strip() + f" ({row.source_title})",
                    row.record,
                    frozenset([row.record]),
                    first.get(row.record, unreleased),
                )
            )
        live = {row.record for row in rows}
        tombstones = _tombstones(releases, members, live, base, loaded)
        for stone in tombstones.values():
            # its first appearance keeps its place (an archive page does not lose it)
            title, value = what_it_was(archive, stone)
            entries.append(
                Entry(
                    stone.record,
                    "record",
                    _release_time(releases, first, stone.record) or stone.at,
                    f"New record: {title}",
                    value,
                    stone.record,
                    frozenset([stone.record]),
                    first.get(stone.record, unreleased),
                )
            )
            entries.append(
                Entry(
                    f"{stone.record}#removed-after-{stone.last.id}",
                    "removal",
                    stone.at,
                    f"Removed: record {stone.ident}",
                    f"The record is no longer in the registry's data; release {stone.last.id} "
                    "was the last to hold it.",
                    stone.record,
                    frozenset([stone.record]),
                    releases.index(stone.removed_in) if stone.removed_in else unreleased,
                    deletes=stone.record,
                )
            )
        entries.sort(key=lambda e: e.key)
        changed: dict[str, str] = {}
        for entry in entries:
            for record in entry.records:
                if entry.at > changed.get(record, ""):
                    changed[record] = entry.at
        return cls(entries, tombstones, changed)


def what_it_was(archive: Archive, stone: Tombstone) -> tuple[str, str]:
    """A removed record's title and printed value (with its unit), as the last release
    that held it has them."""
    quads = list(archive.release_store(stone.last.id).quads([stone.record]))

    def first(subject: str, predicate: str) -> str:
        return next(
            (
                # kg's stores hold no triple terms (data comes in through rdflib, which has none)
                cast("ox.NamedNode | ox.BlankNode | ox.Literal", q.object).value
                for q in quads
                # pyoxigraph's stubs allow a triple as a quad's subject; a Quad refuses one
                if q.subject.value == subject and q.predicate.value == predicate  # type: ignore[union-attr]
            ),
            "",
        )

    title = first(stone.record, str(DCTERMS.title)) or stone.ident
    node = first(stone.record, str(KG.reportedValue))
    unit = first(node, str(QUDT.unit)).rsplit("/", 1)[-1] if node else ""
    value = " ".join(filter(None, (first(node, str(KG.printedValue)) if node else "", unit)))
    return title, value


def utc(text: str) -> str:
    """An xsd:dateTime (or date) as RFC 3339 in UTC, so times sort as text; one without a
    zone is read as UTC.

    >>> utc("2026-10-16T00:00:00+02:00"), utc("2026-12-01")
    ('2026-10-15T22:00:00Z', '2026-12-01T00:00:00Z')
    """
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return _text(moment)


def _text(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _members(archive: Archive, releases: list[ReleaseInfo]) -> dict[str, dict[str, str]]:
    """Release id -> graph -> the hash of the version that release holds."""
    found: dict[str, dict[str, str]] = {info.id: {} for info in releases}
    index = archive.index
    if index is not None and releases:
        for row in solutions(index.query(internal_query("release-members").text)):
            found.setdefault(row["id"].value, {})[row["graph"].value] = row["hash"].value
    return found


def _release_time(releases: list[ReleaseInfo], first: dict[str, int], graph: str) -> str | None:
    position = first.get(graph)
    return utc(releases[position].issued) if position is not None else None


def _release_entries(
    releases: list[ReleaseInfo], members: dict[str, dict[str, str]], base: str
) -> list[Entry]:
    """A release each, with counts of what it added, changed and removed by kind."""
    entries: list[Entry] = []
    before: dict[str, str] = {}
    for position, info in enumerate(releases):
        now = members[info.id]
        changes: dict[str, set[str]] = {
            "added": set(now) - set(before),
            "removed": set(before) - set(now),
            "changed": {g for g in set(now) & set(before) if now[g] != before[g]},
        }
        counts: dict[tuple[str, str], int] = defaultdict(int)
        touched: set[str] = set()
        for status, graphs in changes.items():
            for graph in graphs:
                kind = kind_and_id(graph, base)[0] or "other"
                counts[(kind, status)] += 1
                if kind == "record":
                    touched.add(graph)
        parts = [
            f"{n} {graph_noun(kind, n)} {status}" for (kind, status), n in sorted(counts.items())
        ]
        summary = "; ".join(parts) if parts else "no change"
        note = f" {info.note}" if info.note else ""
        entries.append(
            Entry(
                info.iri,
                "release",
                utc(info.issued),
                f"Release {info.id}{':' if note else ''}{note}",
                f"{len(now)} graphs: {summary}.",
                info.iri,
                frozenset(touched),
                position,
            )
        )
        before = now
    return entries


def _activities(
    store: GraphStore, first: dict[str, int], unreleased: int
) -> tuple[list[Entry], dict[str, str]]:
    """An entry per review, run, change of standing and import; and each record's earliest
    activity time."""
    found: dict[str, dict] = {}
    earliest: dict[str, str] = {}
    for row in solutions(store.query(internal_query("timeline-activities").text)):
        activity = row["activity"].value
        at = utc(row["at"].value)
        record = row["record"].value
        entry = found.setdefault(
            activity,
            {
                "kind": row["kind"].value,
                "at": at,
                "graph": row["graph"].value,
                "records": set(),
                "what": {},
                "note": _value(row, "note"),
            },
        )
        entry["records"].add(record)
        what = _value(row, "what")
        if what:
            entry["what"][record] = what
        if at < earliest.get(record, "9999"):
            earliest[record] = at
    entries = []
    for activity, e in found.items():
        title, summary = _describe(activity, e)
        entries.append(
            Entry(
                activity,
                e["kind"],
                e["at"],
                title,
                summary,
                activity,
                frozenset(e["records"]),
                first.get(e["graph"], unreleased),
            )
        )
    return entries, earliest


def _value(row, name: str) -> str:
    term = row[name]
    return term.value if term is not None else ""


def _describe(activity: str, e: dict) -> tuple[str, str]:
    ident = activity.rsplit("/", 1)[-1]
    records = e["records"]
    many = f"{len(records)} records" if len(records) != 1 else "1 record"
    whats = sorted(set(e["what"].values()))
    if e["kind"] == "review":
        return (f"Review {ident}: {', '.join(whats) or 'no status'}", f"A review of {many}.")
    if e["kind"] == "run":
        verdicts = ", ".join(
            f"{record.rsplit('/', 1)[-1]}: {e['what'].get(record, 'no verdict')}"
            for record in sorted(records)
        )
        return (
            f"Reproduction run {ident}: {', '.join(whats) or 'no verdict'}",
            f"Measured again on real hardware; verdicts {verdicts}.",
        )
    if e["kind"] == "standing":
        return (f"Standing changed: {', '.join(whats)} ({many})", e["note"])
    return (f"Import {ident}: {many}", e["note"] or f"{many} imported.")


def tombstone(archive: Archive, record: str, base: str, version: str | None) -> Tombstone | None:
    """The tombstone of ``record``, which the live data does not hold: None when no
    release held it either (it never was in the registry)."""
    last = archive.latest_holding(record)
    if last is None:
        return None
    releases = archive.releases()
    return _stone(releases, releases.index(last), record, base, loaded_at(version))


def loaded_at(version: str | None) -> str | None:
    """When the load that made store ``version`` ran, as RFC 3339 in UTC (None: the
    version does not say)."""
    moment = version_time(version)
    return _text(moment) if moment else None


def _tombstones(
    releases: list[ReleaseInfo],
    members: dict[str, dict[str, str]],
    live: set[str],
    base: str,
    loaded_at: str | None,
) -> dict[str, Tombstone]:
    last: dict[str, int] = {}
    for position, info in enumerate(releases):
        for graph in members[info.id]:
            if kind_and_id(graph, base)[0] == "record":
                last[graph] = position
    stones = {}
    for record, position in last.items():
        if record not in live:
            stone = _stone(releases, position, record, base, loaded_at)
            if stone is not None:
                stones[record] = stone
    return stones


def _stone(
    releases: list[ReleaseInfo], last: int, record: str, base: str, loaded_at: str | None
) -> Tombstone | None:
    """``record``, last held by release ``last``: removed by the next release, or by a
    load since (dated by the load, where the store's version says when)."""
    removed_in = releases[last + 1] if last + 1 < len(releases) else None
    at = utc(removed_in.issued) if removed_in else loaded_at
    if at is None:
        return None
    return Tombstone(record, kind_and_id(record, base)[1], releases[last], removed_in, at)
