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
from functools import cache
from pathlib import Path

import pyoxigraph as ox

from .config import Settings
from .datafiles import find_data_files
from .errors import InvalidDataError
from .ingest import Progress, ingest
from .resources import resource_dir
from .sparql import internal_query
from .store import GraphStore, open_store
from .store.base import Manifest, ManifestEntry

ONTOLOGY_GRAPHS = "https://w3id.org/claimgraph/ontology/"
#: The manifest entry that records which shapes and ontology the data was validated with.
SCHEMA_ENTRY = "urn:x-claimgraph:schema"


@dataclass
class LoadReport:
    """What a load did."""

    files: int = 0
    changed: int = 0
    triples: int = 0
    removed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    peak_memory_mb: float = 0.0

    def summary(self) -> str:
        removed = f", removed {len(self.removed)} graph(s) of deleted files" if self.removed else ""
        unchanged = self.files - self.changed
        skipped = f" ({unchanged} unchanged)" if unchanged else ""
        rate = (f", {self.changed / self.seconds:,.0f} files/s"
                if self.changed and self.seconds else "")
        return (f"loaded {self.changed} of {self.files} file(s){skipped}, {self.triples} triples"
                f"{removed} in {self.seconds:.2f} s{rate}, peak memory "
                f"{self.peak_memory_mb:,.0f} MB")


def load_paths(
    store: GraphStore, paths: Iterable[Path], base: str, progress: Progress | None = None,
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


def _load(store: GraphStore, paths: list[Path], base: str, progress: Progress | None,
          force: bool, started: float) -> LoadReport:
    files = find_data_files(paths)
    manifest = store.manifest()
    schema = schema_hash()
    same_schema = manifest.get(SCHEMA_ENTRY, ManifestEntry("", "")).sha256 == schema
    by_file = {entry.file: graph for graph, entry in manifest.items() if graph != SCHEMA_ENTRY}
    changed = [f for f in files if force or not same_schema or not _unchanged(f, manifest, by_file)]

    present = {os.path.abspath(f) for f in files}
    directories = [Path(os.path.abspath(p)) for p in paths if p.is_dir()]
    removed = sorted(
        graph for graph, entry in manifest.items()
        if graph != SCHEMA_ENTRY and entry.file not in present
        and any(Path(entry.file).is_relative_to(d) for d in directories)
    )
    replaced = {by_file[os.path.abspath(f)] for f in changed if os.path.abspath(f) in by_file}

    def external_types(nodes: set[str]) -> dict[str, set[str]]:
        return store_types(store, nodes, exclude=replaced | set(removed))

    # The content goes to a spool file as it is made, never all into memory.
    with tempfile.NamedTemporaryFile(prefix="kg-load-", suffix=".nq",
                                     dir=store.spool_dir()) as spool:
        outcomes, problems = ingest(changed, base, external_types, progress, spool)
        # Files not in the batch that point at a node the batch removes (a deleted source,
        # an artifact whose hash changed) are validated again, in the same batch.
        dependents = _dependents(store, removed, replaced, outcomes, by_file,
                                 {os.path.abspath(f) for f in changed})
        if dependents:
            more, more_problems = ingest(dependents, base, external_types, spool=spool)
            outcomes += more
            problems += more_problems
        if problems:
            raise InvalidDataError(problems,
                                   consequence="nothing was loaded; the store is unchanged")

        graphs = {o.graph for o in outcomes}
        stale = sorted(replaced - graphs)  # a graph whose file now names another id
        for graph in (*removed, *stale):
            manifest.pop(graph, None)
        for o in outcomes:
            assert o.entry is not None
            manifest[o.graph] = o.entry
        if not same_schema:
            spool.write(ontology_nquads())
            graphs |= ontology_graph_names()
        manifest[SCHEMA_ENTRY] = ManifestEntry("shapes/ and ontology/", schema)
        if outcomes or removed or stale or not same_schema:
            spool.flush()
            store.load_nquads(Path(spool.name), graphs, [*removed, *stale], manifest)

    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    return LoadReport(
        files=len(files), changed=len(outcomes), triples=sum(o.triples for o in outcomes),
        removed=removed, seconds=time.perf_counter() - started, peak_memory_mb=peak,
    )


def _unchanged(path: Path, manifest: Manifest, by_file: dict[str, str]) -> bool:
    """Unchanged when size and modification time match; a hash settles a touched file."""
    key = os.path.abspath(path)
    graph = by_file.get(key)
    if graph is None:
        return False
    entry = manifest[graph]
    stat = path.stat()
    if stat.st_size != entry.size:
        return False
    if stat.st_mtime_ns == entry.mtime_ns:
        return True
    return hashlib.sha256(path.read_bytes()).hexdigest() == entry.sha256


def _dependents(store: GraphStore, removed: list[str], replaced: set[str], outcomes,
                by_file: dict[str, str], batch: set[str]) -> list[Path]:
    """Unchanged files that refer to a node which the batch removes."""
    old_nodes: set[str] = set()
    query = internal_query("graph-subjects").text
    for graph in (*removed, *replaced):
        old_nodes |= {row["node"].value
                      for row in store.query(query, {"graph": ox.NamedNode(graph)})}
    new_nodes = {node for o in outcomes for node, _ in o.types}
    vanished = old_nodes - new_nodes
    if not vanished:
        return []
    gone = set(removed) | replaced
    file_of = {graph: file for file, graph in by_file.items()}
    referrers = internal_query("referrers").text
    files = set()
    for node in vanished:
        for row in store.query(referrers, {"target": ox.NamedNode(node)}):
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
        for row in store.query(query, {"node": term}):
            if row["graph"].value not in exclude:
                found.setdefault(node, set()).add(row["type"].value)
    return found


@cache
def _ontology_files() -> tuple[tuple[str, bytes], ...]:
    return tuple((f"{ONTOLOGY_GRAPHS}{path.stem}", path.read_bytes())
                 for path in sorted(resource_dir("ontology").glob("*.ttl")))


def ontology_graph_names() -> set[str]:
    return {name for name, _ in _ontology_files()}


def ontology_nquads() -> bytes:
    """The ontology, vocabularies and unit table, one graph per file, so queries see labels."""
    quads = []
    for name, text in _ontology_files():
        graph = ox.NamedNode(name)
        quads += [ox.Quad(t.subject, t.predicate, t.object, graph)
                  for t in ox.parse(text, ox.RdfFormat.TURTLE)]
    return ox.serialize(quads, format=ox.RdfFormat.N_QUADS)


@cache
def schema_hash() -> str:
    """One hash over the shapes and the ontology: data validated under others is revalidated."""
    digest = hashlib.sha256()
    for directory in ("shapes", "ontology"):
        for path in sorted(resource_dir(directory).glob("*")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def ensure_loaded(settings: Settings, progress: Progress | None = None) -> LoadReport | None:
    """Create and fill the store from the data directory when it has never been loaded.

    :raises InvalidDataError: when the bundled data is invalid (nothing is written).
    """
    from .store.embedded import live_version

    if live_version(settings.store) is not None:
        return None
    with open_store(settings) as store:
        return load_paths(store, [settings.data], settings.base, progress)
