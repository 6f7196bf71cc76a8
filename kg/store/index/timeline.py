"""The registry's timeline: what readers follow, in the order feeds page it.

Each entry is something that happened, with a time of its own: a record first seen (its
earliest activity, or the first release that held it: a record has no creation time of
its own), a review, a reproduction run and its verdict, a change of standing, an import,
a release with what it changed, and a record removed from the data (a tombstone). Entries
are ordered by the release that first held them, then by time, then by id: an entry that
is in a release keeps its place for good, so a feed's archive page made of released
entries never changes (RFC 5005 archives), while entries not yet released come last, in
time order.

The timeline depends on the store version and on the releases, so it is written to a file
of its own per index and archive version (:mod:`.timeline_write`), from the index's rows
and activities and the archive's release members: a feed reads that file
(:mod:`.timeline_file`), never the store.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox

from ...kinds import kind_and_id
from ...model.fields import field_text
from ...rdf.facts import Facts
from ..archive import Archive, ReleaseInfo
from ..versions import version_time
from .activities import utc, utc_text

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
    #: The page of the (first) record it concerns, where its own page is another's (an
    #: activity's, a release's).
    related: str | None = None

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


def loaded_at(version: str | None) -> str | None:
    """When the load that made store ``version`` ran, as RFC 3339 in UTC (None: the
    version does not say)."""
    moment = version_time(version)
    return utc_text(moment) if moment else None


def what_it_was(archive: Archive, stone: Tombstone) -> tuple[str, str]:
    """A removed record's title and printed value (with its unit), as the last release
    that held it has them."""
    facts = Facts(archive.release_store(stone.last.id).quads([stone.record]))
    record = ox.NamedNode(stone.record)
    title = field_text(facts, record, "title") or stone.ident
    unit = field_text(facts, record, "unit").rsplit("/", 1)[-1]
    value = " ".join(filter(None, (field_text(facts, record, "printed"), unit)))
    return title, value


def tombstone(archive: Archive, record: str, base: str, version: str | None) -> Tombstone | None:
    """The tombstone of ``record``, which the live data does not hold: None when no
    release held it either (it never was in the registry)."""
    last = archive.latest_holding(record)
    if last is None:
        return None
    releases = archive.releases()
    return stone_of(releases, releases.index(last), record, base, loaded_at(version))


def stone_of(
    releases: list[ReleaseInfo], last: int, record: str, base: str, loaded: str | None
) -> Tombstone | None:
    """``record``, last held by release ``last``: removed by the next release, or by a
    load since (dated by the load, where the store's version says when)."""
    removed_in = releases[last + 1] if last + 1 < len(releases) else None
    at = utc(removed_in.issued) if removed_in else loaded
    if at is None:
        return None
    return Tombstone(record, kind_and_id(record, base)[1], releases[last], removed_in, at)


def describe_activity(
    activity: str, kind: str, whats: dict[str, str], note: str
) -> tuple[str, str]:
    """An activity entry's title and summary, from what it says of each record it concerns
    (``whats``: record -> a review's status, a run's verdict, a change's kind, or "")."""
    ident = activity.rsplit("/", 1)[-1]
    many = f"{len(whats)} records" if len(whats) != 1 else "1 record"
    said = sorted({what for what in whats.values() if what})
    if kind == "review":
        return (f"Review {ident}: {', '.join(said) or 'no status'}", f"A review of {many}.")
    if kind == "run":
        verdicts = ", ".join(
            f"{record.rsplit('/', 1)[-1]}: {whats[record] or 'no verdict'}"
            for record in sorted(whats)
        )
        return (
            f"Reproduction run {ident}: {', '.join(said) or 'no verdict'}",
            f"Measured again on real hardware; verdicts {verdicts}.",
        )
    if kind == "standing":
        return (f"Standing changed: {', '.join(said)} ({many})", note)
    return (f"Import {ident}: {many}", note or f"{many} imported.")
