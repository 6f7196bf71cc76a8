"""What a batch decides once all its files are in: the class checks on values other files
define, and the SHACL-SPARQL constraints, which join across files.

What it keeps of each file as files come in is small (:class:`Gathered`): each node's
types, the file stating it, each file's distinct class checks, and the triples the
constraints read, spooled to disk for a large batch. So a batch's memory grows with its
nodes, not with its files' content.
"""

from __future__ import annotations

import io
import re
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import pyoxigraph as ox
from rdflib import URIRef

from ..errors import Problem
from ..rdf.namespaces import RDF
from ..rdf.terms import to_ox
from ..rdf.vocabulary import load_terms
from .cascades import without_cascades
from .datafiles import read_data_file
from .file_ingest import FileOutcome, Obligation, ingest_file
from .shacl import Deferred, Index
from .validation import Translator, engine, map_fitted

_IRI = re.compile(rb"<[^>]*>")


class Gathered:
    """What a batch keeps of its files as they come in, in little memory: each node's
    types (one shared set per combination of classes), the file stating each node, what
    each file needs of others (its distinct class checks), and the triples the
    SHACL-SPARQL constraints read, spooled to a temporary file for a large batch (kept
    in memory for a small one). A file's own lists are dropped once taken: a failure
    (rare) maps the file again for them."""

    def __init__(self, on_disk: bool):
        self.types: dict[str, frozenset[str]] = {}
        self.owner: dict[str, str] = {}  # node -> the path of the file stating it
        self._sets: dict[frozenset[str], frozenset[str]] = {}
        self._strings: dict[str, str] = {}
        #: one obligation of each (value, shape): what deciding it needs
        self.samples: dict[tuple[str, str], Obligation] = {}
        self._folder = tempfile.TemporaryDirectory(prefix="kg-ingest-") if on_disk else None
        self._sparql: BinaryIO = io.BytesIO()
        if self._folder is not None:  # closed by __exit__
            self._sparql = (Path(self._folder.name) / "sparql.nq").open("w+b")

    def __enter__(self) -> Gathered:
        return self

    def __exit__(self, *exc: object) -> None:
        self._sparql.close()
        if self._folder is not None:
            self._folder.cleanup()

    def classes(self, found: Iterable[str]) -> frozenset[str]:
        key = frozenset(found)
        return self._sets.setdefault(key, key)

    def take(self, outcomes: Iterable[FileOutcome]) -> Iterator[FileOutcome]:
        intern = self._strings.setdefault
        for o in outcomes:
            path = intern(o.path, o.path)
            found: dict[str, set[str]] = defaultdict(set)
            for node, cls in o.types:
                found[node].add(intern(cls, cls))
            nodes = []
            for node, classes in found.items():
                node = intern(node, node)
                nodes.append(node)
                known = self.types.get(node)
                self.types[node] = self.classes(classes if known is None else known | classes)
                self.owner.setdefault(node, path)
            o.nodes = tuple(nodes)
            needs = set()
            for ob in o.obligations:
                key = (intern(ob.value, ob.value), intern(ob.shape, ob.shape))
                self.samples.setdefault(key, ob)
                needs.add(key)
            o.needs = tuple(needs)
            self._sparql.write(o.sparql_quads)
            o.path, o.types, o.obligations, o.sparql_quads = path, [], [], b""
            yield o

    def sparql_store(self) -> ox.Store:
        """A store of the triples the constraints name, from every file of the batch: on
        disk for a large batch."""
        self._sparql.flush()
        if self._folder is None:
            assert isinstance(self._sparql, io.BytesIO)
            store = ox.Store()
            store.bulk_load(self._sparql.getvalue(), format=ox.RdfFormat.N_QUADS)
            return store
        store = ox.Store(str(Path(self._folder.name) / "store"))
        store.bulk_load(
            path=str(Path(self._folder.name) / "sparql.nq"), format=ox.RdfFormat.N_QUADS
        )
        return store


