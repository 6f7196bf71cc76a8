"""The release archive: every released graph version, kept where the live store's union
never sees it.

Layout (``Settings.archive_dir``; by default beside the store, ``.kg/store-archive``)::

    index/              an embedded store: one named graph per release (the release node,
                        its members and their hashes); its write lock makes one release
                        at a time
    objects.sqlite      each graph version once, by its hash: its canonical N-Quads (gzip),
                        and which (graph, file SHA-256, schema) mapped to which hash
    releases/<id>/
      manifest.json     the release: id, date, note, previous release, content hash and
                        every member graph with its hash
      release.ttl       the release node
      dump.nq.gz        the member graphs, N-Quads (each graph's blank nodes its own)
      store/            an embedded store of the release (its graphs and the ontology):
                        what /sparql?release= and /record/<id>?release= read

A graph version unchanged between releases is stored once in ``objects.sqlite``; each
release's store is a checkpoint of the live store (hard links), so it costs disk only
for what changes afterwards.
"""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from ..errors import NotFoundError, StoreError
from . import EmbeddedStore, GraphStore
from .base import solutions
from .embedded import live_version
from .queries import internal_query

#: A release id: the issue date and the first 12 hex digits of the content hash.
RELEASE_ID = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9a-f]{12}$")
#: Release stores kept open by a reader at once (each is a few file handles).
OPEN_RELEASES = 8

_SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (
    hash TEXT PRIMARY KEY, graph TEXT NOT NULL, quads INTEGER NOT NULL, body BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS mapped (
    graph TEXT NOT NULL, file_sha256 TEXT NOT NULL, schema TEXT NOT NULL, hash TEXT NOT NULL,
    PRIMARY KEY (graph, file_sha256, schema));
"""


@dataclass(frozen=True)
class ReleaseInfo:
    """A release as the index lists it."""

    id: str
    iri: str
    issued: str
    previous: str | None
    note: str
    sha256: str


@dataclass(frozen=True)
class StoredVersion:
    """A graph version to keep: which file (by SHA-256, under which schema) mapped to it."""

    graph: str
    file_sha256: str
    schema: str
    hash: str
    quads: int
    body: bytes  # gzip of the dump-ready canonical N-Quads


def check_release_id(ident: str) -> str:
    """``ident`` if it has the form of a release id (so it is safe in a path).

    :raises NotFoundError: otherwise.
    """
    if not RELEASE_ID.match(ident):
        raise NotFoundError(f"no release {ident!r} (a release id is YYYY-MM-DD-<12 hex digits>)")
    return ident


class Archive:
    """The archive at ``path``: read-only for readers (the web app follows new releases
    without a restart); ``write=True`` takes the index's write lock until closed."""

    def __init__(self, path: Path, *, write: bool = False):
        self.path = path
        self.write = write
        self._lock = threading.Lock()
        self._index: GraphStore | None = None
        self._index_opened: Path | None = None
        self._stores: OrderedDict[str, GraphStore] = OrderedDict()
        self._db: sqlite3.Connection | None = None
        if write:
            (path / "releases").mkdir(parents=True, exist_ok=True)
            self._index = EmbeddedStore(path / "index")
            self._db = sqlite3.connect(path / "objects.sqlite")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)

    # -- the index of releases ------------------------------------------------------------
    @property
    def index(self) -> GraphStore | None:
        """The index store (None before the first release)."""
        if self.write:
            return self._index
        with self._lock:
            live = self.index_version()
            if live is None:
                return None
            if live != self._index_opened:
                self._index = EmbeddedStore(self.path / "index", read_only=True)
                self._index_opened = live
            return self._index

    def index_version(self) -> Path | None:
        """The index's live version (each release makes a new one), or None before the
        first release."""
        return live_version(self.path / "index")

    def releases(self) -> list[ReleaseInfo]:
        """Every release, oldest first (each a revision of the one before)."""
        index = self.index
        if index is None:
            return []
        found = []
        for row in solutions(index.query(internal_query("releases").text)):
            previous = row["previous"]
            note = row["note"]
            found.append(
                ReleaseInfo(
                    id=row["id"].value,
                    iri=row["release"].value,
                    issued=row["issued"].value,
                    previous=previous.value.rsplit("/", 1)[-1] if previous is not None else None,
                    note=note.value if note is not None else "",
                    sha256=row["sha256"].value,
                )
            )
        return _chain(found)

    def release(self, ident: str) -> ReleaseInfo:
        """:raises NotFoundError: for an id the archive does not hold."""
        check_release_id(ident)
        for info in self.releases():
            if info.id == ident:
                return info
        raise NotFoundError(f"no release {ident!r} in the archive at {self.path}")

    def head(self) -> ReleaseInfo | None:
        releases = self.releases()
        return releases[-1] if releases else None

    def history(self, graph: str) -> list[tuple[ReleaseInfo, str | None]]:
        """Every release, oldest first, with the hash of ``graph`` in it (None: not in it)."""
        index = self.index
        if index is None:
            return []
        rows = index.query(internal_query("graph-history").text, {"graph": ox.NamedNode(graph)})
        hashes = {row["id"].value: row["hash"].value for row in solutions(rows)}
        return [(info, hashes.get(info.id)) for info in self.releases()]

    def latest_holding(self, graph: str) -> ReleaseInfo | None:
        """The newest release that holds a version of ``graph`` (None: none does)."""
        held = [info for info, digest in self.history(graph) if digest is not None]
        return held[-1] if held else None

    # -- one release ------------------------------------------------------------------------
    def release_dir(self, ident: str) -> Path:
        return self.path / "releases" / check_release_id(ident)

    def manifest(self, ident: str) -> dict:
        """A release's manifest.json.

        :raises NotFoundError: for an unknown release.
        """
        path = self.release_dir(ident) / "manifest.json"
        if not path.is_file():
            raise NotFoundError(f"no release {ident!r} in the archive at {self.path}")
        return json.loads(path.read_text())

    def store_path(self, ident: str) -> Path:
        """The directory of a release's store.

        :raises NotFoundError: for an unknown release.
        """
        path = self.release_dir(ident) / "store"
        if live_version(path) is None:
            raise NotFoundError(f"no release {ident!r} in the archive at {self.path}")
        return path

    def release_store(self, ident: str) -> GraphStore:
        """A release's store, read-only (kept open for the next request).

        :raises NotFoundError: for an unknown release.
        """
        with self._lock:
            store = self._stores.get(ident)
            if store is not None:
                self._stores.move_to_end(ident)
                return store
        store = EmbeddedStore(self.store_path(ident), read_only=True)
        with self._lock:
            self._stores[ident] = store
            while len(self._stores) > OPEN_RELEASES:
                # Not closed: a request may still read it; it goes when the last one is done.
                self._stores.popitem(last=False)
        return store

    # -- graph versions ---------------------------------------------------------------------
    def _reader(self) -> sqlite3.Connection:
        path = self.path / "objects.sqlite"
        if not path.is_file():
            raise NotFoundError(f"no release archive at {self.path}")
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)

    def version_quads(self, digest: str) -> list[ox.Quad]:
        """The quads of a graph version, exactly as they were mapped.

        :raises NotFoundError: when the archive does not hold it.
        """
        db = self._db
        if db is not None:
            row = db.execute("SELECT body FROM objects WHERE hash = ?", (digest,)).fetchone()
        else:
            with closing(self._reader()) as reader:
                row = reader.execute(
                    "SELECT body FROM objects WHERE hash = ?", (digest,)
                ).fetchone()
        if row is None:
            raise NotFoundError(f"no graph version {digest} in the archive at {self.path}")
        return list(ox.parse(gzip.decompress(row[0]), ox.RdfFormat.N_QUADS))

    def known_versions(self, schema: str) -> dict[tuple[str, str], str]:
        """(graph, file SHA-256) -> hash of the version that file mapped to under ``schema``,
        for the versions whose content the archive holds."""
        query = (
            "SELECT m.graph, m.file_sha256, m.hash FROM mapped m JOIN objects o "
            "ON o.hash = m.hash WHERE m.schema = ?"
        )
        if self._db is not None:
            rows = self._db.execute(query, (schema,)).fetchall()
        else:
            with closing(self._reader()) as reader:
                rows = reader.execute(query, (schema,)).fetchall()
        return {(graph, sha): digest for graph, sha, digest in rows}

    def add_versions(self, versions: Iterable[StoredVersion]) -> int:
        """Keep graph versions (each content once); returns how many were given."""
        assert self._db is not None, "opened for writing"
        count = 0
        with self._db:
            for v in versions:
                self._db.execute(
                    "INSERT OR IGNORE INTO objects VALUES (?, ?, ?, ?)",
                    (v.hash, v.graph, v.quads, v.body),
                )
                self._db.execute(
                    "INSERT OR REPLACE INTO mapped VALUES (?, ?, ?, ?)",
                    (v.graph, v.file_sha256, v.schema, v.hash),
                )
                count += 1
        return count

    def version_bodies(self, digests: Iterable[str]) -> Iterator[bytes]:
        """The stored (gzip) bodies of graph versions, in the order given."""
        assert self._db is not None, "opened for writing"
        for digest in digests:
            row = self._db.execute("SELECT body FROM objects WHERE hash = ?", (digest,)).fetchone()
            if row is None:
                raise StoreError(f"the archive lost graph version {digest}")
            yield row[0]

    def close(self) -> None:
        with self._lock:
            for store in self._stores.values():
                store.close()
            self._stores.clear()
            if self._index is not None:
                self._index.close()
                self._index = None
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_release_store(archive: Path, ident: str) -> GraphStore:
    """The store of release ``ident``, read-only (close it when done).

    :raises NotFoundError: for a release the archive does not hold.
    """
    return EmbeddedStore(Archive(archive).store_path(ident), read_only=True)


def _chain(releases: list[ReleaseInfo]) -> list[ReleaseInfo]:
    """Releases in the order they revise each other (a release revises the head it found)."""
    after = {r.previous: r for r in releases}
    known = {r.id for r in releases}
    ordered: list[ReleaseInfo] = []
    current = next((r for r in releases if r.previous is None or r.previous not in known), None)
    while current is not None and current not in ordered:
        ordered.append(current)
        current = after.get(current.id)
    # Anything off the chain (not expected): by date, after it.
    ordered += sorted((r for r in releases if r not in ordered), key=lambda r: (r.issued, r.id))
    return ordered
