"""The figures of a store version that a query would have to read every graph for, counted
by the load that writes the version and written with it: how many data graphs it holds
(the graphs named like the node they describe) and their triples.

They are summed from the load manifest, which keeps each graph's triples (counted as the
load writes the graph; counted in the store once for a manifest written before it kept
them), and written as VoID statistics in a graph of their own,
``<urn:x-claimgraph:figures>`` (named apart from the base, so that a store loaded again
under another base keeps one), with the registry's VoID dataset as their subject.
``queries/stats.rq`` reads them there: a count of the triples of 100,000 records took
11 s, every quad read (bench/README.md, "Canned queries at scale").

>>> from kg.model.datafiles import ManifestEntry
>>> manifest = {"https://w3id.org/claimgraph/record/a": ManifestEntry("a.yaml", "", triples=40),
...             "https://w3id.org/claimgraph/source/s": ManifestEntry("s.yaml", "", triples=12)}
>>> Figures.of(manifest)
Figures(graphs=2, triples=52)
"""

from __future__ import annotations

from typing import NamedTuple

import pyoxigraph as ox

from ..rdf.namespaces import VOID, XSD
from .base import SCHEMA_ENTRY, GraphStore, Manifest
from .queries import internal_query

TRIPLES = ox.NamedNode(str(VOID.triples))
#: VoID's "documents": each data graph is one linked-data document, its node's page.
DOCUMENTS = ox.NamedNode(str(VOID.documents))
INTEGER = ox.NamedNode(str(XSD.integer))


#: The graph that holds a version's figures.
FIGURES_GRAPH = "urn:x-claimgraph:figures"


def dataset(base: str) -> ox.NamedNode:
    """The registry as a VoID dataset (the subject of the figures)."""
    return ox.NamedNode(f"{base}.well-known/void#claimgraph")


class Figures(NamedTuple):
    """How many data graphs a version holds (the graphs loaded from data files that are
    named like the node they describe: an import record's lists are not) and the triples
    they hold."""

    graphs: int
    triples: int

    @classmethod
    def of(cls, manifest: Manifest) -> Figures:
        """The figures of the graphs ``manifest`` lists (each with its triples counted)."""
        entries = [entry for graph, entry in manifest.items()
                   if graph != SCHEMA_ENTRY and entry.node]
        assert all(entry.triples >= 0 for entry in entries), "a graph's triples not counted"
        return cls(len(entries), sum(entry.triples for entry in entries))

    @classmethod
    def read(cls, store: GraphStore, base: str) -> Figures | None:
        """The figures written in ``store`` (None: none written, or not both)."""
        subject = dataset(base)
        found = {q.predicate: q.object for q in store.quads([FIGURES_GRAPH])
                 if q.subject == subject}
        try:
            return cls(int(found[DOCUMENTS].value), int(found[TRIPLES].value))
        except (KeyError, ValueError):
            return None

    def nquads(self, base: str) -> bytes:
        """The figures as the N-Quads of their graph."""
        subject, graph = dataset(base), ox.NamedNode(FIGURES_GRAPH)
        return ox.serialize([
            ox.Quad(subject, DOCUMENTS, ox.Literal(str(self.graphs), datatype=INTEGER), graph),
            ox.Quad(subject, TRIPLES, ox.Literal(str(self.triples), datatype=INTEGER), graph),
        ], format=ox.RdfFormat.N_QUADS)


def count_missing(store: GraphStore, manifest: Manifest) -> Manifest:
    """``manifest`` with the triples of every graph it has not counted read from the store
    (one query over the store: a manifest written before graphs were counted)."""
    missing = {graph for graph, entry in manifest.items()
               if entry.triples < 0 and graph != SCHEMA_ENTRY}
    if not missing:
        return manifest
    counted = {row["graph"].value: (int(row["triples"].value), int(row["node"].value) == 1)
               for row in store.query(internal_query("graph-sizes").text)}
    out = dict(manifest)
    for graph in missing:
        triples, node = counted.get(graph, (0, False))  # a graph with no triples left
        out[graph] = manifest[graph]._replace(triples=triples, node=node)
    return out