def class_problems(
    good: list[FileOutcome], gathered: Gathered, failed_nodes: set[str], base: str, eng
) -> list[Problem]:
    """The class checks on values other files define, decided once per value and shape
    against every type the batch (and the store) declares."""
    types = gathered.types
    shapes = {str(k): c for k, c in eng._compiled.items()}
    decided: dict[tuple[str, str], list[str]] = {}  # many files refer to the same few nodes
    problems: list[Problem] = []
    for o in good:
        failing = set()
        for key in o.needs:
            value, shape = key
            if value in failed_nodes and value not in types:
                continue
            components = decided.get(key)
            if components is None:
                sample = gathered.samples[key]
                item = Deferred(
                    URIRef(sample.focus), URIRef(sample.path), URIRef(value), shapes[shape]
                )
                components = decided[key] = eng.check_deferred(
                    item, [URIRef(t) for t in types.get(value, ())]
                )
            if components:
                failing.add(key)
        if failing:  # rare: the file's obligations again, each with its focus and path
            failed = [
                Deferred(
                    URIRef(ob.focus), URIRef(ob.path), URIRef(ob.value), shapes[ob.shape]
                ).result(component)
                for ob in ingest_file((Path(o.path), base)).obligations
                if (ob.value, ob.shape) in failing
                for component in decided[(ob.value, ob.shape)]
            ]
            problems += _translate(o, failed, base)
    return problems


def sparql_problems(
    good: list[FileOutcome], gathered: Gathered, base: str, external: dict[str, set[str]]
) -> list[Problem]:
    eng = engine()
    types, owner = gathered.types, gathered.owner
    focus_by_shape: dict = {}
    for shape in eng.node_shapes:
        if shape.sparql:
            classes = {str(c) for t in shape.targets for c in eng._subclasses(t)}
            focus = {URIRef(n) for n, cs in types.items() if not cs.isdisjoint(classes)}
            if focus:
                focus_by_shape[shape.shape] = focus
    if not focus_by_shape:
        return []
    # The triples the constraints name (rdf:type included), from every file of the batch.
    store = gathered.sparql_store()
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
    by_path = {o.path: o for o in good}
    remapped: dict[str, Index] = {}

    def file_index(node) -> tuple[FileOutcome | None, Index]:
        path = owner.get(str(node))
        if path is None or path not in by_path:
            return None, Index()
        if path not in remapped:  # rare: only for a violation
            index = Index()
            index.add_all(map_fitted(read_data_file(Path(path)), base).mapped.triples)
            remapped[path] = index
        return by_path[path], remapped[path]

    def written(node, predicate):
        _, index = file_index(node)
        return list(index.spo.get(node, {}).get(predicate, ()))

    found: dict[str, tuple[FileOutcome, list]] = {}
    for result in eng.sparql_results(store, focus_by_shape, written):
        outcome, _ = file_index(result.focus)
        if outcome is not None:
            found.setdefault(outcome.path, (outcome, []))[1].append(result)
    del store
    own = {o.path for o in good if o.problems}  # files failing on their own already
    refers = {
        path: {owner[n] for n in _iris(path, base) if n in owner} for path in own | set(found)
    }
    kept = without_cascades(
        {path: r for path, (_, r) in found.items()}, refers, joins=lambda _: True, troubled=own
    )
    return [p for path, results in kept.items() for p in _translate(found[path][0], results, base)]


def _iris(path: str, base: str) -> set[str]:
    """The IRIs the triples a file gives the SPARQL constraints name (the file read again:
    only a failing file's are asked for)."""
    quads = ingest_file((Path(path), base)).sparql_quads
    return {m[1:-1].decode() for m in _IRI.findall(quads)}


def _translate(outcome: FileOutcome, results: list, base: str) -> list[Problem]:
    """Results about one file in terms of the file: map it again for its origins."""
    mapped = map_fitted(read_data_file(Path(outcome.path)), base).mapped
    return Translator([mapped], load_terms().graph).problems(results)
