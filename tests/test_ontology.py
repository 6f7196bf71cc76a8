"""The ontology defines every project term used; the vocabularies and JSON-LD context are complete."""

from __future__ import annotations

import json
import re

import pytest
from conftest import BASE, DATA, ROOT
from pyld import jsonld
from rdflib import Graph, URIRef

from kg.model.validation import map_paths, shapes_graph
from kg.rdf.canonical import canonical_nquads, parse_nquads
from kg.rdf.namespaces import KG, KGV, OWL, RDF, RDFS, SKOS
from kg.rdf.vocabulary import load_terms

CONTEXT = json.loads((ROOT / "ontology" / "context.jsonld").read_text())


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


def _expand(curie: str) -> str:
    prefix, _, local = curie.partition(":")
    value = CONTEXT["@context"].get(prefix)
    return value + local if isinstance(value, str) and local else curie


def test_context_names_every_predicate_and_class(mapped) -> None:
    named = set()
    for value in CONTEXT["@context"].values():
        curie = value if isinstance(value, str) else (
            value.get("@id") if isinstance(value, dict) else None)
        if curie and re.match(r"^[a-z]+:", curie):
            named.add(_expand(curie))
    predicates = {str(p) for m in mapped for _, p, _ in m.triples if p != RDF.type}
    classes = {str(o) for m in mapped for _, p, o in m.triples if p == RDF.type}
    missing = sorted((predicates | classes) - named)
    assert not missing, f"terms without a short JSON-LD name: {missing}"


def test_jsonld_with_the_context_round_trips(mapped) -> None:
    """Compacted with the context, each file's graph has short names and expands back unchanged."""
    for m in mapped:
        graph = Graph()
        for triple in m.triples:
            graph.add(triple)
        expanded = jsonld.from_rdf(graph.serialize(format="nt"), {"format": "application/n-quads"})
        compact = jsonld.compact(expanded, CONTEXT)
        body = json.dumps({k: v for k, v in compact.items() if k != "@context"})
        assert "https://w3id.org/claimgraph/ns#" not in body, m.file.name
        nquads = jsonld.to_rdf(compact, {"format": "application/n-quads"})
        original = graph.serialize(format="nt")
        # Compared with pyoxigraph: rdflib's parser rewrites lexical forms ("Z" -> "+00:00").
        assert canonical_nquads(parse_nquads(nquads)) == canonical_nquads(parse_nquads(original))
