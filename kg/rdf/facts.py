"""Reading a small set of quads (a record's closure) by subject and predicate.

Predicates and classes are named by the constants of :mod:`kg.rdf.namespaces`
(``facts.text(record, KG.metric)``); they are looked up by their IRI's text.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import cast

import pyoxigraph as ox
from rdflib import Graph, Literal, URIRef

from .namespaces import RDF, SKOS
from .vocabulary import load_terms, statement_index

Term = ox.NamedNode | ox.BlankNode | ox.Literal


class Facts:
    """The union of some quads, indexed by (subject, predicate); graph names are ignored."""

    def __init__(self, quads: Iterable[ox.Quad], terms: Graph | None = None):
        self.index: dict[tuple[Term, str], list[Term]] = defaultdict(list)
        self._quads = list(quads)
        for q in self._quads:
            # pyoxigraph's stub lets a subject be a Triple (0.5 never makes one); the
            # registry's data holds no RDF 1.2 triple terms as objects either
            self.index[(q.subject, q.predicate.value)].append(  # type: ignore[index]
                cast(Term, q.object)
            )
        self._subjects_by: dict[str, dict[Term | ox.Triple, list[Term]]] = {}
        # the ontology, vocabularies and units: labels of concepts
        self.terms = terms if terms is not None else load_terms().graph
        self._terms_index = statement_index(self.terms)

    def all(self, subject: Term | None, predicate: str) -> list[Term]:
        if subject is None:
            return []
        # str(): the index holds plain strings, and a URIRef never equals a str
        values = self.index.get((subject, str(predicate)))
        if not values:
            return []
        if len(values) == 1:
            return [values[0]]
        return sorted(set(values), key=str)

    def one(self, subject: Term | None, predicate: str) -> Term | None:
        values = self.all(subject, predicate)
        return values[0] if values else None

    def text(self, subject: Term | None, predicate: str) -> str:
        value = self.one(subject, predicate)
        return value.value if value is not None else ""

    def subjects(self, predicate: str, obj: Term) -> list[Term]:
        predicate = str(predicate)
        by_object = self._subjects_by.get(predicate)
        if by_object is None:  # indexed per predicate asked for: pages ask for two
            by_object = defaultdict(list)
            for q in self._quads:
                if q.predicate.value == predicate:
                    # pyoxigraph's stub lets a subject be a Triple; 0.5 never makes one
                    by_object[q.object].append(q.subject)  # type: ignore[arg-type]
            self._subjects_by[predicate] = by_object
        return sorted(set(by_object.get(obj, [])), key=str)

    def has_type(self, subject: Term, cls: str) -> bool:
        return ox.NamedNode(str(cls)) in self.all(subject, RDF.type)

    # -- vocabulary lookups ---------------------------------------------------------------
    def concept(self, term: Term | None, prop: URIRef = SKOS.prefLabel) -> str:
        """A concept's (or unit's, property's) label or note from the ontology."""
        if term is None or not isinstance(term, ox.NamedNode):
            return ""
        values = self._terms_index.get((term.value, str(prop)))
        return str(values[0]) if values else ""

    def concepts(self, term: Term | None, prop: URIRef) -> list[str]:
        if term is None or not isinstance(term, ox.NamedNode):
            return []
        return sorted(
            str(v)
            for v in self._terms_index.get((term.value, str(prop)), ())
            if isinstance(v, Literal)
        )

    def order(self, term: Term) -> tuple[int, str]:
        """Where a concept stands in its scheme (skos:notation), for stable lists."""
        notation = self.concept(term, SKOS.notation)
        return (int(notation) if notation else 0, str(term))
