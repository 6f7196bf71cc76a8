"""VoID's linksets, counted from triples: the statements whose object is another site's
IRI (not under the registry's base, nor under its own vocabulary; rdf:type left out), by
property and by the site (scheme and host) of the object.

A load counts them graph by graph as it writes each graph, and keeps each graph's count in
the load manifest as a line of text per (property, site), so that a version's linksets
are a sum over the manifest, not a query over every statement (42 s at 100,000 records:
bench/README.md). ``queries/internal/graph-links.rq`` counts the same in the store, for a
manifest written before loads counted links; a test holds the two to one definition.

>>> from rdflib import URIRef
>>> doi = URIRef("https://doi.org/10.1000/1")
>>> cites = URIRef("http://purl.org/spar/cito/citesAsEvidence")
>>> counted = count_links([(URIRef("https://r.example/record/a"), cites, doi),
...                        (URIRef("https://r.example/record/a"), cites,
...                         URIRef("https://r.example/source/s"))], "https://r.example/")
>>> counted
'http://purl.org/spar/cito/citesAsEvidence https://doi.org 1'
>>> read_links(counted)
[('http://purl.org/spar/cito/citesAsEvidence', 'https://doi.org', 1)]
>>> site("urn:isbn:0451450523")  # no host: the IRI is its own site
'urn:isbn:0451450523'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from rdflib import URIRef
from rdflib.term import Node

from .namespaces import RDF

#: The registry's own vocabulary, ontology and unit table: not another site.
OWN = "https://w3id.org/claimgraph/"
#: A site: the scheme and the host (authority) of an IRI.
_SITE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")
_TYPE = {RDF.type}

#: One linkset of a version: (property, site, statements).
Linkset = tuple[str, str, int]


def site(iri: str) -> str:
    """The scheme and host of ``iri``; the IRI itself when it has no host."""
    found = _SITE.match(iri)
    return found.group() if found else iri


def count_links(triples: Iterable[tuple[Node, Node, Node]], base: str) -> str:
    """The links among ``triples``, as the manifest keeps them: one ``property site n``
    line per pair (IRIs hold no spaces), sorted; "" for none."""
    own = (base, OWN)
    # str.startswith: rdflib's own takes no tuple
    counted = Counter(
        (str(p), site(o))
        for _, p, o in triples
        if type(o) is URIRef and p not in _TYPE and not str.startswith(o, own)
    )
    return links_text(counted)


def links_text(counted: Mapping[tuple[str, str], int]) -> str:
    """Links counted by (property, site) as the manifest keeps them (:func:`count_links`)."""
    return "\n".join(f"{p} {s} {n}" for (p, s), n in sorted(counted.items()))


def read_links(text: str) -> list[Linkset]:
    """The linksets of :func:`count_links`'s text."""
    out = []
    for line in text.splitlines():
        prop, where, n = line.split(" ")
        out.append((prop, where, int(n)))
    return out


def sum_links(texts: Iterable[str]) -> tuple[Linkset, ...]:
    """The linksets of many graphs, summed and sorted. Each distinct text is read once:
    graphs of one kind mostly link alike, so 100,000 records hold a few dozen texts."""
    total: Counter[tuple[str, str]] = Counter()
    for text, graphs in Counter(texts).items():
        for prop, where, n in read_links(text):
            total[prop, where] += n * graphs
    return tuple((p, s, n) for (p, s), n in sorted(total.items()))
