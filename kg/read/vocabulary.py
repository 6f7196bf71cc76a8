"""The vocabulary as a reader sees it (``/ns``): every class and property of the ontology
with its label, comment, domain and range, the concept schemes with their members and the
units, each with how many statements of the store use it and the anchor it has on the page.

Read from ``ontology/`` (:func:`kg.rdf.vocabulary.ontology_graph`) and, for the counts,
the store version's index (:func:`kg.store.index.tables.term_uses`, kept when it is written).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from rdflib import Graph, Literal, URIRef

from ..rdf.namespaces import KG, KGV, OWL, QUDT, RDF, RDFS, SKOS

#: The kinds of term the page lists, in its order, each with what it is called there.
CLASS_KINDS = {str(OWL.Class): "class"}
PROPERTY_KINDS = {
    str(OWL.ObjectProperty): "object property",
    str(OWL.DatatypeProperty): "datatype property",
    str(RDF.Property): "property",
}


@dataclass(frozen=True)
class Term:
    """One term: a class, a property, a concept scheme, a concept or a unit."""

    iri: str
    #: its id on the page (``/ns#Claim``, :func:`anchor`); "" where it is listed again
    anchor: str
    label: str
    comment: str
    #: "class", "object property", "datatype property", "concept", ...
    kind: str
    domain: tuple[str, ...] = ()
    range: tuple[str, ...] = ()
    #: statements of the store's data graphs that use it (kg.store.index.tables.term_uses)
    uses: int = 0


@dataclass(frozen=True)
class Scheme:
    """A SKOS concept scheme and its concepts, in their notation's order."""

    term: Term
    members: tuple[Term, ...]


@dataclass(frozen=True)
class VocabularyView:
    """What ``/ns`` shows."""

    iri: str
    title: str
    comment: str
    version: str
    classes: tuple[Term, ...]
    properties: tuple[Term, ...]
    schemes: tuple[Scheme, ...]
    units: tuple[Term, ...]

    def terms(self) -> list[Term]:
        """Every term the page lists, each once, in its order."""
        listed = [*self.classes, *self.properties]
        for scheme in self.schemes:
            listed += [scheme.term, *scheme.members]
        return [*listed, *self.units]


def anchor(iri: str) -> str:
    """A term's id on the page: its local name, ``vocab-`` first for a concept or scheme
    (``kg:model``, the property, and ``kgv:model``, the concept, are both ``model``).

    >>> anchor("https://w3id.org/claimgraph/ns#Claim"), anchor(f"{KGV}model")
    ('Claim', 'vocab-model')
    """
    local = iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1]
    return f"vocab-{local}" if iri.startswith(str(KGV)) else local


def vocabulary_view(graph: Graph, uses: Mapping[str, int]) -> VocabularyView:
    """The vocabulary in ``graph`` (the ontology, its vocabularies and units) with ``uses``
    (:meth:`kg.store.index.Index.term_uses`)."""

    def text(node: URIRef, *predicates: URIRef) -> str:
        for predicate in predicates:
            value = graph.value(node, predicate)
            if isinstance(value, Literal):
                return str(value)
        return ""

    def term(node: URIRef, kind: str) -> Term:
        return Term(
            iri=str(node),
            anchor=anchor(str(node)),
            label=text(node, RDFS.label, SKOS.prefLabel) or anchor(str(node)),
            comment=text(node, RDFS.comment, SKOS.definition),
            kind=kind,
            domain=tuple(sorted(str(o) for o in graph.objects(node, RDFS.domain))),
            range=tuple(sorted(str(o) for o in graph.objects(node, RDFS.range))),
            uses=uses.get(str(node), 0),
        )

    def typed(kinds: Mapping[str, str]) -> tuple[Term, ...]:
        found = {
            node: kinds[str(kind)]
            for kind in kinds
            for node in graph.subjects(RDF.type, URIRef(kind))
            if isinstance(node, URIRef) and str(node).startswith(str(KG))
        }
        return tuple(term(node, found[node]) for node in sorted(found, key=anchor))

    def notation(node: URIRef) -> tuple[int, str]:
        written = text(node, SKOS.notation)
        return (int(written) if written.isdigit() else 0, str(node))

    listed: set[str] = set()

    def member(node: URIRef) -> Term:
        # a concept of two schemes is listed in both; its anchor is on the first
        found = term(node, "concept")
        if found.anchor in listed:
            return replace(found, anchor="")
        listed.add(found.anchor)
        return found

    schemes = tuple(
        Scheme(
            term(scheme, "concept scheme"),
            tuple(
                member(node)
                for node in sorted(
                    (m for m in graph.subjects(SKOS.inScheme, scheme) if isinstance(m, URIRef)),
                    key=notation,
                )
            ),
        )
        for scheme in sorted(graph.subjects(RDF.type, SKOS.ConceptScheme), key=str)
        if isinstance(scheme, URIRef) and str(scheme).startswith(str(KGV))
    )
    units = tuple(
        term(unit, "unit")
        for unit in sorted(graph.subjects(RDF.type, QUDT.Unit), key=str)
        if isinstance(unit, URIRef)
    )
    ontology = URIRef(str(KG).rstrip("#"))
    return VocabularyView(
        iri=str(ontology),
        title=text(ontology, RDFS.label),
        comment=text(ontology, RDFS.comment),
        version=text(ontology, OWL.versionInfo),
        classes=typed(CLASS_KINDS),
        properties=typed(PROPERTY_KINDS),
        schemes=schemes,
        units=units,
    )
