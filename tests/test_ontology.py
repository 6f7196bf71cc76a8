"""The ontology defines every project term used; the vocabularies and JSON-LD context are complete."""

from __future__ import annotations

import pytest
from rdflib import URIRef

from helpers import BASE, DATA, KEPT_SAMPLE
from helpers.checks import assert_context_names_every_term, assert_jsonld_round_trips
from kg.model.validation import map_paths, shapes_graph
from kg.rdf.namespaces import KG, KGV, OWL, RDF, RDFS, SKOS
from kg.rdf.vocabulary import load_terms


@pytest.fixture(scope="module")
def mapped():
    return map_paths([DATA], BASE)


def used_terms(mapped) -> set[URIRef]:
    terms = set()
    for m in mapped:
        for _s, p, o in m.triples:
            terms.add(p)
            if p == RDF.type or isinstance(o, URIRef):
                terms.add(o)
    for s, p, o in shapes_graph():
        for t in (s, p, o):
            if isinstance(t, URIRef):
                terms.add(t)
    return terms


def test_every_project_term_is_defined(mapped) -> None:
    graph = load_terms().graph
    for term in sorted(t for t in used_terms(mapped) if t.startswith(str(KG))):
        assert (term, RDF.type, None) in graph, f"{term} is not declared in ontology/"
        assert graph.value(term, RDFS.label), f"{term} has no rdfs:label"
        assert graph.value(term, RDFS.comment), f"{term} has no rdfs:comment"


def test_every_concept_is_in_a_scheme_with_label_and_definition(mapped) -> None:
    graph = load_terms().graph
    used = {t for t in used_terms(mapped) if t.startswith(str(KGV))}
    schemes = set(graph.subjects(RDF.type, SKOS.ConceptScheme))
    for concept in graph.subjects(RDF.type, SKOS.Concept):
        assert graph.value(concept, SKOS.inScheme) in schemes, concept
        assert graph.value(concept, SKOS.prefLabel), concept
        assert graph.value(concept, SKOS.definition), concept
        assert graph.value(concept, SKOS.notation), concept
    assert used <= set(graph.subjects(RDF.type, SKOS.Concept)) | schemes


def test_every_class_and_property_of_the_ontology_is_labelled() -> None:
    graph = load_terms().graph
    for kind in (OWL.Class, OWL.ObjectProperty, OWL.DatatypeProperty, RDF.Property):
        for term in graph.subjects(RDF.type, kind):
            assert graph.value(term, RDFS.label) and graph.value(term, RDFS.comment), term


def test_context_names_every_predicate_and_class(mapped) -> None:
    assert_context_names_every_term(mapped)


def test_jsonld_with_the_context_round_trips(mapped) -> None:
    # every written file, and a kept file of each origin folder (KEPT_SAMPLE): imported
    # results all have those shapes, and pyld takes a minute over all 400 of them
    upstream = DATA / "upstream"
    assert_jsonld_round_trips(
        [
            m
            for m in mapped
            if not m.file.path.is_relative_to(upstream) or m.file.path in KEPT_SAMPLE
        ]
    )
