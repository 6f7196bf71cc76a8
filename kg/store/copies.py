"""A second copy of each named graph an embedded store's writes give it, as N-Quads text,
which a record's page reads the graphs it wants whole from.

Reading a graph from the store's indexes decodes every term through its dictionary, a
random read each: 0.75 ms for a record's graph at 100,000 records, against 0.31 ms for
the same graph from its copy (bench/graph_copies.py). So each write keeps what it wrote::

    .kg/store/
      copies.sqlite                          every copy (zlib), by the SHA-256 of its text
      v-1764491234567890123.copies.sqlite    which copy each graph of that version has

A copy is exactly the quads the store gives back for the graph, though not in the store's
order: literals as the store keeps them (by value: "8.3750"^^xsd:decimal reads "8.375"),
blank nodes by label (the embedded store keeps the labels it is given). So only readers
that do not depend on the order read copies (``GraphStore.graph_quads``).

The copies are shared by the versions: a write adds only the graphs it writes. A
version's map is a copy of its predecessor's with the written graphs' rows changed,
renamed into place before the version goes live, and never changed after. A graph a
write merges into content it did not drop first, or whose quads come in pieces, gets no
row, nor does one of a version written before copies: a graph without a row is read from
the store's indexes. Copies that no remaining version names are collected with the
versions (:func:`collect`).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, suppress
from pathlib import Path

import pyoxigraph as ox

from .sidefiles import rewritten, unfinished

COPIES = "copies.sqlite"
NQUADS = ox.RdfFormat.N_QUADS
XSD_STRING = ox.NamedNode("http://www.w3.org/2001/XMLSchema#string")
PROBE = ox.NamedNode("urn:x:value")
#: zlib's fastest level: a graph's copy is 3.6 KiB, made in 0.2 ms (bench/graph_copies.py).
LEVEL = 1


def map_path(version: Path) -> Path:
    """The file that says which copy each graph of ``version`` has."""
    return version.with_name(version.name + ".copies.sqlite")


def remove_map(version: Path) -> None:
    """Remove the map of a version, and a half-written one."""
    map_path(version).unlink(missing_ok=True)
    unfinished(map_path(version)).unlink(missing_ok=True)


def _connect_copies(root: Path) -> sqlite3.Connection:
    db = sqlite3.connect(root / COPIES, isolation_level=None, check_same_thread=False)
    # Readers read while the one writer adds: write-ahead logging keeps them apart.
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("CREATE TABLE IF NOT EXISTS copy (sha256 TEXT PRIMARY KEY, body BLOB)")
    return db


class CopyWriter:
    """The copies one write makes, written as its quads go by (:meth:`passing`).

    Nothing is visible before :meth:`finish`: the copies go into one open transaction of
    the shared table, committed only then, and the version's map is a private file until
    it is renamed. :meth:`abort` (or a crash, which SQLite rolls back) leaves no trace.
    """

    def __init__(self, root: Path, previous: Path | None):
        self._root = root
        self._previous = previous
        self._db = _connect_copies(root)
        self._db.execute("BEGIN")
        #: graph -> SHA-256 of its copy, or None: no copy (read from the store)
        self._rows: dict[str, str | None] = {}
        self._dropped: set[str] = set()
        self._seen: set[str] = set()  # graphs content came in for since they were dropped
        # literals whose stored form is known; those the store changes -> as it keeps them
        self._checked: set[ox.Literal] = set()
        self._changed: dict[ox.Literal, ox.Literal] = {}

    def dropped(self, graphs: Iterable[str]) -> None:
        """``graphs`` were dropped: their old copies go, and content that comes in for them
        after this is all they hold."""
        for name in graphs:
            self._dropped.add(name)
            self._seen.discard(name)
            self._rows[name] = None

    def passing(
        self, quads: Iterable[ox.Quad], existed: Callable[[str], bool]
    ) -> Iterator[ox.Quad]:
        """``quads`` as they go into the version, a copy made of each named graph among
        them. ``existed`` says whether the version holds a graph, asked before the first
        of its quads goes in, of a graph not dropped first: its content is then merged,
        and it gets no copy."""
        current: object = None
        run: list[ox.Quad] | None = None  # None: this graph gets no copy
        for quad in quads:
            graph = quad.graph_name
            if graph != current:
                self._copy(current, run)
                current, run = graph, self._start(graph, existed)
            if run is not None:
                run.append(quad)
            yield quad
        self._copy(current, run)

    def _start(self, graph: object, existed: Callable[[str], bool]) -> list[ox.Quad] | None:
        if not isinstance(graph, ox.NamedNode):
            return None
        name = graph.value
        if name in self._seen or (name not in self._dropped and existed(name)):
            self._rows[name] = None  # in pieces, or merged: the store has it right
            return None
        self._seen.add(name)
        return []

    def _copy(self, graph: object, run: list[ox.Quad] | None) -> None:
        if run is None or not isinstance(graph, ox.NamedNode):
            return
        text = ox.serialize(self._as_stored(run), format=NQUADS)
        assert text is not None  # no output given: the bytes come back
        sha = hashlib.sha256(text).hexdigest()
        self._db.execute(
            "INSERT OR IGNORE INTO copy VALUES (?, ?)", (sha, zlib.compress(text, LEVEL))
        )
        self._rows[graph.value] = sha

    def _as_stored(self, run: list[ox.Quad]) -> list[ox.Quad]:
        """``run`` as the store gives it back, which is not always as it came: a store keeps
        a typed literal by its value ("8.3750"^^xsd:decimal reads "8.375"; "16" of
        xsd:nonNegativeInteger reads as an xsd:integer). A store in memory keeps literals
        exactly as one on disk, so the literals it might change go through one: only
        those, since other terms come back as they went in. (Through it whole, a graph
        costs twice as much: 0.34 against 0.19 ms for a record.)"""
        checked, changed = self._checked, self._changed
        odd = {
            q.object
            for q in run
            if isinstance(q.object, ox.Literal)
            and q.object.datatype != XSD_STRING
            and q.object not in checked
        }
        if odd:
            if len(checked) > 100_000:  # a bound on what is remembered, not on what works
                checked.clear()
                changed.clear()
            probe, given = ox.Store(), list(odd)
            probe.extend(
                ox.Quad(ox.NamedNode(f"urn:x:{i}"), PROBE, literal)
                for i, literal in enumerate(given)
            )
            for quad in probe:
                literal = given[int(quad.subject.value.removeprefix("urn:x:"))]
                checked.add(literal)
                if quad.object != literal:
                    changed[literal] = quad.object
        if not changed or not any(q.object in changed for q in run):
            return run
        return [
            ox.Quad(q.subject, q.predicate, changed[q.object], q.graph_name)
            if isinstance(q.object, ox.Literal) and q.object in changed
            else q
            for q in run
        ]

    def finish(self, version: Path) -> None:
        """Commit the copies and write ``version``'s map (before it goes live)."""
        self._db.execute("COMMIT")
        self._db.close()
        with rewritten(
            map_path(version), map_path(self._previous) if self._previous is not None else None
        ) as (db, _copied):
            db.execute(
                "CREATE TABLE IF NOT EXISTS graph (name TEXT PRIMARY KEY, sha256 TEXT NOT NULL)"
            )
            db.execute("BEGIN")
            db.executemany(
                "DELETE FROM graph WHERE name = ?",
                [(name,) for name, sha in self._rows.items() if sha is None],
            )
            db.executemany(
                "INSERT OR REPLACE INTO graph VALUES (?, ?)",
                [(name, sha) for name, sha in self._rows.items() if sha],
            )
            db.execute("COMMIT")

    def abort(self) -> None:
        """Give up: no copy of this write is kept."""
        with suppress(sqlite3.Error):  # already committed, or closed
            self._db.execute("ROLLBACK")
        self._db.close()


