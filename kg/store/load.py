"""Loading: validate a batch of data files, then write it to the store in one atomic step.

A batch with one invalid file writes nothing. Reloading a file replaces its graph;
loading a directory also drops the graphs of files that were loaded from under it
before and are gone now. The store's load manifest remembers, for each graph, the file
it came from with its size, modification time and SHA-256: a file that has not changed
is neither validated nor written again, so changing one record of many reloads in
moments. A change of the shapes or the ontology revalidates everything.
"""

from __future__ import annotations

import gc
import hashlib
import os
import resource
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import pyoxigraph as ox

from ..config import Settings
from ..errors import InvalidDataError, KeptAsWritten, Problem, StoreError
from ..kinds import data_directory
from ..malloc import give_back_free_pages
from ..model.datafiles import display_name, scan_data_files
from ..model.ingest import Progress, ingest, worker_count
from . import GraphStore, open_store, published_version
from .base import SCHEMA_ENTRY, Manifest, ManifestEntry, StagedWrite, solutions
from .figures import FIGURES_GRAPH, Figures, count_missing
from .ontology_graphs import ontology_graph_names, ontology_nquads, schema_hash
from .queries import internal_query

#: A batch of at least this many changed files is written while it is being validated,
#: where a core is left for the writer (see staging()).
STAGE_FROM = 300
#: ... and, without a core to spare for the writer, fewer than this many.
STAGE_UP_TO = 50_000
#: The size of the spool files a staged write loads one by one.
CHUNK_BYTES = 64 << 20


@dataclass
class LoadReport:
    """What a load did."""

    files: int = 0
    changed: int = 0
    triples: int = 0
    removed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    peak_memory_mb: float = 0.0
    #: The values of the kept upstream files loaded that do not fit their typed fields.
    kept_as_written: list[KeptAsWritten] = field(default_factory=list)

    def summary(self) -> str:
        removed = f", removed {len(self.removed)} graph(s) of deleted files" if self.removed else ""
        if self.kept_as_written:
            removed += f", {len(self.kept_as_written)} upstream value(s) kept as written"
        unchanged = self.files - self.changed
        skipped = f" ({unchanged} unchanged)" if unchanged else ""
        rate = (
            f", {self.changed / self.seconds:,.0f} files/s" if self.changed and self.seconds else ""
        )
        return (
            f"loaded {self.changed} of {self.files} file(s){skipped}, {self.triples} triples"
            f"{removed} in {self.seconds:.2f} s{rate}, peak memory "
            f"{self.peak_memory_mb:,.0f} MB"
        )


def load_paths(
    store: GraphStore,
    paths: Iterable[Path],
    base: str,
    progress: Progress | None = None,
    force: bool = False,
) -> LoadReport:
    """Validate every changed data file under ``paths`` and load them in one atomic step.

    :raises InvalidDataError: naming every problem; the store is left as it was.
    :raises UsageError: when a path does not exist.
    """
    started = time.perf_counter()
    collecting = gc.isenabled()
    gc.disable()  # see ingest(): many small objects, no cycles
    try:
        return _load(store, list(paths), base, progress, force, started)
    finally:
        if collecting:
            gc.enable()


