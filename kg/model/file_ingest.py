"""Ingesting one data file, as far as it can be alone (in a worker process for a large
batch): read, parse, map and validate it, and send back as plain data its N-Quads, what
its graphs count, and what needs other files (its nodes' types, its class checks on
values defined elsewhere, the triples the SHACL-SPARQL constraints read)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from rdflib import URIRef

from ..errors import InvalidDataError, KeptAsWritten, Problem
from ..rdf.linksets import count_links
from ..rdf.namespaces import RDF
from ..rdf.terms import nquads
from ..rdf.vocabulary import load_terms
from .datafiles import ManifestEntry, read_data_file, size_limit
from .mapping import intended_iris
from .shacl import Index
from .validation import Translator, engine, map_fitted

_RDF_TYPE = {RDF.type}  # a set: a membership test is a hash, not rdflib's __eq__


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
    #: The distinct (value, shape) of its obligations, and the IRIs it types (where the
    #: caller keeps them), once the batch has taken them (and dropped :attr:`types` and
    #: :attr:`obligations`).
    needs: tuple[tuple[str, str], ...] = ()
    nodes: tuple[str, ...] = ()
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
        raw = path.read_bytes() if stat.st_size <= size_limit(path) else None
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