class CopyReader:
    """The copies of one version's graphs, for a read-only handle on it (any thread).

    A version without a map (written before copies, or in a directory this process may
    not write), or a copy that cannot be read, gives None: read the store instead.
    """

    def __init__(self, root: Path, version: Path):
        self._root = root
        self._version = version
        self._local = threading.local()
        self._present = map_path(version).exists() and (root / COPIES).exists()

    def graph(self, name: str) -> list[ox.Quad] | None:
        """The quads of graph ``name`` from its copy, or None where it has none."""
        if not self._present:
            return None
        try:
            body = (
                self._connection()
                .execute(
                    "SELECT body FROM found.graph JOIN copy USING (sha256) WHERE name = ?", (name,)
                )
                .fetchone()
            )
            if body is None:
                return None
            return list(ox.parse(zlib.decompress(body[0]), format=NQUADS))
        except (sqlite3.Error, zlib.error, OSError, SyntaxError):
            self._present = False
            return None

    def _connection(self) -> sqlite3.Connection:
        # One a thread, and none carried into a forked child (a server's workers).
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            local.db = sqlite3.connect(
                f"file:{self._root / COPIES}?mode=ro", uri=True, check_same_thread=False
            )
            # The map never changes once it exists: SQLite need not lock it.
            local.db.execute(
                "ATTACH ? AS found", (f"file:{map_path(self._version)}?mode=ro&immutable=1",)
            )
            local.pid = os.getpid()
        return local.db


def collect(root: Path) -> int:
    """Delete the copies no version on disk names (the versions just pruned named them,
    or a write that died between its commit and its map did); the number deleted."""
    if not (root / COPIES).exists():
        return 0
    named: set[str] = set()
    for path in root.glob("v-*.copies.sqlite"):
        with closing(sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)) as found:
            named.update(sha for (sha,) in found.execute("SELECT sha256 FROM graph"))
    with closing(_connect_copies(root)) as db:
        # The key's index alone is read: the copies themselves are not.
        orphans = [(sha,) for (sha,) in db.execute("SELECT sha256 FROM copy") if sha not in named]
        if orphans:
            db.execute("BEGIN")
            db.executemany("DELETE FROM copy WHERE sha256 = ?", orphans)
            db.execute("COMMIT")
    return len(orphans)


class NoCopies:
    """What a write into memory keeps of its graphs: nothing (the store is read directly)."""

    def dropped(self, graphs: Iterable[str]) -> None:
        pass

    def passing(
        self, quads: Iterable[ox.Quad], existed: Callable[[str], bool]
    ) -> Iterable[ox.Quad]:
        return quads