def _load(
    store: GraphStore,
    paths: list[Path],
    base: str,
    progress: Progress | None,
    force: bool,
    started: float,
) -> LoadReport:
    files = scan_data_files(paths)
    manifest = store.manifest()
    schema = schema_hash()
    same_schema = manifest.get(SCHEMA_ENTRY, ManifestEntry("", "")).sha256 == schema
    # One pass over the manifest, one over the files, no objects per file: at 100,000
    # files this bookkeeping is most of a one-record reload.
    directories = tuple(os.path.join(os.path.abspath(p), "") for p in paths if p.is_dir())
    by_file: dict[str, list[str]] = {}  # a kept upstream file holds several graphs
    known: dict[str, tuple[int, int]] = {}
    removed = []
    for graph, entry in manifest.items():
        if graph == SCHEMA_ENTRY:
            continue
        by_file.setdefault(entry.file, []).append(graph)
        known[entry.file] = (entry.size, entry.mtime_ns)
        if entry.file not in files and entry.file.startswith(directories):
            removed.append(graph)
    removed.sort()
    if force or not same_schema:
        names = sorted(files)
    else:
        names = sorted(
            path
            for path, stat in files.items()
            if known.get(path) != stat and not _same_bytes(path, stat, manifest, by_file)
        )
    names = _with_standing(names, files)
    replaced = {g for f in names for g in by_file.get(f, ())}
    changed = [Path(f) for f in names]
    batch = {str(f) for f in changed}

    def external_types(nodes: set[str]) -> dict[str, set[str]]:
        return store_types(store, nodes, exclude=replaced | set(removed))

    # The content goes to spool files as it is made, never all into memory. A large batch
    # is written while it is still being validated: each full chunk goes into the store's
    # private new version at once, which becomes live only if the batch is valid.
    with tempfile.TemporaryDirectory(prefix="kg-load-", dir=store.spool_dir()) as spool_dir:
        staged = store.staged_write() if staging(len(changed)) else StagedWrite(store)
        spool = _ChunkSpool(Path(spool_dir), staged)
        early = replaced | set(removed)
        try:
            staged.remove(early)
            if not same_schema:
                staged.remove(ontology_graph_names())
                spool.write(ontology_nquads())
            # the nodes each file types, for a batch that leaves other files as they are
            # (what _dependents reads)
            partial = not all(file in batch for file in by_file)
            outcomes, problems = ingest(
                changed, base, external_types, progress, spool, keep_nodes=partial
            )
            problems += _ids_taken(outcomes, manifest, batch, files)
            # Files not in the batch that point at a node the batch removes (a deleted
            # source, an artifact whose hash changed) are validated again, in the batch.
            dependents = _dependents(store, removed, replaced, outcomes, by_file, batch)
            if dependents:
                staged.remove(g for f in dependents for g in by_file.get(str(f), ()))
                more, more_problems = ingest(dependents, base, external_types, spool=spool)
                outcomes += more
                problems += more_problems
            if problems:
                raise InvalidDataError(
                    problems, consequence="nothing was loaded; the store is unchanged"
                )
            graphs = {g for o in outcomes for g, _ in o.graphs}
            # A graph the store holds that nothing dropped before its new content came in
            # (a renamed file loaded on its own): a staged write would merge old and new,
            # so the batch is written again in one step, which drops it first.
            late = {g for g in graphs if g in manifest and g not in early}
            stale = sorted(replaced - graphs)  # a graph whose file now names another id
            for graph in (*removed, *stale):
                manifest.pop(graph, None)
            for o in outcomes:
                assert o.entry is not None
                for graph, _ in o.graphs:
                    triples, node, links = o.graph_triples[graph]
                    manifest[graph] = o.entry._replace(triples=triples, node=node, links=links)
            counted = count_missing(store, manifest, base)
            recounted, manifest = counted is not manifest, counted
            figures = Figures.of(manifest)
            refigured = figures != Figures.read(store, base)
            if refigured:
                staged.remove([FIGURES_GRAPH])
                spool.write(figures.nquads(base))
                graphs.add(FIGURES_GRAPH)
            spool.close()
            give_back_free_pages()  # the ingest's freed blocks, before the bulk loads' peak
            if not same_schema:
                graphs |= ontology_graph_names()
            # Validated under the new shapes only when every loaded file was: a partial load
            # keeps the old mark, so the next full load revalidates the rest.
            if same_schema or all(
                e.file in files for g, e in manifest.items() if g != SCHEMA_ENTRY
            ):
                manifest[SCHEMA_ENTRY] = ManifestEntry("shapes/ and ontology/", schema)
            if not (outcomes or removed or stale or not same_schema or refigured or recounted):
                staged.abort()
                store.ensure_index()  # a version written before indexes were gets its own
            elif late and type(staged) is not StagedWrite:
                staged.abort()
                staged = StagedWrite(store)
                for chunk in spool.chunks:
                    staged.add(chunk)
                staged.commit(graphs, [*removed, *stale], manifest)
            else:
                staged.commit(graphs, stale, manifest)
        except OSError as exc:  # a full disk, a file past its size limit: nothing written
            staged.abort()
            raise StoreError(
                f"cannot load: {exc}; nothing was loaded, the store is unchanged"
            ) from None
        except BaseException:
            staged.abort()
            raise

    peak = (
        max(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
        )
        / 1024
    )
    return LoadReport(
        files=len(files),
        changed=len(outcomes),
        triples=sum(o.triples for o in outcomes),
        removed=removed,
        seconds=time.perf_counter() - started,
        peak_memory_mb=peak,
        kept_as_written=[k for o in outcomes for k in o.kept_as_written],
    )


def staging(changed: int) -> bool:
    """Whether a batch is bulk-loaded chunk by chunk while it is still being validated.
    Each chunk's bulk load sets off RocksDB compactions that grow with what the version
    already holds; on cores the workers need, they cost more than the overlap saves past
    STAGE_UP_TO files (two cores: 10k records 24 s staged against 36 s in one step, 100k
    records 375 s staged against 289 s in one step)."""
    spare_core = (os.cpu_count() or 1) > worker_count()
    return changed >= STAGE_FROM and (spare_core or changed < STAGE_UP_TO)


