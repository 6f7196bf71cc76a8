"""The ontology, vocabularies and unit table, read once from ``ontology/``."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cache, lru_cache

from rdflib import Graph, URIRef

from ..resources import resource_dir
from .namespaces import KG, KGV, QUDT, RDF, SKOS
from .terms import parse_turtle

#: The ontology's own IRI: its namespace without the "#" (the registry serves it at /ns).
ONTOLOGY = str(KG).rstrip("#")


@dataclass(frozen=True)
class Vocabulary:
    """The project's terms: everything the mapping looks up by name."""

    graph: Graph
    units: dict[str, URIRef]  # unit name as curators write it -> QUDT unit IRI

    def unit(self, name: str) -> URIRef | None:
        return self.units.get(name)

    def classes_of(self, concept: URIRef) -> list[URIRef]:
        """The RDF classes a concept (a document type) implies for the node it types."""
        found = self.graph.objects(concept, KG.impliesClass)
        return sorted(o for o in found if isinstance(o, URIRef))

    def broader(self, local: str) -> str:
        """The local name of the concept ``local`` is narrower than (a check's review method),
        or "" when there is none."""
        value = self.graph.value(KGV[local], SKOS.broader)
        return str(value).removeprefix(str(KGV)) if value is not None else ""


@cache
def ontology_graph() -> Graph:
    """Every Turtle file of ``ontology/`` in one graph (cached: the files do not change while
    we run). It names no term of the closed namespaces: they read their names from it."""
    return parse_turtle(sorted(resource_dir("ontology").glob("*.ttl")))


@cache
def declared_names(namespace: str) -> frozenset[str]:
    """The local names of the terms ``ontology/`` declares (gives a type) in ``namespace``:
    what :class:`kg.rdf.namespaces.ClosedNamespace` accepts."""
    return frozenset(
        str(term)[len(namespace) :]
        for term in ontology_graph().subjects(RDF.type, unique=True)
        if isinstance(term, URIRef) and term.startswith(namespace) and term != namespace
    )


@cache
def load_terms() -> Vocabulary:
    """The ontology with the lookups the mapping needs (cached, as the graph is)."""
    graph = ontology_graph()
    units = {
        str(name): unit
        for unit in graph.subjects(RDF.type, QUDT.Unit)
        if isinstance(unit, URIRef)
        for name in graph.objects(unit, KG.unitName)
    }
    return Vocabulary(graph=graph, units=units)


@lru_cache(maxsize=4)
def statement_index(graph: Graph) -> dict[tuple[str, str], list[object]]:
    """The graph's objects by (subject, predicate) as text, in the graph's order: the
    lookup pages and the index do per value (rdflib's own lookups cost more than the
    rest of a page)."""
    index: dict[tuple[str, str], list[object]] = defaultdict(list)
    for s, p, o in graph:
        index[(str(s), str(p))].append(o)
    return dict(index)
