"""What the engine reads: the triples of a batch by subject and predicate, and the batch
over the ontology (:class:`Overlay`) so that a read sees both without copying either."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from rdflib import URIRef
from rdflib.term import Node as Term

from ...rdf.namespaces import RDF


class Index:
    """Triples by subject and predicate, and instances by class."""

    def __init__(self) -> None:
        self.spo: dict[Term, dict[URIRef, list[Term]]] = defaultdict(lambda: defaultdict(list))
        #: By the object of rdf:type: a class, or whatever else the data wrote there.
        self.instances: dict[Term, set[Term]] = defaultdict(set)
        self.triples: list[tuple[Term, URIRef, Term]] = []

    def add(self, s: Term, p: URIRef, o: Term) -> None:
        objects = self.spo[s][p]
        if o not in objects:
            objects.append(o)
            self.triples.append((s, p, o))
            if p == RDF.type:
                self.instances[o].add(s)

    def add_all(self, triples: Iterable[tuple[Term, URIRef, Term]]) -> None:
        for s, p, o in triples:
            self.add(s, p, o)

    def add_distinct(self, triples: Iterable[tuple[Term, URIRef, Term]]) -> None:
        """Triples known to be distinct, added without the membership test of :meth:`add`
        (which is linear in a subject's values: a release node has 100k+ parts)."""
        for s, p, o in triples:
            self.spo[s][p].append(o)
            self.triples.append((s, p, o))
            if p == RDF.type:
                self.instances[o].add(s)


class Overlay:
    """The batch over the ontology: reads see both."""

    def __init__(self, data: Index, terms: Index):
        self.layers = (data, terms)

    def objects(self, s: Term, p: URIRef) -> list[Term]:
        # Nearly every node is in one layer only: no membership tests then (an rdflib
        # term's __eq__ is Python code, and this is the engine's most frequent call).
        data, terms = self.layers
        mine, theirs = data.spo.get(s), terms.spo.get(s)
        first = mine.get(p, ()) if mine else ()
        second = theirs.get(p, ()) if theirs else ()
        if not second:
            return list(first)
        if not first:
            return list(second)
        return [*first, *(o for o in second if o not in first)]

    def types(self, s: Term) -> list[Term]:
        return self.objects(s, RDF.type)
