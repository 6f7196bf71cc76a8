"""The engine: compiled shapes run over an index of a batch.

For each node shape, the focus nodes are the batch's instances of its target classes
(and of their subclasses); each property shape's components run on them in a fixed
order, and the SHACL-SPARQL constraints run once for the whole batch (:mod:`.sparql`).
A class check on a value the batch knows nothing of can be deferred to the caller,
which knows the types every file declares (ingest validates file by file).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property
from typing import cast

import pyoxigraph as ox
from rdflib import Graph, URIRef
from rdflib.term import Node as Term

from ...rdf.namespaces import RDF
from .index import Index, Overlay
from .parser import ShapesParser, superclasses
from .results import Deferred, Result
from .shapes import Constraints, NodeShape
from .sparql import run_sparql, sparql_store


class Engine:
    """Shapes compiled for repeated validation."""

    def __init__(self, shapes: Graph, terms: Graph):
        self.shapes = shapes
        self.terms = terms
        parser = ShapesParser(shapes)
        #: Every shape compiled, by its node in the shapes graph (ingest finds a deferred
        #: check's shape here).
        self._compiled: dict[Term, Constraints] = parser.compiled
        self.superclasses = superclasses(terms)
        self.node_shapes = parser.node_shapes()
        self.terms_index = Index()
        # An RDF graph's predicates are IRIs (rdflib types every position as Node).
        self.terms_index.add_all(cast("Iterable[tuple[Term, URIRef, Term]]", terms))

    def validate(
        self,
        data: Index,
        focus_filter: set[Term] | None = None,
        deferred: list[Deferred] | None = None,
        sparql: bool = True,
    ) -> list[Result]:
        """Results for the focus nodes in ``data`` (optionally only those in ``focus_filter``).

        ``data`` must hold the batch and the types of what it refers to; the ontology and
        vocabularies are added here. With ``deferred`` given, a class check on an IRI that
        ``data`` knows nothing about is not decided but appended there, to be decided
        where the types of every file are known (:meth:`check_deferred`); with
        ``sparql=False`` the SHACL-SPARQL constraints are left to the caller.
        """
        index = Overlay(data, self.terms_index)
        results: list[Result] = []
        sparql_jobs = []
        for shape in self.node_shapes:
            focus = self.focus_nodes(shape, data)
            if focus_filter is not None:
                focus &= focus_filter
            for node in sorted(focus, key=str):
                for prop in shape.properties:
                    self._property(index, node, prop, results, deferred)
            if sparql and shape.sparql and focus:
                sparql_jobs.append((shape, focus))
        if sparql_jobs:
            wanted = frozenset().union(*(c.predicates for s, _ in sparql_jobs for c in s.sparql))
            store = sparql_store(index, wanted | {RDF.type})
            for shape, focus in sparql_jobs:
                for constraint in shape.sparql:
                    results += run_sparql(store, index.objects, constraint, focus)
        return results

    def focus_nodes(self, shape: NodeShape, data: Index) -> set[Term]:
        classes = {c for t in shape.targets for c in self._subclasses(t)}
        return {n for c in classes for n in data.instances.get(c, ())}

    def check_deferred(self, item: Deferred, types: Iterable[URIRef]) -> list[str]:
        """Decide a deferred class check, given every type the value has anywhere."""
        tiny = Index()
        for cls in types:
            tiny.add(item.value, RDF.type, cls)
        index = Overlay(tiny, self.terms_index)
        return [
            check.name
            for check in item.constraints.checks
            if check.on_types and check.fails(self, index, item.value)
        ]

    def sparql_results(
        self,
        store: ox.Store,
        focus_by_shape: dict[Term, set[Term]],
        written: Callable[[Term, URIRef], list[Term]],
    ) -> list[Result]:
        """The SHACL-SPARQL constraints over ``store``, for the given focus nodes;
        ``written(node, predicate)`` gives values as the data wrote them (for messages)."""
        results = []
        for shape in self.node_shapes:
            focus = focus_by_shape.get(shape.shape)
            if focus:
                for constraint in shape.sparql:
                    results += run_sparql(store, written, constraint, focus)
        return results

    @cached_property  # the shapes never change; ingest asks once per file
    def sparql_predicates(self) -> frozenset[URIRef]:
        """Every predicate a SHACL-SPARQL constraint names (rdf:type only where one uses
        it: the focus nodes are chosen by type before a query runs)."""
        return frozenset().union(
            *(c.predicates for shape in self.node_shapes for c in shape.sparql)
        )

    def _subclasses(self, cls: URIRef) -> set[URIRef]:
        return {c for c, supers in self.superclasses.items() if cls in supers} | {cls}

    def _property(
        self,
        index: Overlay,
        node: Term,
        c: Constraints,
        out: list[Result],
        deferred: list[Deferred] | None = None,
    ) -> None:
        values = index.objects(node, c.path) if c.path is not None else []
        for count in c.counts:
            if count.fails(values):
                out.append(Result(node, c.path, None, count.name, c.shape, c.message))
        for value in values:
            if (
                deferred is not None
                and isinstance(value, URIRef)
                and c.asks_classes
                and not index.types(value)
            ):
                deferred.append(Deferred(node, c.path, value, c))
                external = True
            else:
                external = False
            for component in self._value_failures(index, value, c, skip_types=external):
                out.append(Result(node, c.path, value, component, c.shape, c.message))

    def _value_failures(
        self,
        index: Overlay,
        value: Term,
        c: Constraints,
        skip_types: bool = False,
    ) -> Iterable[str]:
        """The components ``value`` fails; with ``skip_types``, not those decided by its
        types (sh:class, sh:or)."""
        for check in c.checks:
            if not (skip_types and check.on_types) and check.fails(self, index, value):
                yield check.name

    def conforms(self, index: Overlay, node: Term, c: Constraints) -> bool:
        """Whether ``node`` conforms to the shape ``c`` (used by sh:node and sh:or)."""
        if any(True for _ in self._value_failures(index, node, c)):
            return False
        for prop in c.properties:
            found: list[Result] = []
            self._property(index, node, prop, found)
            if found:
                return False
        return True
