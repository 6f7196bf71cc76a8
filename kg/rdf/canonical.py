"""Canonical N-Quads (RDF Dataset Canonicalization, RDFC-1.0) and their hashes.

The same content gives the same text whatever its blank-node labels or quad order;
this is what "the store's content is unchanged" and release hashes compare.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

import pyoxigraph as ox


def canonical_nquads(quads: Iterable[ox.Quad]) -> str:
    """The RDFC-1.0 canonical N-Quads of ``quads``, one sorted line per quad."""
    return _canonical(quads)[0]


def _canonical(quads: Iterable[ox.Quad]) -> tuple[str, ox.Dataset]:
    dataset = ox.Dataset(quads)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    return "".join(sorted(f"{quad} .\n" for quad in dataset)), dataset


def parse_nquads(text: str) -> list[ox.Quad]:
    """Quads from N-Quads (or N-Triples) text, lexical forms kept exactly."""
    return list(ox.parse(text.encode(), ox.RdfFormat.N_QUADS))


def sha256_hex(text: str) -> str:
    """SHA-256 of ``text`` as UTF-8, in lowercase hex."""
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class GraphVersion:
    """One version of a named graph: its hash and its content ready to be dumped."""

    #: SHA-256 (hex) of the graph's RDFC-1.0 canonical N-Quads.
    hash: str
    #: The canonical N-Quads with each blank node label prefixed by the hash, so that the
    #: blank nodes of different graphs never meet when graphs are written into one file.
    nquads: str
    quads: int


# A blank node label of the canonical form, outside literals and IRIs (either may contain
# the characters "_:c14n").
_CANONICAL_LABEL = re.compile(r'"(?:[^"\\]|\\.)*"|<[^>]*>|_:c14n')


def graph_version(quads: Iterable[ox.Quad]) -> GraphVersion:
    """The version of a graph that ``quads`` are: the hash of their canonical N-Quads.

    Hash the quads a mapping produced, not what a store gives back: a store may write a
    typed literal in another lexical form ("11.50" as "11.5").
    """
    text, dataset = _canonical(quads)
    digest = sha256_hex(text)
    prefix = f"_:b{digest[:16]}"
    labels = sum(
        isinstance(term, ox.BlankNode)
        for q in dataset
        for term in (q.subject, q.object, q.graph_name)
    )
    if text.count("_:c14n") == labels:  # every occurrence is a label: replace them all
        scoped = text.replace("_:c14n", prefix)
    else:  # a literal or IRI holds the characters too: only the labels
        scoped = _CANONICAL_LABEL.sub(
            lambda m: m.group(0) if m.group(0)[0] in '"<' else prefix, text
        )
    return GraphVersion(digest, scoped, len(dataset))


def content_hash(graph_hashes: Iterable[str]) -> str:
    """The hash of a set of graph versions: SHA-256 over their sorted hashes, one a line."""
    return sha256_hex("".join(f"{h}\n" for h in sorted(graph_hashes)))
