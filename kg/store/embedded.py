"""The embedded store: pyoxigraph on disk, in immutable versions switched atomically.

A write never touches the live version: it checkpoints it into a new version (hard
links, milliseconds), changes that one (dropping the graphs, then adding their quads in
one transaction for small batches, bulk for large ones), then repoints ``live`` with one
atomic rename. A crash leaves ``live`` on the old version; readers that opened it keep a
consistent snapshot; the next reader (or a server checking ``live``) sees the new one.
The next writer removes what a crashed one left (its unfinished version and spool).
The directory's layout, and the versions' life on disk: :mod:`.versions`; each
version's load manifest: :mod:`.manifests`; the text copy of each graph written, which
:meth:`graph_quads` reads (a record's page): :mod:`.copies`. A write keeps the blank-node
labels it is given (the mapping makes them unique to their graph), so a copy holds the
store's own quads.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import pyoxigraph as ox

from ..errors import QueryError, StoreError
from ..rdf.terms import bulk_extend
from .base import (
    GraphStore,
    Manifest,
    QueryResult,
    StagedWrite,
    Term,
    nquads_of,
    union_default,
)
from .copies import CopyReader, CopyWriter, NoCopies
from .index import usable, version_index, write_index
from .index.update import update_index
from .manifests import read_manifest, write_manifest
from .staged_version import StagedVersion, compact, drop, holds
from .versions import (
    KEEP_VERSIONS,
    LIVE,
    Lease,
    leased_live_version,
    live_version,
    new_version,
    prune,
    remove_leftovers,
    remove_version,
    switch_live,
)

__all__ = ["BULK_THRESHOLD", "KEEP_VERSIONS", "LIVE", "LOCK", "EmbeddedStore", "live_version"]

LOCK = "write.lock"
#: Above this many quads a write bulk-loads instead of adding in one transaction.
BULK_THRESHOLD = 20_000


class EmbeddedStore(GraphStore):
    """A pyoxigraph store in a directory (or in memory when ``path`` is None).

    Opened read-only it is a snapshot of the live version. Opened for writing it holds
    the store's write lock until closed; each :meth:`replace_graphs` makes a new version.
    """

    def __init__(self, path: Path | None, *, read_only: bool = False):
        self.path = path
        self._lock_file = None
        #: The version directory this handle reads (None: in memory, or never written).
        self.version_dir: Path | None = None
        self._manifest: Manifest | None = None
        self._writes = 0
        self._lease: Lease | None = None
        self._copies: CopyReader | None = None
        if path is None:
            self._store = ox.Store()
            self._manifest = {}
            return
        if read_only:
            version, self._lease = leased_live_version(path)
            self._store = self._open(version, read_only=True)
            self.version_dir = version
            self._copies = CopyReader(path, version)
            return
        path.mkdir(parents=True, exist_ok=True)
        self._lock_file = (path / LOCK).open("w")
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock_file.close()
            self._lock_file = None
            raise StoreError(
                f"the store at {path} is open for writing in another process "
                "(one writer at a time); stop it or wait"
            ) from None
        self.version_dir = live_version(path)
        remove_leftovers(path, self.version_dir)
        self._store = (
            self._open(self.version_dir, read_only=True) if self.version_dir else ox.Store()
        )
        if self.version_dir is not None:
            self._copies = CopyReader(path, self.version_dir)

    @staticmethod
    def _open(version: Path, read_only: bool) -> ox.Store:
        try:
            return ox.Store.read_only(str(version)) if read_only else ox.Store(str(version))
        except OSError as exc:
            raise StoreError(f"cannot open the store version {version}: {exc}") from None

    def query(self, sparql: str, bindings: Mapping[str, Term] | None = None) -> QueryResult:
        substitutions: dict[ox.Variable, Term | ox.Triple] = {
            ox.Variable(k): v for k, v in (bindings or {}).items()
        }
        try:
            return self._store.query(
                sparql,
                use_default_graph_as_union=union_default(sparql),
                substitutions=substitutions or None,
            )
        except SyntaxError as exc:
            raise QueryError(f"not a valid SPARQL query: {exc}") from None
        except (RuntimeError, ValueError) as exc:
            raise QueryError(f"the query cannot be run: {exc}") from None

    def version(self) -> str | None:
        if self.path is None:
            return f"memory-{self._writes}"
        return self.version_dir.name if self.version_dir else None

    def published_version(self) -> str | None:
        if self.path is None:
            return self.version()
        live = live_version(self.path)
        return live.name if live else None

    def kept_index(self) -> Path | None:
        if self.version_dir is None:
            return None
        path = version_index(self.version_dir)
        return path if path.exists() else None

    def ensure_index(self) -> None:
        kept = self.kept_index()
        if self._lock_file and self.version_dir is not None and (kept is None or not usable(kept)):
            self._write_index(self.version_dir)

    @property
    def persistent(self) -> bool:
        return self.path is not None

    @property
    def reads_in_process(self) -> bool:
        return True

    def manifest(self) -> Manifest:
        if self._manifest is None:
            self._manifest = read_manifest(self.version_dir) if self.version_dir else {}
        return dict(self._manifest)

    def replace_graphs(
        self,
        graphs: Mapping[str, Iterable[ox.Quad]],
        remove: Iterable[str] = (),
        manifest: Manifest | None = None,
    ) -> None:
        content = {name: list(quads) for name, quads in graphs.items()}
        remove = list(remove)
        total = sum(len(q) for q in content.values())

        def write(writer: ox.Store, copies: CopyWriter | NoCopies) -> None:
            # Private until the switch (or in memory, never shared while written), so the
            # drops need no transaction with what comes in.
            drop(writer, copies, {*content, *remove})
            quads = copies.passing((q for quads in content.values() for q in quads), holds(writer))
            if total > BULK_THRESHOLD:
                bulk_extend(writer, quads)
                compact(writer)
            else:
                writer.extend(quads)  # one transaction; keeps blank-node labels, as bulk does

        self._new_version(write, manifest, {*content, *remove})

    def load_nquads(
        self,
        nquads: Path | Sequence[Path],
        graphs: Iterable[str],
        remove: Iterable[str] = (),
        manifest: Manifest | None = None,
        consume: bool = False,
    ) -> None:
        graphs, remove = list(graphs), list(remove)
        files = [nquads] if isinstance(nquads, Path) else list(nquads)
        if self.path is None or sum(f.stat().st_size for f in files) < 200 * BULK_THRESHOLD:
            super().load_nquads(files, graphs, remove, manifest, consume)
            return

        def write(writer: ox.Store, copies: CopyWriter | NoCopies) -> None:
            drop(writer, copies, {*graphs, *remove})
            bulk_extend(writer, copies.passing(nquads_of(files, consume), holds(writer)))
            compact(writer)

        self._new_version(write, manifest, {*graphs, *remove})

    def staged_write(self) -> StagedWrite:
        if self.path is None:
            return super().staged_write()
        return StagedVersion(self)

    def _new_version(self, write, manifest: Manifest | None, changed: set[str]) -> None:
        """Checkpoint the live version, ``write`` into the copy, switch ``live`` to it."""
        self._writes += 1
        if self.path is None:  # in memory: in place (no other handle reads it)
            write(self._store, NoCopies())
            if manifest is not None:
                self._manifest = dict(manifest)
            return
        new, writer, copies = self._begin_version()
        with self._discarded_on_error(new, copies):
            write(writer, copies)
            writer.flush()
            del writer  # closed before the version is opened for reading
        self._finish_version(new, manifest, copies, changed)

    def _begin_version(self) -> tuple[Path, ox.Store, CopyWriter]:
        """A new version: a checkpoint of the live one (or empty), open for writing, and
        the copies of what will be written into it."""
        if self._lock_file is None or self.path is None:
            raise StoreError("the store was opened read-only")
        new = new_version(self.path)
        with self._discarded_on_error(new, None):
            if self.version_dir is not None:
                self._store.backup(str(new))  # a checkpoint: hard links, no copy
            writer = self._open(new, read_only=False)
            return new, writer, CopyWriter(self.path, self.version_dir)

    @contextmanager
    def _discarded_on_error(self, new: Path, copies: CopyWriter | None) -> Iterator[None]:
        """A version that could not be made whole is removed, with its copies; it was
        never live."""
        try:
            yield
        except BaseException as exc:
            if copies is not None:
                copies.abort()
            remove_version(new)
            # a full disk shows as either: the store's files or its copies' SQLite
            if isinstance(exc, OSError | sqlite3.Error):
                raise StoreError(f"cannot write the store at {self.path}: {exc}") from None
            raise

    def _finish_version(
        self, new: Path, manifest: Manifest | None, copies: CopyWriter, changed: set[str]
    ) -> None:
        """Give ``new`` (written, flushed and closed) its manifest and its map of copies,
        then make it live."""
        assert self.path is not None
        with self._discarded_on_error(new, copies):
            previous = (self.version_dir, self.manifest()) if self.version_dir is not None else None
            write_manifest(new, manifest if manifest is not None else self.manifest(), previous)
            copies.finish(new)
            self._write_index(new, changed)
        switch_live(self.path, new)
        self.version_dir = new
        self._store = self._open(new, read_only=True)
        self._copies = CopyReader(self.path, new)
        self._manifest = dict(manifest) if manifest is not None else None
        prune(self.path, keep={new})

    def _write_index(self, new: Path, changed: set[str] | None = None) -> None:
        """Write the index of ``new`` (written and closed, not yet live) beside it, the
        live version's updated for the graphs ``changed`` where it can be: the pair goes
        live together (kg.store.index)."""
        assert self.path is not None
        reader = EmbeddedStore(None)
        reader.path, reader.version_dir = self.path, new
        reader._store = self._open(new, read_only=True)
        reader._copies = CopyReader(self.path, new)
        try:
            if changed is None or self.version_dir is None or self.version_dir == new:
                write_index(reader, version_index(new), new.name)
            else:  # this handle still reads the version the write started from
                previous = version_index(self.version_dir)
                update_index(reader, self, previous, changed, version_index(new), new.name)
        finally:
            reader._store = None  # type: ignore[assignment]

    def spool_dir(self) -> Path | None:
        # Beside the versions: a spool a killed writer leaves is removed by the next one.
        return self.path

    def snapshot(self, target: Path) -> bool:
        if self.path is None or self.version_dir is None:
            return False
        # A checkpoint of this version: hard links to its immutable files, milliseconds.
        version = new_version(target)
        target.mkdir(parents=True, exist_ok=True)
        try:
            self._store.backup(str(version))
            write_manifest(version, self.manifest(), None)
            if (kept := self.kept_index()) is not None:
                os.link(kept, version_index(version))
        except OSError as exc:
            remove_version(version)
            raise StoreError(f"cannot copy the store to {target}: {exc}") from None
        switch_live(target, version)
        return True

    def named_graphs(self) -> set[str]:
        return {g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode)}

    def quads(self, graphs: Iterable[str] | None = None) -> Iterator[ox.Quad]:
        if graphs is None:
            yield from self._store.quads_for_pattern(None, None, None, None)
            return
        for name in graphs:
            yield from self._store.quads_for_pattern(None, None, None, ox.NamedNode(name))

    def graph_quads(self, graphs: Iterable[str]) -> Iterator[ox.Quad]:
        for name in graphs:
            copy = self._copies.graph(name) if self._copies is not None else None
            if copy is None:
                yield from self._store.quads_for_pattern(None, None, None, ox.NamedNode(name))
            else:
                yield from copy

    def close(self) -> None:
        # pyoxigraph releases a handle when it is garbage collected.
        self._store = None  # type: ignore[assignment]
        if self._lease is not None:
            self._lease.release()
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None
