"""Reading a timeline file (:mod:`.timeline_write`), and finding or writing the one of an
index and an archive version (:func:`timeline_for`).

The file is named after both versions, so a release (a new archive version) or a load (a
new index) leads to a new file, never to a file of another pair. ``kg load`` and
``kg release`` write it for what they made; a reader that finds none writes it, one
process at a time, into the server's index folder.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import overload

from ...errors import StoreError
from ..archive import Archive
from ..versions import INDEX_SUFFIX
from .files import ReadOnlyFile, made_once, rows_among
from .reader import Index
from .timeline import Entry
from .timeline_update import update_timeline
from .timeline_write import FORMAT, write_timeline

TIMELINE_SUFFIX = ".timeline.sqlite"
#: How many timeline files a folder keeps (the newest; the ones being served are among them).
KEEP = 4
_ENTRY = "pos, id, kind, at, title, summary, page, released, deletes, related"


def timeline_name(index: Index, archive: Archive) -> str:
    """The file name of the timeline of ``index``'s version and ``archive``'s version."""
    head = archive.index_version()
    pair = f"{index.version or 'unversioned'}.{head.name if head else 'none'}"
    return re.sub(r"[^A-Za-z0-9._-]", "_", pair)[:160] + TIMELINE_SUFFIX


def timeline_for(index: Index, archive: Archive, base: str, folder: Path) -> TimelineFile:
    """The timeline of ``index`` and ``archive`` now, from ``folder``: written there first
    when missing (one process writes it; the others wait for it and read it).

    :raises StoreError: when it cannot be read or written.
    """
    path = folder / timeline_name(index, archive)
    if not path.exists():

        def write(target: Path) -> None:
            before = _updated_from(index)
            if before is None or not update_timeline(
                index, before, folder / timeline_name(before, archive), target
            ):
                write_timeline(index, archive, base, target)

        made_once(path, TimelineFile, write, KEEP)
    return TimelineFile(path)


def _updated_from(index: Index) -> Index | None:
    """The index ``index`` was updated from, where it is still beside it (an embedded
    store keeps the previous version a while)."""
    if not index.updated_from:
        return None
    try:
        return Index(index.path.with_name(index.updated_from + INDEX_SUFFIX))
    except StoreError:
        return None


class TimelineFile(ReadOnlyFile):
    """One timeline file, read-only: its entries in feed order, the entries about some
    records, each record's last change, and the sitemap's listing.

    :raises StoreError: when the file is missing, unreadable or of another format.
    """

    def __init__(self, path: Path):
        super().__init__(path, "the timeline", FORMAT)
        self.entries = Entries(self, None)

    def about(self, records: Sequence[str]) -> Entries:
        """The entries concerning any of ``records``, in feed order."""
        found = rows_among(self, "SELECT pos FROM entry_records WHERE record", records)
        return Entries(self, sorted({pos for (pos,) in found}))

    def about_node(self, node: str) -> Entries:
        """The entries concerning any record whose source or benchmark is ``node``, in feed
        order (the records the index held when the file was written)."""
        found = self.execute("SELECT pos FROM entry_nodes WHERE node = ? ORDER BY pos", (node,))
        return Entries(self, [pos for (pos,) in found])

    def changed(self, record: str) -> str | None:
        """When the latest entry about ``record`` happened (None: no entry is about it,
        so it never was in the registry's data)."""
        found = self.execute("SELECT at FROM changed WHERE record = ?", (record,)).fetchone()
        return found[0] if found else None

    def sitemap_size(self) -> int:
        return self.execute("SELECT count(*) FROM sitemap").fetchone()[0]

    def sitemap(self, start: int = 0, size: int | None = None) -> list[tuple[str, str | None]]:
        """The sitemap's pages (IRI, last change), from the ``start``-th (0 first)."""
        return self.execute(
            "SELECT iri, lastmod FROM sitemap WHERE pos > ? ORDER BY pos LIMIT ?",
            (start, -1 if size is None else size),
        ).fetchall()

    def sitemap_parts(self, size: int) -> list[str | None]:
        """The newest change of each part of ``size`` pages, in order."""
        return [
            at
            for _, at in self.execute(
                "SELECT (pos - 1) / ?, max(lastmod) FROM sitemap GROUP BY 1 ORDER BY 1", (size,)
            )
        ]

    def _entries(self, positions: Sequence[int]) -> list[Entry]:
        found: dict[int, Entry] = {}
        for start in range(0, len(positions), 500):
            part = list(positions[start : start + 500])
            rows = self.execute(
                f"SELECT {_ENTRY} FROM entries WHERE pos IN ({', '.join('?' * len(part))})", part
            ).fetchall()
            found.update(self._entry(row) for row in rows)
        return [found[pos] for pos in positions]

    def _range(self, first: int, last: int) -> list[Entry]:
        rows = self.execute(
            f"SELECT {_ENTRY} FROM entries WHERE pos BETWEEN ? AND ? ORDER BY pos", (first, last)
        ).fetchall()
        return [self._entry(row)[1] for row in rows]

    @staticmethod
    def _entry(row: tuple) -> tuple[int, Entry]:
        # the records an entry concerns stay in the file (a release's may be every record)
        pos, ident, kind, at, title, summary, page, released, deletes, related = row
        return pos, Entry(
            ident, kind, at, title, summary, page, frozenset(), released, deletes, related
        )


class Entries(Sequence[Entry]):
    """Entries of a timeline file in feed order, read as they are asked for: all of them
    (``positions`` None) or those at ``positions``."""

    def __init__(self, file: TimelineFile, positions: list[int] | None):
        self._file = file
        self._positions = positions
        self._size: int | None = None if positions is None else len(positions)

    def __len__(self) -> int:
        if self._size is None:
            self._size = self._file.execute("SELECT count(*) FROM entries").fetchone()[0]
        return self._size

    @overload
    def __getitem__(self, item: int) -> Entry: ...
    @overload
    def __getitem__(self, item: slice) -> list[Entry]: ...
    def __getitem__(self, item: int | slice) -> Entry | list[Entry]:
        if isinstance(item, int):
            if not -len(self) <= item < len(self):
                raise IndexError("entry index out of range")
            return self[item % len(self) : item % len(self) + 1][0]
        start, stop, step = item.indices(len(self))
        if step != 1:
            return list(self[start:stop])[::step]
        if stop <= start:
            return []
        if self._positions is None:
            return self._file._range(start + 1, stop)
        return self._file._entries(self._positions[start:stop])

    def __iter__(self) -> Iterator[Entry]:
        for start in range(0, len(self), 1000):
            yield from self[start : start + 1000]
