"""Assertions several test modules make about mapped data files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyoxigraph as ox
from pyld import jsonld
from rdflib import Graph

from helpers import BASE, ROOT
from kg.model.validation import Translator, map_paths, shacl_results
from kg.rdf.canonical import canonical_nquads, parse_nquads
from kg.rdf.namespaces import RDF
from kg.rdf.vocabulary import load_terms
from kg.store.copies import CopyReader
from kg.store.embedded import EmbeddedStore

CONTEXT = json.loads((ROOT / "ontology" / "context.jsonld").read_text())


def both_engines(paths: list[Path]):
    """The compiled engine's results, pyshacl's (the reference) and a translator to file
    terms, for the data files under ``paths``."""
    mapped = map_paths(paths, BASE)
    fast = shacl_results(mapped)
    reference = shacl_results(mapped, reference=True)
    translator = Translator(mapped, load_terms().graph)
    return fast, reference, translator


def result_keys(results) -> set[tuple]:
    return {(r.focus, r.path, r.component) for r in results}


def assert_same(paths: list[Path]) -> None:
    """Both engines find the same results, and report the same problems."""
    fast, reference, translator = both_engines(paths)
    assert result_keys(fast) == result_keys(reference)
    assert sorted(translator.problems(fast)) == sorted(translator.problems(reference))


def _expand(curie: str) -> str:
    prefix, _, local = curie.partition(":")
    value = CONTEXT["@context"].get(prefix)
    return value + local if isinstance(value, str) and local else curie


def assert_context_names_every_term(mapped) -> None:
    """The JSON-LD context has a short name for every predicate and class ``mapped`` uses."""
    named = set()
    for value in CONTEXT["@context"].values():
        curie = (
            value
            if isinstance(value, str)
            else (value.get("@id") if isinstance(value, dict) else None)
        )
        if curie and re.match(r"^[a-z]+:", curie):
            named.add(_expand(curie))
    predicates = {str(p) for m in mapped for _, p, _ in m.triples if p != RDF.type}
    classes = {str(o) for m in mapped for _, p, o in m.triples if p == RDF.type}
    missing = sorted((predicates | classes) - named)
    assert not missing, f"terms without a short JSON-LD name: {missing}"


def assert_jsonld_round_trips(mapped) -> None:
    """Compacted with the context, each file's graph has short names and expands back
    unchanged."""
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


def assert_copies_hold_the_store(store_dir: Path) -> int:
    """Every graph of the live version that has a text copy (kg.store.copies) gets from it
    exactly the quads the store's indexes give, blank-node labels and literal forms
    included, and ``graph_quads`` reads every graph as the indexes give it (in any
    order). The number of graphs with a copy."""
    with EmbeddedStore(store_dir, read_only=True) as store:
        assert store.version_dir is not None
        indexes = ox.Store.read_only(str(store.version_dir))
        copies = CopyReader(store_dir, store.version_dir)
        copied = 0
        for graph in sorted(store.named_graphs()):
            held = list(indexes.quads_for_pattern(None, None, None, ox.NamedNode(graph)))
            assert list(store.quads([graph])) == held, graph
            assert sorted(map(str, store.graph_quads([graph]))) == sorted(map(str, held))
            copy = copies.graph(graph)
            if copy is not None:
                copied += 1
                assert sorted(map(str, copy)) == sorted(map(str, held)), graph
                assert len(copy) == len(held), graph
        del indexes
    return copied
