"""JSON-LD with the project's context inline, so a document expands offline."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from typing import Any

import pyoxigraph as ox
from pyld import jsonld

from .resources import resource_dir


@cache
def context() -> dict[str, Any]:
    """The ``@context`` of ``ontology/context.jsonld``."""
    return json.loads((resource_dir("ontology") / "context.jsonld").read_text())["@context"]


def compact(quads: Iterable[ox.Quad]) -> dict[str, Any]:
    """Quads as compacted JSON-LD: short names from the context, the context inline."""
    nquads = ox.serialize(sorted(quads, key=str), format=ox.RdfFormat.N_QUADS).decode()
    expanded = jsonld.from_rdf(nquads, {"format": "application/n-quads", "useNativeTypes": False})
    return jsonld.compact(expanded, {"@context": context()})
