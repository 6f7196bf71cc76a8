"""Kept upstream files: each format's mapper, chosen by the file's import."""

from __future__ import annotations

from collections.abc import Callable

from rdflib import URIRef

from ..upstream.kept import KeptFile
from .context import Origins, Triple
from .every_eval_ever import map_every_eval_ever, shared_nodes

Mapped = tuple[list[Triple], Origins, list[tuple[URIRef, str, int]]]

#: format -> its mapper: the triples of one kept file, their origins, and its graphs as
#: (IRI, label, end of its triples).
UPSTREAM_MAPPERS: dict[str, Callable[[KeptFile, str], Mapped]] = {
    "every-eval-ever": map_every_eval_ever,
}


#: format -> what a checked document names of the shared nodes (model, benchmarks, source),
#: as the import record and the source files state them.
SHARED_NODES: dict[str, Callable[[dict], dict]] = {"every-eval-ever": shared_nodes}


def map_kept(kept: KeptFile, base: str) -> Mapped:
    """Map one kept file by its format."""
    return UPSTREAM_MAPPERS[kept.format](kept, base)
