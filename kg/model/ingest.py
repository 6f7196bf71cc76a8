"""Ingest: data files to validated N-Quads, on every core.

Each file is read, parsed, mapped and validated on its own (in worker processes for
large batches): everything SHACL checks within one file is decided there, and the
results are turned into problems in terms of the file while its origins are at hand.
What needs other files is sent back as plain data and decided once all files are in:

- class checks on values defined elsewhere (a record's source, a review's agent) come
  back as *obligations*, each with the problem it would be, decided against the types
  every file declares (and, for a partial load, what the store holds);
- the SHACL-SPARQL constraints (which join across files) run once over the triples
  they name, collected from every file.

The content comes back as N-Quads, ready for a bulk load.
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pyoxigraph as ox
from rdflib import URIRef

from ..errors import InvalidDataError, KeptAsWritten, Problem
from ..rdf.linksets import count_links
from ..rdf.namespaces import RDF
from ..rdf.terms import nquads, to_ox
from ..rdf.vocabulary import load_terms
from .cascades import without_cascades
from .datafiles import (
    MAX_READ_BYTES,
    ManifestEntry,
    display_name,
    find_data_files,
    read_data_file,
)
from .mapping import intended_iris
from .shacl import Deferred, Index
from .validation import Translator, duplicate_ids, engine, map_fitted

_IRI = re.compile(rb"<[^>]*>")
_RDF_TYPE = {RDF.type}  # a set: a membership test is a hash, not rdflib's __eq__

#: Below this many files, starting worker processes costs more than it saves.
PARALLEL_FROM = 300
#: At most this many worker processes validate a batch.
MAX_WORKERS = 8


def worker_count() -> int:
    """How many processes validate a large batch: one per core, at most MAX_WORKERS."""
    return min(os.cpu_count() or 1, MAX_WORKERS)


@dataclass
class Obligation:
    """A deferred class check: on ``value`` at ``focus``/``path``, by the shape ``shape``."""

    focus: str
    path: str
    value: str
    shape: str


@dataclass
class FileOutcome:
    """One file, ingested: plain data, so that it crosses process boundaries cheaply."""

    path: str
    #: The file's main graph ("" when it failed to read or map).
    graph: str = ""
    #: Every graph the file holds, with the label messages give it (a YAML file: one).
    graphs: list[tuple[str, str]] = field(default_factory=list)
    #: The triples of each graph of :attr:`graphs`, whether it types its own name, and its
    #: links to other sites (kg.rdf.linksets).
    graph_triples: dict[str, tuple[int, bool, str]] = field(default_factory=dict)
    nquads: bytes = b""
    triples: int = 0
    types: list[tuple[str, str]] = field(default_factory=list)
    sparql_quads: bytes = b""
    obligations: list[Obligation] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    entry: ManifestEntry | None = None
    label: str = ""
    name: str = ""
    kind: str = ""
    #: For a file with problems of its own: the IRIs it was meant to define.
    intended: list[str] = field(default_factory=list)
    #: A kept upstream file's values that do not fit their typed fields, kept as written.
    kept_as_written: list[KeptAsWritten] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.graph)


def ingest_file(job: tuple[Path, str]) -> FileOutcome:
    """Read, map and validate one file as far as it can be alone."""
    path, base = job
    outcome = FileOutcome(path=str(path))
    datafile = None
    try:
        stat = path.stat()
        # A file too large to be a data file is refused before it is read.
        raw = path.read_bytes() if stat.st_size <= MAX_READ_BYTES else None
        datafile = read_data_file(path, raw)
        fitted = map_fitted(datafile, base)
    except InvalidDataError as exc:
        outcome.problems = exc.problems
        outcome.intended = intended_iris(path, datafile, base)
        return outcome
    eng = engine()
    mapped, results, deferred = fitted.mapped, fitted.results, fitted.deferred
    if results is None:  # a kept file's are known already (its values that do not fit)
        index = Index()
        index.add_all(mapped.triples)
        results = eng.validate(index, set(mapped.origins.nodes), deferred, sparql=False)
    outcome.kept_as_written = fitted.kept_as_written
    translator = Translator([mapped], load_terms().graph)
    outcome.problems = translator.problems(results)
    if outcome.problems:
        outcome.intended = intended_iris(path, datafile, base)
    # Decided later; a failure (rare) maps the file again to say which field is wrong.
    outcome.obligations = [
        Obligation(str(d.focus), str(d.path), str(d.value), str(d.constraints.shape))
        for d in deferred
    ]
    triples = mapped.triples
    outcome.graph = str(mapped.graph)
    outcome.label, outcome.name, outcome.kind = mapped.label, datafile.name, datafile.kind
    chunks, count = [], 0
    for graph, label, graph_triples in mapped.graphs():
        outcome.graphs.append((str(graph), label))
        chunk, n = nquads(graph_triples, str(graph))
        outcome.graph_triples[str(graph)] = (
            n,
            any(s == graph and p in _RDF_TYPE for s, p, _ in graph_triples),
            count_links(graph_triples, base),
        )
        chunks.append(chunk)
        count += n
    outcome.nquads, outcome.triples = b"".join(chunks), count
    outcome.types = [
        (str(s), str(o))
        for s, p, o in triples  # blank nodes stay
        if p in _RDF_TYPE and isinstance(s, URIRef)
    ]
    outcome.sparql_quads, _ = nquads([t for t in triples if t[1] in eng.sparql_predicates], None)
    outcome.entry = ManifestEntry(
        os.path.abspath(path),
        hashlib.sha256(raw or b"").hexdigest(),
        stat.st_size,
        stat.st_mtime_ns,
    )
    return outcome


class Sink(Protocol):
    """Where N-Quads go as files come in (an open binary file, or chunks of one)."""

    def write(self, data: bytes, /) -> int: ...


Progress = Callable[[Iterable[FileOutcome], int], Iterable[FileOutcome]]


def ingest(
    files: list[Path],
    base: str,
    external_types: Callable[[set[str]], dict[str, set[str]]] | None = None,
    progress: Progress | None = None,
    spool: Sink | None = None,
) -> tuple[list[FileOutcome], list[Problem]]:
    """Ingest ``files``; return the outcomes of those that mapped, and every problem.

    ``external_types`` gives the types of IRIs no file of the batch defines (what a
    store already holds); without it such references are unresolved. With ``spool``,
    each file's N-Quads are written there as it comes in (and not kept), so a large
    batch never holds all its content in memory.
    """
    eng = engine()  # compiled before the workers fork, so they share it
    # A batch keeps millions of small objects alive; the cyclic garbage collector would
    # walk them all again and again (quadratic at 100k files). Nothing here makes cycles.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _ingest(files, base, eng, external_types, progress, spool)
    finally:
        if collecting:
            gc.enable()


def _ingest(files, base, eng, external_types, progress, spool):
    jobs = [(path, base) for path in files]
    workers = worker_count()
    if len(jobs) >= PARALLEL_FROM and workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            stream: Iterator[FileOutcome] = pool.imap(ingest_file, jobs, chunksize=64)
            outcomes = list(_spooled(progress(stream, len(jobs)) if progress else stream, spool))
    else:
        stream = (ingest_file(job) for job in jobs)
        outcomes = list(_spooled(progress(stream, len(jobs)) if progress else stream, spool))
    problems = [p for o in outcomes for p in o.problems]
    good = [o for o in outcomes if o.ok]
    problems += duplicate_ids((graph, o.name, label) for o in good for graph, label in o.graphs)

    types: dict[str, set[str]] = defaultdict(set)
    owner: dict[str, FileOutcome] = {}
    for o in good:
        for node, cls in o.types:
            types[node].add(cls)
            owner.setdefault(node, o)
    # A reference to what a failed file was meant to define is not reported again: the
    # file's own problem is the one to fix (and fails the batch already).
    failed_nodes = {iri for o in outcomes for iri in o.intended}
    unknown = {
        ob.value
        for o in good
        for ob in o.obligations
        if ob.value not in types and ob.value not in failed_nodes
    }
    external = external_types(unknown) if unknown and external_types is not None else {}
    for node, classes in external.items():
        types[node] |= classes

    shapes = {str(k): c for k, c in eng._compiled.items()}
    decided: dict[tuple[str, str], list[str]] = {}  # many files refer to the same few nodes
    for o in good:
        failed = []
        for ob in o.obligations:
            if ob.value in failed_nodes and ob.value not in types:
                continue
            key = (ob.value, ob.shape)
            components = decided.get(key)
            if components is None or components:
                item = Deferred(
                    URIRef(ob.focus), URIRef(ob.path), URIRef(ob.value), shapes[ob.shape]
                )
                if components is None:
                    components = decided[key] = eng.check_deferred(
                        item, [URIRef(t) for t in types[ob.value]]
                    )
                failed += [item.result(component) for component in components]
        if failed:
            problems += _translate(o, failed, base)
    problems += _sparql_problems(good, types, owner, base, external)
    return good, problems


def _spooled(outcomes: Iterable[FileOutcome], spool: Sink | None) -> Iterable[FileOutcome]:
    for outcome in outcomes:
        if spool is not None:
            spool.write(outcome.nquads)
            outcome.nquads = b""
        yield outcome


def _sparql_problems(
    good: list[FileOutcome],
    types: dict[str, set[str]],
    owner: dict[str, FileOutcome],
    base: str,
    external: dict[str, set[str]],
) -> list[Problem]:
    eng = engine()
    focus_by_shape: dict = {}
    for shape in eng.node_shapes:
        if shape.sparql:
            classes = {str(c) for t in shape.targets for c in eng._subclasses(t)}
            focus = {URIRef(n) for n, cs in types.items() if cs & classes}
            if focus:
                focus_by_shape[shape.shape] = focus
    if not focus_by_shape:
        return []
    store = ox.Store()
    # The triples the constraints name (rdf:type included), from every file of the batch.
    store.bulk_load(b"".join(o.sparql_quads for o in good), format=ox.RdfFormat.N_QUADS)
    extra = [(s, p, o) for s, p, o in load_terms().graph if p in eng.sparql_predicates]
    extra += [
        (URIRef(node), RDF.type, URIRef(cls))
        for node, classes in external.items()
        for cls in classes
    ]
    store.extend(
        ox.Quad(to_ox(s), to_ox(p), to_ox(o), ox.DefaultGraph())  # type: ignore[arg-type]
        for s, p, o in extra
    )

    remapped: dict[str, Index] = {}

    def file_index(node) -> tuple[FileOutcome | None, Index]:
        outcome = owner.get(str(node))
        if outcome is None:
            return None, Index()
        if outcome.path not in remapped:  # rare: only for a violation
            index = Index()
            index.add_all(map_fitted(read_data_file(Path(outcome.path)), base).mapped.triples)
            remapped[outcome.path] = index
        return outcome, remapped[outcome.path]

    def written(node, predicate):
        _, index = file_index(node)
        return list(index.spo.get(node, {}).get(predicate, ()))

    by_path = {o.path: o for o in good}
    found: dict[str, tuple[FileOutcome, list]] = {}
    for result in eng.sparql_results(store, focus_by_shape, written):
        outcome, _ = file_index(result.focus)
        if outcome is not None:
            found.setdefault(outcome.path, (outcome, []))[1].append(result)
    own = {o.path for o in good if o.problems}  # files failing on their own already
    refers = {
        path: {owner[n].path for n in _iris(by_path[path]) if n in owner}
        for path in own | set(found)
    }
    kept = without_cascades(
        {path: r for path, (_, r) in found.items()}, refers, joins=lambda _: True, troubled=own
    )
    return [p for path, results in kept.items() for p in _translate(found[path][0], results, base)]


def _iris(outcome: FileOutcome) -> set[str]:
    """The IRIs the triples a file gives the SPARQL constraints name."""
    return {m[1:-1].decode() for m in _IRI.findall(outcome.sparql_quads)}


def _translate(outcome: FileOutcome, results: list, base: str) -> list[Problem]:
    """Results about one file in terms of the file: map it again for its origins."""
    mapped = map_fitted(read_data_file(Path(outcome.path)), base).mapped
    return Translator([mapped], load_terms().graph).problems(results)


def validate_files(
    paths: Iterable[Path],
    base: str,
    context: Iterable[Path] = (),
    progress: Progress | None = None,
) -> list[FileOutcome]:
    """Validate the data files under ``paths``; references may also resolve against the
    files under ``context`` (whose own problems are not reported).

    :raises InvalidDataError: naming every problem, by file, record and field.
    :raises UsageError: when a path does not exist.
    """
    files = find_data_files(paths)
    chosen = {f.resolve() for f in files}
    extra = [f for f in find_data_files(context) if f.resolve() not in chosen] if context else []
    outcomes, problems = ingest(files + extra, base, progress=progress)
    names = {o.name for o in outcomes if Path(o.path).resolve() in chosen}
    mine = {display_name(f) for f in files}
    problems = [p for p in problems if p.file in mine or p.file in names]
    if problems:
        raise InvalidDataError(problems)
    return [o for o in outcomes if Path(o.path).resolve() in chosen]
