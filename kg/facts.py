"""Reading a small set of quads (a record's closure) by subject and predicate."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import pyoxigraph as ox
from rdflib import Graph, Literal, URIRef

from .namespaces import SKOS
from .vocabulary import load_terms

Term = ox.NamedNode | ox.BlankNode | ox.Literal


class Facts:
    """The union of some quads, indexed by (subject, predicate); graph names are ignored."""

    def __init__(self, quads: Iterable[ox.Quad], terms: Graph | None = None):
        self.index: dict[tuple[Term, str], list[Term]] = defaultdict(list)
        self.subjects_by: dict[tuple[str, Term], list[Term]] = defaultdict(list)
        for q in quads:
            self.index[(q.subject, q.predicate.value)].append(q.object)
            self.subjects_by[(q.predicate.value, q.object)].append(q.subject)
        # the ontology, vocabularies and units: labels of concepts
        self.terms = terms if terms is not None else load_terms().graph

    def all(self, subject: Term | None, predicate: str) -> list[Term]:
        if subject is None:
            return []
        return sorted(set(self.index.get((subject, predicate), [])), key=str)

    def one(self, subject: Term | None, predicate: str) -> Term | None:
        values = self.all(subject, predicate)
        return values[0] if values else None

    def text(self, subject: Term | None, predicate: str) -> str:
        value = self.one(subject, predicate)
        return value.value if value is not None else ""

    def subjects(self, predicate: str, obj: Term) -> list[Term]:
        return sorted(set(self.subjects_by.get((predicate, obj), [])), key=str)

    def has_type(self, subject: Term, cls: str) -> bool:
        return ox.NamedNode(cls) in self.all(subject, RDF_TYPE)

    # -- vocabulary lookups ---------------------------------------------------------------
    def concept(self, term: Term | None, prop: URIRef = SKOS.prefLabel) -> str:
        """A concept's (or unit's, property's) label or note from the ontology."""
        if term is None or not isinstance(term, ox.NamedNode):
            return ""
        value = self.terms.value(URIRef(term.value), prop)
        return str(value) if value is not None else ""

    def concepts(self, term: Term | None, prop: URIRef) -> list[str]:
        if term is None or not isinstance(term, ox.NamedNode):
            return []
        return sorted(str(v) for v in self.terms.objects(URIRef(term.value), prop)
                      if isinstance(v, Literal))

    def order(self, term: Term) -> tuple[int, str]:
        """Where a concept stands in its scheme (skos:notation), for stable lists."""
        notation = self.terms.value(URIRef(term.value), SKOS.notation) if isinstance(
            term, ox.NamedNode) else None
        return (int(notation) if notation is not None else 0, str(term))


RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