class _ChunkSpool:
    """Where ingest writes N-Quads: files of about ``CHUNK_BYTES``, each handed to the
    staged write as soon as it is complete."""

    def __init__(self, directory: Path, staged: StagedWrite):
        self._directory = directory
        self._staged = staged
        self.chunks: list[Path] = []
        self._file: BinaryIO | None = None
        self._size = 0

    def write(self, data: bytes) -> int:
        if self._file is None:
            path = self._directory / f"chunk-{len(self.chunks):05d}.nq"
            self.chunks.append(path)
            self._file = path.open("wb")
        self._file.write(data)
        self._size += len(data)
        if self._size >= CHUNK_BYTES:
            self._cut()
        return len(data)

    def _cut(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self._size = 0
            self._staged.add(self.chunks[-1])

    def close(self) -> None:
        self._cut()


def _same_bytes(
    path: str, stat: tuple[int, int], manifest: Manifest, by_file: dict[str, list[str]]
) -> bool:
    """A file with a new modification time but its old size: the hash settles it."""
    graph = next(iter(by_file.get(path, ())), None)
    if graph is None or manifest[graph].size != stat[0]:
        return False
    return hashlib.sha256(Path(path).read_bytes()).hexdigest() == manifest[graph].sha256


def _ids_taken(
    outcomes, manifest: Manifest, batch: set[str], scanned: dict[str, tuple[int, int]]
) -> list[Problem]:
    """A file that names a graph another file of the same data still holds (the same id in
    two files) is refused: it would silently replace the other file's graph. The same
    data: a file this load found, or one in the same folder. A copy of the data elsewhere
    (another checkout) takes its graphs over, as a move does."""
    problems = []
    for o in outcomes:
        for graph, label in o.graphs:
            owner = manifest.get(graph)
            if (
                owner is None
                or owner.file == o.path
                or owner.file in batch
                or not (
                    owner.file in scanned or os.path.dirname(owner.file) == os.path.dirname(o.path)
                )
                or not os.path.exists(owner.file)
            ):
                continue
            problems.append(
                Problem(
                    o.name,
                    label,
                    "id",
                    f"the id is already used by {display_name(Path(owner.file))}",
                )
            )
    return problems


def _with_standing(changed: list[str], files: dict) -> list[str]:
    """``changed``, with every other standing file when one of them is in it: their shapes
    join them (a cycle of supersessions runs through several files), and they are few."""
    folder = data_directory("standing")
    if not any(os.path.basename(os.path.dirname(f)) == folder for f in changed):
        return changed
    more = [f for f in files if os.path.basename(os.path.dirname(f)) == folder]
    return sorted({*changed, *more})


def _dependents(
    store: GraphStore,
    removed: list[str],
    replaced: set[str],
    outcomes,
    by_file: dict[str, list[str]],
    batch: set[str],
) -> list[Path]:
    """Unchanged files that refer to a node which the batch removes."""
    if all(file in batch for file in by_file):
        return []  # every loaded file is in the batch (a forced or first load): none is left
    old_nodes: set[str] = set()
    query = internal_query("graph-subjects").text
    for graph in (*removed, *replaced):
        old_nodes |= {
            row["node"].value
            for row in solutions(store.query(query, {"graph": ox.NamedNode(graph)}))
        }
    new_nodes = {node for o in outcomes for node in o.nodes}
    gone = set(removed) | replaced
    # A node other graphs still define has not gone (a model or benchmark that many
    # upstream files describe): its referrers need no second look.
    vanished = {
        node for node in old_nodes - new_nodes if not store_types(store, {node}, exclude=gone)
    }
    if not vanished:
        return []
    file_of = {graph: file for file, graphs in by_file.items() for graph in graphs}
    referrers = internal_query("referrers").text
    files = set()
    for node in vanished:
        for row in solutions(store.query(referrers, {"target": ox.NamedNode(node)})):
            graph = row["graph"].value
            file = file_of.get(graph)
            if graph not in gone and file and file not in batch and Path(file).is_file():
                files.add(file)
    return [Path(f) for f in sorted(files)]


def store_types(store: GraphStore, nodes: set[str], exclude: set[str]) -> dict[str, set[str]]:
    """The types the store gives ``nodes``, outside the graphs in ``exclude``."""
    query = internal_query("types-of").text
    found: dict[str, set[str]] = {}
    for node in nodes:
        try:
            term = ox.NamedNode(node)
        except ValueError:
            continue
        for row in solutions(store.query(query, {"node": term})):
            if row["graph"].value not in exclude:
                found.setdefault(node, set()).add(row["type"].value)
    return found


def ensure_loaded(settings: Settings, progress: Progress | None = None) -> LoadReport | None:
    """Create and fill the store from the data directory when it has never been loaded.

    :raises InvalidDataError: when the bundled data is invalid (nothing is written).
    """
    if published_version(settings) is not None:
        return None
    with open_store(settings) as store:
        return load_paths(store, [settings.data], settings.base, progress)
