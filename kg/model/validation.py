"""Validation: read and map data files, run the SHACL shapes, report problems in file terms.

The shapes are the single definition of validity; this module only runs them and
translates each SHACL result back to the file, record and YAML field it concerns,
with the value as it was written.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import cast

from rdflib import BNode, Graph, URIRef
from rdflib.term import Node as Term

from ..errors import InvalidDataError, KeptAsWritten, Problem
from ..rdf.namespaces import RDF, SH, SKOS
from ..rdf.terms import parse_turtle
from ..rdf.vocabulary import load_terms
from ..resources import resource_dir
from .cascades import without_cascades
from .datafiles import DataFile, display_name, find_data_files, read_data_file
from .mapping import MappedFile, intended_iris, map_file
from .shacl import Deferred, Engine, Index, Result


@cache
def shapes_graph() -> Graph:
    """Every Turtle file of ``shapes/``, parsed once."""
    return parse_turtle(sorted(resource_dir("shapes").glob("*.ttl")))


def map_paths(paths: Iterable[Path], base: str) -> list[MappedFile]:
    """Read and map every data file under ``paths``.

    :raises InvalidDataError: with every problem of every file (not just the first).
    :raises UsageError: when a path does not exist.
    """
    mapped, problems, _ = map_files(find_data_files(paths), base)
    if problems:
        raise InvalidDataError(problems)
    return mapped


def duplicate_ids(files: Iterable[tuple[str, str, str]]) -> list[Problem]:
    """Two files that define the same thing (the same graph IRI) are an error in the later one.

    ``files`` are (graph IRI, file name, label) triples.
    """
    first: dict[str, str] = {}
    problems = []
    for graph, name, label in files:
        if str(graph) in first:
            problems.append(
                Problem(name, label, "id", f"the id is already used by {first[str(graph)]}")
            )
        else:
            first[str(graph)] = name
    return problems


@cache
def engine() -> Engine:
    """The shapes compiled for the fast engine (once per process)."""
    return Engine(shapes_graph(), load_terms().graph)


@dataclass
class Fitted:
    """A file mapped, its values that do not fit kept as written; for a kept upstream file
    the SHACL results that need no other file, and the class checks left for later, of the
    mapping that stands (None: not validated yet)."""

    mapped: MappedFile
    results: list[Result] | None = None
    deferred: list[Deferred] = field(default_factory=list)
    kept_as_written: list[KeptAsWritten] = field(default_factory=list)


def map_fitted(datafile: DataFile, base: str) -> Fitted:
    """Map ``datafile``; for a kept upstream file, validate it, and map it again where the
    shapes refuse values the file gives (a result with a value at a JSON Pointer), those
    values kept as written (``kg:UpstreamValue``): the shapes alone say what fits. What
    they refuse otherwise (a required field) stays a problem of the file. Every reader of
    a kept file's graphs maps it through here, so they all get the same.

    :raises InvalidDataError: as :func:`map_file`.
    """
    mapped = map_file(datafile, base)
    if datafile.upstream is None:
        return Fitted(mapped)
    results, deferred = _local_results(mapped)
    odd: dict[tuple[str, str, str], KeptAsWritten] = {}
    for r, (pointer, raw, message) in _refused_values(mapped, results):
        label = mapped.origins.labels.get(r.focus, mapped.label)
        odd[(str(r.focus), str(r.path), pointer)] = KeptAsWritten(
            mapped.file.name, label, pointer, raw, _local_name(r.path), message
        )
    if not odd:
        return Fitted(mapped, results, deferred)
    fitted = map_file(datafile, base, as_written=frozenset(odd))
    fitted_results, fitted_deferred = _local_results(fitted)
    # A value its field cannot do without (a score beyond the store's decimals) is no
    # value to keep as written: the file cannot be mapped, and says why as it was.
    required = {
        (str(r.focus), str(r.path))
        for r in fitted_results
        if r.component == "MinCountConstraintComponent" and r.path is not None
    }
    if any(key[:2] in required for key in odd):
        return Fitted(mapped, results, deferred)
    kept = sorted(odd.values(), key=lambda k: k.pointer)
    return Fitted(fitted, fitted_results, fitted_deferred, kept)


def refused_fields(path: Path, raw: bytes, base: str) -> dict[str, tuple[str, str]]:
    """The fields of the data file ``raw`` (read as if at ``path``) whose values the shapes
    refuse on the file alone: field -> (the value as written, what the shapes say).

    :raises InvalidDataError: for a file that cannot be mapped.
    """
    mapped = map_file(read_data_file(path, raw), base)
    results, _ = _local_results(mapped)
    return {
        where: (value, message) for _, (where, value, message) in _refused_values(mapped, results)
    }


def _refused_values(
    mapped: MappedFile, results: list[Result]
) -> Iterator[tuple[Result, tuple[str, str, str]]]:
    """The results about a value the file gives, each with where it is (a JSON Pointer or
    YAML field), the value as written, and what the shapes say of it."""
    for r in results:
        if r.value is None or r.path is None:
            continue
        where = mapped.origins.values.get((r.focus, r.path, r.value))
        if where is not None:
            yield r, (where[0], where[1], _shape_message(r))


def _shape_message(r: Result) -> str:
    """What a shape says of a value it refuses: its sh:message, else the type it wants."""
    shapes = shapes_graph()
    message = shapes.value(r.shape, SH.message)
    datatype = shapes.value(r.shape, SH.datatype)
    if message is not None:
        return str(message)
    if r.component == "DatatypeConstraintComponent" and datatype is not None:
        return f"not of type {_local_name(datatype)}"
    return "does not conform"


def _local_results(mapped: MappedFile) -> tuple[list[Result], list[Deferred]]:
    """What the shapes say of one file alone (class checks on other files' nodes deferred,
    the SHACL-SPARQL constraints left to the batch)."""
    index = Index()
    index.add_all(mapped.triples)
    deferred: list[Deferred] = []
    results = engine().validate(index, set(mapped.origins.nodes), deferred, sparql=False)
    return results, deferred


def shacl_results(
    mapped: list[MappedFile],
    context: Graph | None = None,
    *,
    reference: bool = False,
) -> list[Result]:
    """The raw SHACL results for the nodes of ``mapped``."""
    owned = {node for m in mapped for node in m.origins.nodes}
    if not reference:
        index = Index()
        for m in mapped:
            index.add_all(m.triples)
        if context is not None:
            # An RDF graph's predicates are IRIs (rdflib types every position as Node).
            index.add_all(cast("Iterable[tuple[Term, URIRef, Term]]", context))
        return engine().validate(index, owned)
    from pyshacl import validate as shacl_validate  # the reference: imported only when used

    from .shacl.reference import prepared_queries  # rdflib's SPARQL engine: 0.3 s to import

    # An ill-typed literal ("2026-13-45T...") is a user error the shapes report; rdflib
    # would also log a traceback for it.
    logging.getLogger("rdflib.term").setLevel(logging.ERROR)
    data = Graph()
    for m in mapped:
        for triple in m.triples:
            data.add(triple)
    data += load_terms().graph
    if context is not None:
        data += context
    with prepared_queries():
        conforms, report, _ = shacl_validate(
            data,
            shacl_graph=shapes_graph(),
            inference="none",
            advanced=True,
            allow_warnings=True,
        )
    if conforms:
        return []
    results = []
    for result in report.subjects(RDF.type, SH.ValidationResult):
        focus = report.value(result, SH.focusNode)
        if focus not in owned:
            continue
        results.append(
            Result(
                focus=focus,
                path=_uri(report.value(result, SH.resultPath)),
                value=report.value(result, SH.value),
                component=_local_name(report.value(result, SH.sourceConstraintComponent)),
                shape=report.value(result, SH.sourceShape),
                message=str(report.value(result, SH.resultMessage) or ""),
            )
        )
    return results


def validate_with_pyshacl(
    paths: Iterable[Path],
    base: str,
    context: Iterable[Path] = (),
    progress: Callable[[Iterable[Path], int], Iterable[Path]] | None = None,
) -> list[MappedFile]:
    """Validate the data files under ``paths`` with pyshacl, the reference SHACL
    implementation, instead of the compiled engine: the same shapes over the whole batch
    at once, problems named the same way (file, record, field, value as written), found
    independently, a cross-check of the engine ``kg load`` runs, and much slower.
    References may also resolve against the files under ``context``, whose own problems
    are not reported.

    :raises InvalidDataError: naming every problem, by file, record and field.
    :raises UsageError: when a path does not exist.
    """
    files = find_data_files(paths)
    chosen = {f.resolve() for f in files}
    extra = [f for f in find_data_files(context) if f.resolve() not in chosen] if context else []
    everything = files + extra
    mapped, problems, failed = map_files(
        progress(everything, len(everything)) if progress else everything, base
    )
    # As the compiled engine does, a reference to what a failed file was meant to define
    # is not reported again: the file's own problem is the one to fix.
    results = [
        r
        for r in shacl_results(mapped, reference=True)
        if r.value is None or str(r.value) not in failed
    ]
    problems += Translator(mapped, load_terms().graph).problems(_without_cascades(mapped, results))
    mine = {display_name(f) for f in files}
    problems = [p for p in problems if p.file in mine]
    if problems:
        raise InvalidDataError(problems)
    return [m for m in mapped if m.file.path.resolve() in chosen]


def _without_cascades(mapped: list[MappedFile], results: list[Result]) -> list[Result]:
    """``results`` less the consequences of another file's problem, as the compiled
    engine leaves them out (:mod:`kg.model.cascades`)."""
    file_of = {node: m.file.name for m in mapped for node in m.origins.nodes}
    found: dict[str, list[Result]] = {}
    for r in results:
        found.setdefault(file_of.get(r.focus, ""), []).append(r)
    refers = {
        m.file.name: {file_of[o] for _, _, o in m.triples if isinstance(o, URIRef) and o in file_of}
        for m in mapped
        if m.file.name in found
    }
    kept = without_cascades(
        found, refers, joins=lambda r: r.component == "SPARQLConstraintComponent"
    )
    return [r for rs in kept.values() for r in rs]


def map_files(
    files: Iterable[Path],
    base: str,
) -> tuple[list[MappedFile], list[Problem], set[str]]:
    """Map what can be mapped; return the mapped files, the problems of the others and the
    IRIs those others were meant to define."""
    mapped: list[MappedFile] = []
    problems: list[Problem] = []
    failed: set[str] = set()
    for path in files:
        datafile = None
        try:
            datafile = read_data_file(path)
            mapped.append(map_fitted(datafile, base).mapped)
        except InvalidDataError as exc:
            problems.extend(exc.problems)
            failed.update(intended_iris(path, datafile, base))
    problems.extend(
        duplicate_ids(
            [(graph, m.file.name, label) for m in mapped for graph, label, _ in m.graphs()]
        )
    )
    return mapped, problems, failed


class Translator:
    """Turns a SHACL report into problems named by file, record and YAML field."""

    def __init__(self, mapped: list[MappedFile], terms: Graph):
        self.terms = terms
        self.owner: dict[Term, MappedFile] = {}
        for m in mapped:
            for node in m.origins.nodes:
                self.owner.setdefault(node, m)

    def problems(self, results: Iterable[Result]) -> list[Problem]:
        out = []
        for r in results:
            owner = self.owner.get(r.focus)
            if owner is None:
                continue  # a node of the context (another file, the store), not ours to report
            field, message = self._describe(owner, r)
            label = owner.origins.labels.get(r.focus, owner.label)
            out.append(Problem(owner.file.name, label, field, message))
        return out

    def _describe(self, owner: MappedFile, r: Result) -> tuple[str, str]:
        origins = owner.origins
        field = origins.fields.get((r.focus, r.path)) if r.path is not None else None
        if field is None:
            node_path = origins.nodes.get(r.focus, "")
            suffix = _local_name(r.path) if r.path is not None else ""
            field = ".".join(p for p in (node_path, suffix) if p)
        component = r.component
        if component == "MinCountConstraintComponent":
            return field, "missing (required)"
        if component == "MaxCountConstraintComponent":
            return field, "given more than once (one value allowed)"
        raw = None
        if r.value is not None and r.path is not None:
            where = origins.values.get((r.focus, r.path, r.value))
            if where is not None:
                field, raw = where
        # The shape's own sh:message, the same whichever engine ran it (SPARQL messages are
        # templates filled by the engine).
        message = (
            r.message
            if component == "SPARQLConstraintComponent"
            else str(shapes_graph().value(r.shape, SH.message) or "") or "does not conform"
        )
        if component == "NodeConstraintComponent":
            members = self._scheme_members(r.shape)
            if members:
                message += " (one of: " + ", ".join(members) + ")"
        if raw is None and r.value is not None and not isinstance(r.value, BNode):
            raw = str(r.value)
        if raw and component != "SPARQLConstraintComponent":
            message += f" ({raw!r})"
        return field, message

    def _scheme_members(self, shape: Term) -> list[str]:
        """The concepts a 'must be in scheme S' shape allows, by the names files use."""
        shapes = shapes_graph()
        for node_shape in shapes.objects(shape, SH.node):
            for prop in shapes.objects(node_shape, SH.property):
                if shapes.value(prop, SH.path) == SKOS.inScheme:
                    scheme = shapes.value(prop, SH.hasValue)
                    concepts = self.terms.subjects(SKOS.inScheme, scheme)
                    ordered = sorted(
                        concepts,
                        key=lambda c: (int(str(self.terms.value(c, SKOS.notation) or 0)), str(c)),
                    )
                    return [str(c).rsplit("#", 1)[-1] for c in ordered]
        return []


def _uri(term: Term | None) -> URIRef | None:
    return term if isinstance(term, URIRef) else None


def _local_name(iri: Term | None) -> str:
    text = str(iri or "")
    for sep in ("#", "/"):
        if sep in text:
            text = text.rsplit(sep, 1)[-1]
    return text
