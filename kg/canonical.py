"""Canonical N-Quads (RDF Dataset Canonicalization, RDFC-1.0) and their hashes.

The same content gives the same text whatever its blank-node labels or quad order;
this is what "the store's content is unchanged" and release hashes compare.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import pyoxigraph as ox


def canonical_nquads(quads: Iterable[ox.Quad]) -> str:
    """The RDFC-1.0 canonical N-Quads of ``quads``, one sorted line per quad."""
    dataset = ox.Dataset(quads)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    return "".join(sorted(f"{quad} .\n" for quad in dataset))


def parse_nquads(text: str) -> list[ox.Quad]:
    """Quads from N-Quads (or N-Triples) text, lexical forms kept exactly."""
    return list(ox.parse(text.encode(), ox.RdfFormat.N_QUADS))


def sha256_hex(text: str) -> str:
    """SHA-256 of ``text`` as UTF-8, in lowercase hex."""
    return hashlib.sha256(text.encode()).hexdigest()
