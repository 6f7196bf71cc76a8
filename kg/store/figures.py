"""The figures of a store version that a query would have to read every graph for, counted
by the load that writes the version and written with it: how many data graphs it holds
(the graphs named like the node they describe), their triples, and their links to other
sites by property and site (VoID's linksets, kg.rdf.linksets).

They are summed from the load manifest, which keeps each graph's triples and links
(counted as the load writes the graph; counted in the store once for a manifest written
before it kept them), and written as VoID statistics in a graph of their own,
``<urn:x-claimgraph:figures>`` (named apart from the base, so that a store loaded again
under another base keeps one), with the registry's VoID dataset as their subject.
``queries/stats.rq`` and ``/.well-known/void`` read them there: a count of the triples of
100,000 records took 11 s and one of their links 42 s, every quad read (bench/README.md).

>>> from kg.model.datafiles import ManifestEntry
>>> doi = "http://purl.org/spar/cito/citesAsEvidence https://doi.org 1"
>>> manifest = {"https://w3id.org/claimgraph/record/a": ManifestEntry("a.yaml", "", triples=40,
...                                                                   links=doi),
...             "https://w3id.org/claimgraph/source/s": ManifestEntry("s.yaml", "", triples=12,
...                                                                   links="")}
>>> Figures.of(manifest)
Figures(graphs=2, triples=52, links=(('http://purl.org/spar/cito/citesAsEvidence', \
'https://doi.org', 1),))
"""

from __future__ import annotations

from typing import NamedTuple, cast

import pyoxigraph as ox

from ..rdf.linksets import Linkset, links_text, sum_links
from ..rdf.namespaces import VOID, XSD
from .base import SCHEMA_ENTRY, GraphStore, Manifest, Term, solutions
from .queries import internal_query

TRIPLES = ox.NamedNode(str(VOID.triples))
#: VoID's "documents": each data graph is one linked-data document, its node's page.
DOCUMENTS = ox.NamedNode(str(VOID.documents))
SUBSET = ox.NamedNode(str(VOID.subset))
PREDICATE = ox.NamedNode(str(VOID.linkPredicate))
TARGET = ox.NamedNode(str(VOID.objectsTarget))
#: Says the linksets were counted (a version written before they were has none, which is
#: not the same as a version with no links). Internal, like the figures graph's name.
LINKS_COUNTED = ox.NamedNode("urn:x-claimgraph:linksets-counted")
INTEGER = ox.NamedNode(str(XSD.integer))
BOOLEAN = ox.NamedNode(str(XSD.boolean))


#: The graph that holds a version's figures.
FIGURES_GRAPH = "urn:x-claimgraph:figures"


def dataset(base: str) -> ox.NamedNode:
    """The registry as a VoID dataset (the subject of the figures)."""
    return ox.NamedNode(f"{base}.well-known/void#claimgraph")


class Figures(NamedTuple):
    """How many data graphs a version holds (the graphs loaded from data files that are
    named like the node they describe: an import record's lists are not), the triples
    they hold, and the linksets of every data graph, lists included (None: not counted, by
    a load before links were)."""

    graphs: int
    triples: int
    links: tuple[Linkset, ...] | None = None

    @classmethod
    def of(cls, manifest: Manifest) -> Figures:
        """The figures of the graphs ``manifest`` lists (each with its triples counted)."""
        data = [entry for graph, entry in manifest.items() if graph != SCHEMA_ENTRY]
        entries = [entry for entry in data if entry.node]
        assert all(entry.triples >= 0 for entry in entries), "a graph's triples not counted"
        # Links out of every data graph: an import's models and benchmarks link too
        # (docs/links.md), though their lists are no node's document.
        links = [entry.links for entry in data]
        return cls(
            len(entries),
            sum(entry.triples for entry in entries),
            None if None in links else sum_links(cast("list[str]", links)),  # no None among them
        )

    @classmethod
    def read(cls, store: GraphStore, base: str) -> Figures | None:
        """The figures written in ``store`` (None: none written, or not both counts)."""
        subject = dataset(base)
        found: dict[ox.NamedNode, ox.Literal] = {}
        linksets: dict[ox.BlankNode, dict] = {}
        for q in store.quads([FIGURES_GRAPH]):
            if q.subject == subject:
                found[q.predicate] = q.object  # type: ignore[assignment]
            elif isinstance(q.subject, ox.BlankNode):
                # (the figures graph, written by nquads below, holds no triple terms)
                linksets.setdefault(q.subject, {})[q.predicate] = cast(Term, q.object).value
        try:
            graphs, triples = int(found[DOCUMENTS].value), int(found[TRIPLES].value)
            links = tuple(
                sorted(
                    (one[PREDICATE], one[TARGET], int(one[TRIPLES])) for one in linksets.values()
                )
            )
        except (KeyError, ValueError):
            return None
        return cls(graphs, triples, links if LINKS_COUNTED in found else None)

    def nquads(self, base: str) -> bytes:
        """The figures as the N-Quads of their graph."""
        subject, graph = dataset(base), ox.NamedNode(FIGURES_GRAPH)

        def number(n: int) -> ox.Literal:
            return ox.Literal(str(n), datatype=INTEGER)

        quads = [
            ox.Quad(subject, DOCUMENTS, number(self.graphs), graph),
            ox.Quad(subject, TRIPLES, number(self.triples), graph),
        ]
        if self.links is not None:
            quads.append(
                ox.Quad(subject, LINKS_COUNTED, ox.Literal("true", datatype=BOOLEAN), graph)
            )
            for prop, site, triples in self.links:
                linkset = ox.BlankNode()
                quads += [
                    ox.Quad(subject, SUBSET, linkset, graph),
                    ox.Quad(linkset, PREDICATE, ox.NamedNode(prop), graph),
                    ox.Quad(linkset, TARGET, ox.NamedNode(site), graph),
                    ox.Quad(linkset, TRIPLES, number(triples), graph),
                ]
        text = ox.serialize(quads, format=ox.RdfFormat.N_QUADS)
        assert text is not None  # no output given: the bytes come back
        return text


def count_missing(store: GraphStore, manifest: Manifest, base: str) -> Manifest:
    """``manifest`` with the triples and links of every graph it has not counted read from
    the store (a query over the store each: a manifest written before they were counted)."""
    uncounted = {
        graph for graph, entry in manifest.items() if entry.triples < 0 and graph != SCHEMA_ENTRY
    }
    unlinked = {
        graph for graph, entry in manifest.items() if entry.links is None and graph != SCHEMA_ENTRY
    }
    if not (uncounted or unlinked):
        return manifest
    out = dict(manifest)
    if uncounted:
        counted = {
            row["graph"].value: (int(row["triples"].value), int(row["node"].value) == 1)
            for row in solutions(store.query(internal_query("graph-sizes").text))
        }
        for graph in uncounted:
            triples, node = counted.get(graph, (0, False))  # a graph with no triples left
            out[graph] = out[graph]._replace(triples=triples, node=node)
    if unlinked:
        links: dict[str, dict[tuple[str, str], int]] = {}
        rows = store.query(internal_query("graph-links").text, {"base": ox.Literal(base)})
        for row in solutions(rows):
            pair = (row["property"].value, row["site"].value)
            links.setdefault(row["graph"].value, {})[pair] = int(row["triples"].value)
        for graph in unlinked:
            out[graph] = out[graph]._replace(links=links_text(links.get(graph, {})))
    return out
