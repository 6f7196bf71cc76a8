"""Loading: validate a batch of data files, then write it to the store in one atomic step.

A batch with one invalid file writes nothing. Reloading a file replaces its graph;
loading a directory also drops the graphs of files that were loaded from under it
before and are gone now. A system graph (the load manifest) remembers which file each
graph came from and that file's SHA-256; it is written in the same step as the data.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pyoxigraph as ox
from rdflib import Graph, URIRef

from .config import Settings
from .datafiles import find_data_files
from .errors import InvalidDataError
from .mapping import MappedFile
from .namespaces import KG, RDF
from .rdfterms import to_quads
from .resources import resource_dir
from .sparql import internal_query
from .store import GraphStore, open_store
from .validation import map_files, validate_mapped

MANIFEST_GRAPH = "urn:x-claimgraph:load-manifest"
ONTOLOGY_GRAPHS = "https://w3id.org/claimgraph/ontology/"
_XSD_STRING = ox.NamedNode("http://www.w3.org/2001/XMLSchema#string")

Progress = Callable[[Iterable[Path]], Iterable[Path]]


@dataclass
class LoadReport:
    """What a load did."""

    files: int = 0
    triples: int = 0
    removed: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        removed = f", removed {len(self.removed)} graph(s) of deleted files" if self.removed else ""
        return (f"loaded {self.files} file(s), {self.triples} triples{removed} "
                f"in {self.seconds:.2f} s")


@dataclass(frozen=True)
class ManifestEntry:
    file: str
    sha256: str


def load_paths(
    store: GraphStore, paths: Iterable[Path], base: str, progress: Progress | None = None,
) -> LoadReport:
    """Validate every data file under ``paths`` and load them in one atomic step.

    :raises InvalidDataError: naming every problem; the store is left as it was.
    :raises UsageError: when a path does not exist.
    """
    started = time.perf_counter()
    paths = list(paths)
    files = find_data_files(paths)
    mapped, problems = map_files(progress(files) if progress else files, base)
    digests = {m.file.path: hashlib.sha256(m.file.path.read_bytes()).hexdigest() for m in mapped}

    manifest = read_manifest(store)
    batch = {str(m.graph) for m in mapped}
    directories = [p.resolve() for p in paths if p.is_dir()]
    removed = sorted(
        graph for graph, entry in manifest.items()
        if graph not in batch and any(Path(entry.file).is_relative_to(d) for d in directories)
    )
    context = store_context(store, mapped, exclude=batch | set(removed))
    try:
        validate_mapped(mapped, context)
    except InvalidDataError as exc:
        problems.extend(exc.problems)
    if problems:
        raise InvalidDataError(problems, consequence="nothing was loaded; the store is unchanged")

    graphs: dict[str, list[ox.Quad]] = {
        str(m.graph): list(to_quads(m.triples, str(m.graph))) for m in mapped
    }
    graphs.update(ontology_graphs())
    for graph in (*batch, *removed):
        manifest.pop(graph, None)
    for m in mapped:
        manifest[str(m.graph)] = ManifestEntry(str(m.file.path.resolve()), digests[m.file.path])
    graphs[MANIFEST_GRAPH] = manifest_quads(manifest)
    store.replace_graphs(graphs, removed)

    return LoadReport(
        files=len(mapped),
        triples=sum(len(m.triples) for m in mapped),
        removed=removed,
        seconds=time.perf_counter() - started,
    )


def read_manifest(store: GraphStore) -> dict[str, ManifestEntry]:
    """Which file each data graph in the store was loaded from."""
    return {
        row["graph"].value: ManifestEntry(row["file"].value, row["sha256"].value)
        for row in store.query(internal_query("load-manifest").text)
    }


def manifest_quads(manifest: dict[str, ManifestEntry]) -> list[ox.Quad]:
    graph = ox.NamedNode(MANIFEST_GRAPH)
    quads = []
    for name, entry in sorted(manifest.items()):
        node = ox.NamedNode(name)
        quads.append(ox.Quad(node, ox.NamedNode(str(KG.sourceFile)), ox.Literal(entry.file), graph))
        quads.append(ox.Quad(node, ox.NamedNode(str(KG.fileSha256)), ox.Literal(entry.sha256),
                             graph))
    return quads


@cache
def _ontology_files() -> tuple[tuple[str, str], ...]:
    return tuple(
        (f"{ONTOLOGY_GRAPHS}{path.stem}", path.read_text(encoding="utf-8"))
        for path in sorted(resource_dir("ontology").glob("*.ttl"))
    )


def ontology_graphs() -> dict[str, list[ox.Quad]]:
    """The ontology, vocabularies and unit table, one graph per file, so queries see labels."""
    graphs = {}
    for name, text in _ontology_files():
        graph = ox.NamedNode(name)
        graphs[name] = [
            ox.Quad(t.subject, t.predicate, t.object, graph)
            for t in ox.parse(text.encode(), ox.RdfFormat.TURTLE)
        ]
    return graphs


def store_context(store: GraphStore, mapped: list[MappedFile], exclude: set[str]) -> Graph:
    """The types the store gives the nodes ``mapped`` refers to but does not define.

    Graphs in ``exclude`` (those being replaced or removed) do not count.
    """
    defined = {s for m in mapped for s, _, _ in m.triples}
    referenced = {
        o for m in mapped for _, p, o in m.triples
        if isinstance(o, URIRef) and p != RDF.type and o not in defined
    }
    query = internal_query("types-of").text
    context = Graph()
    for node in referenced:
        for row in store.query(query, {"node": ox.NamedNode(str(node))}):
            if row["graph"].value not in exclude:
                context.add((node, RDF.type, URIRef(row["type"].value)))
    return context


def ensure_loaded(settings: Settings, progress: Progress | None = None) -> LoadReport | None:
    """Create and fill the store from the data directory when it has never been loaded.

    :raises InvalidDataError: when the bundled data is invalid (nothing is written).
    """
    if settings.store.is_dir():
        with open_store(settings, read_only=True) as store:
            if read_manifest(store):
                return None
    with open_store(settings) as store:
        return load_paths(store, [settings.data], settings.base, progress)
