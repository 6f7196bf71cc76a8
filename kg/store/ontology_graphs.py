"""The bundled ontology as store graphs, and the hash that marks data validated under it.

A load writes the ontology, vocabularies and unit table into the store, one named graph
per file under ``ontology/`` (queries then see labels); a release writes the same graphs
into its dumps. ``schema_hash`` covers ``shapes/`` and ``ontology/`` together: a load whose
hash differs from the one in the load manifest revalidates everything and rewrites these
graphs.
"""

from __future__ import annotations

import hashlib
from functools import cache

import pyoxigraph as ox

from ..resources import resource_dir

ONTOLOGY_GRAPHS = "https://w3id.org/claimgraph/ontology/"


@cache
def _ontology_files() -> tuple[tuple[str, bytes], ...]:
    return tuple(
        (f"{ONTOLOGY_GRAPHS}{path.stem}", path.read_bytes())
        for path in sorted(resource_dir("ontology").glob("*.ttl"))
    )


def ontology_graph_names() -> set[str]:
    return {name for name, _ in _ontology_files()}


def ontology_nquads() -> bytes:
    """The ontology, vocabularies and unit table, one graph per file, so queries see labels."""
    quads = []
    for name, text in _ontology_files():
        graph = ox.NamedNode(name)
        quads += [
            ox.Quad(t.subject, t.predicate, t.object, graph)
            for t in ox.parse(text, ox.RdfFormat.TURTLE)
        ]
    nquads = ox.serialize(quads, format=ox.RdfFormat.N_QUADS)
    assert nquads is not None  # no output given: the bytes come back
    return nquads


@cache
def schema_hash() -> str:
    """One hash over the shapes and the ontology: data validated under others is revalidated."""
    digest = hashlib.sha256()
    for directory in ("shapes", "ontology"):
        for path in sorted(resource_dir(directory).glob("*")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
