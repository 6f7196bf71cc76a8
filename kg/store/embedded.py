"""The embedded store: pyoxigraph on disk, in immutable versions switched atomically.

Layout of the store directory::

    .kg/store/
      live -> v-1764491234567890123     the version readers open (a symlink)
      v-1764491234567890123/             a pyoxigraph (RocksDB) directory
      write.lock                         held by the one process that writes
      kg-load-*.nq                       a load's spool file, while it runs

A write never touches the live version: it checkpoints it into a new version (hard
links, milliseconds), changes that one (a SPARQL Update for small batches; dropping the
graphs and bulk-loading their quads for large ones), then repoints ``live`` with one
atomic rename. A crash leaves ``live`` on the old version; readers that opened it keep a
consistent snapshot; the next reader (or a server checking ``live``) sees the new one.
The next writer removes what a crashed one left (its unfinished version and spool).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pyoxigraph as ox

from ..errors import QueryError, StoreError
from .base import GraphStore, Manifest, ManifestEntry, QueryResult, Term, insert_data_update

LIVE = "live"
LOCK = "write.lock"
#: Above this many quads a write drops graphs and bulk-loads instead of one SPARQL Update.
BULK_THRESHOLD = 20_000
KEEP_VERSIONS = 2


def live_version(root: Path) -> Path | None:
    """The version directory readers should open, or None for a store never written."""
    link = root / LIVE
    if not link.is_symlink():
        return None
    target = root / os.readlink(link)
    return target if target.is_dir() else None


class EmbeddedStore(GraphStore):
    """A pyoxigraph store in a directory (or in memory when ``path`` is None).

    Opened read-only it is a snapshot of the live version. Opened for writing it holds
    the store's write lock until closed; each :meth:`replace_graphs` makes a new version.
    """

    def __init__(self, path: Path | None, *, read_only: bool = False):
        self.path = path
        self._lock_file = None
        self.version: Path | None = None
        self._manifest: Manifest | None = None
        if path is None:
            self._store = ox.Store()
            self._manifest = {}
            return
        if read_only:
            version = live_version(path)
            if version is None:
                raise StoreError(f"no store at {path} (run 'kg load' to create it)")
            self._store = self._open(version, read_only=True)
            self.version = version
            return
        path.mkdir(parents=True, exist_ok=True)
        self._lock_file = (path / LOCK).open("w")
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock_file.close()
            self._lock_file = None
            raise StoreError(f"the store at {path} is open for writing in another process "
                             "(one writer at a time); stop it or wait") from None
        self.version = live_version(path)
        _remove_leftovers(path, self.version)
        self._store = self._open(self.version, read_only=True) if self.version else ox.Store()

    @staticmethod
    def _open(version: Path, read_only: bool) -> ox.Store:
        try:
            return ox.Store.read_only(str(version)) if read_only else ox.Store(str(version))
        except OSError as exc:
            raise StoreError(f"cannot open the store version {version}: {exc}") from None

    def query(self, sparql: str, bindings: Mapping[str, Term] | None = None) -> QueryResult:
        substitutions = {ox.Variable(k): v for k, v in (bindings or {}).items()}
        try:
            return self._store.query(
                sparql, use_default_graph_as_union=True, substitutions=substitutions or None,
            )
        except SyntaxError as exc:
            raise QueryError(f"not a valid SPARQL query: {exc}") from None
        except (RuntimeError, ValueError) as exc:
            raise QueryError(f"the query cannot be run: {exc}") from None

    def manifest(self) -> Manifest:
        if self._manifest is None:
            self._manifest = _read_manifest(self.version) if self.version else {}
        return dict(self._manifest)

    def replace_graphs(
        self, graphs: Mapping[str, Iterable[ox.Quad]], remove: Iterable[str] = (),
        manifest: Manifest | None = None,
    ) -> None:
        graphs = {name: list(quads) for name, quads in graphs.items()}
        remove = list(remove)
        total = sum(len(q) for q in graphs.values())

        def write(writer: ox.Store) -> None:
            if total > BULK_THRESHOLD:
                # Private until the switch, so non-transactional bulk writes are safe.
                for name in {*graphs, *remove}:
                    graph = ox.NamedNode(name)
                    if writer.contains_named_graph(graph):
                        writer.remove_graph(graph)
                writer.bulk_extend(q for quads in graphs.values() for q in quads)
            else:
                update = insert_data_update(graphs, remove)
                if update:
                    writer.update(update)
        self._new_version(write, manifest)

    def load_nquads(
        self, nquads: Path, graphs: Iterable[str], remove: Iterable[str] = (),
        manifest: Manifest | None = None,
    ) -> None:
        graphs, remove = list(graphs), list(remove)
        if self.path is None or nquads.stat().st_size < 200 * BULK_THRESHOLD:
            super().load_nquads(nquads, graphs, remove, manifest)
            return

        def write(writer: ox.Store) -> None:
            for name in {*graphs, *remove}:
                graph = ox.NamedNode(name)
                if writer.contains_named_graph(graph):  # a first load has nothing to drop
                    writer.remove_graph(graph)
            writer.bulk_load(path=str(nquads), format=ox.RdfFormat.N_QUADS)
        self._new_version(write, manifest)

    def _new_version(self, write, manifest: Manifest | None) -> None:
        """Checkpoint the live version, ``write`` into the copy, switch ``live`` to it."""
        if self.path is None:  # in memory: in place (each write is its own transaction)
            write(self._store)
            if manifest is not None:
                self._manifest = dict(manifest)
            return
        if self._lock_file is None:
            raise StoreError("the store was opened read-only")
        root = self.path
        new = root / f"v-{time.time_ns()}"
        try:
            if self.version is not None:
                self._store.backup(str(new))  # a checkpoint: hard links, no copy
            writer = self._open(new, read_only=False)
            write(writer)
            writer.flush()
            del writer
            _write_manifest(new, manifest if manifest is not None else self.manifest())
        except OSError as exc:
            _remove_version(new)
            raise StoreError(f"cannot write the store at {root}: {exc}") from None
        except BaseException:
            _remove_version(new)
            raise
        _switch(root, new)
        self.version = new
        self._store = self._open(new, read_only=True)
        self._manifest = None
        _prune(root, keep={new})

    def spool_dir(self) -> Path | None:
        # Beside the versions: a spool a killed writer leaves is removed by the next one.
        return self.path

    def named_graphs(self) -> set[str]:
        return {g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode)}

    def quads(self, graphs: Iterable[str] | None = None) -> Iterator[ox.Quad]:
        if graphs is None:
            yield from self._store.quads_for_pattern(None, None, None, None)
            return
        for name in graphs:
            yield from self._store.quads_for_pattern(None, None, None, ox.NamedNode(name))

    def close(self) -> None:
        # pyoxigraph releases a handle when it is garbage collected.
        self._store = None  # type: ignore[assignment]
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None


def _switch(root: Path, version: Path) -> None:
    """Point ``live`` at ``version`` in one atomic rename, durably."""
    temporary = root / f".{LIVE}-{version.name}"
    temporary.unlink(missing_ok=True)
    os.symlink(version.name, temporary)
    os.replace(temporary, root / LIVE)
    directory = os.open(root, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _manifest_path(version: Path) -> Path:
    return version.with_name(version.name + ".manifest.json")


def _read_manifest(version: Path) -> Manifest:
    path = _manifest_path(version)
    if not path.exists():
        return {}
    return {graph: ManifestEntry(**entry) for graph, entry in json.loads(path.read_text()).items()}


def _write_manifest(version: Path, manifest: Manifest) -> None:
    """The load manifest of a version, beside it (written before the version goes live)."""
    path = _manifest_path(version)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps({g: e.__dict__ for g, e in sorted(manifest.items())}))
    with temporary.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def _remove_version(version: Path) -> None:
    shutil.rmtree(version, ignore_errors=True)
    _manifest_path(version).unlink(missing_ok=True)


def _remove_leftovers(root: Path, live: Path | None) -> None:
    """Remove what a writer that died (SIGKILL, power loss) left behind: the version it was
    writing, which never went live, its manifest, its temporary link and its spool file.
    Only the holder of the write lock calls this, and only the lock holder writes, so
    nothing removed here is in use; readers only ever open the live version."""
    def newer(version: Path) -> bool:
        return live is None or _stamp(version) > _stamp(live)

    for version in root.glob("v-*"):
        if version.is_dir() and newer(version):
            _remove_version(version)
    for manifest in root.glob("v-*.manifest.*"):
        if not manifest.with_name(manifest.name.split(".", 1)[0]).is_dir():
            manifest.unlink(missing_ok=True)
    for temporary in (*root.glob(f".{LIVE}-*"), *root.glob("kg-load-*.nq")):
        temporary.unlink(missing_ok=True)


def _stamp(version: Path) -> int:
    """The time a version was made, from its name (v-<nanoseconds>)."""
    try:
        return int(version.name.removeprefix("v-"))
    except ValueError:
        return -1


def _prune(root: Path, keep: set[Path]) -> None:
    """Drop old versions, keeping the newest few (a reader may still hold the previous one;
    its open files stay readable after the unlink in any case)."""
    versions = sorted((p for p in root.glob("v-*") if p.is_dir()), key=_stamp)
    for old in versions[:-KEEP_VERSIONS]:
        if old not in keep:
            _remove_version(old)
