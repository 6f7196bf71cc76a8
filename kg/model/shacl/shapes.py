"""Shapes in compiled form: what :mod:`.parser` makes of the shapes graph and the engine runs.

A shape's constraint parameters are held as component objects (:mod:`.components`), in
the order the engine checks and reports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from rdflib import URIRef
from rdflib.term import Node as Term

if TYPE_CHECKING:
    from .components import PathComponent, ValueComponent


class UnsupportedShape(Exception):
    """The shapes use a SHACL feature this engine does not implement."""


@dataclass
class Constraints:
    """The constraints of one shape (property shape, or a node shape used by sh:node)."""

    shape: Term
    path: URIRef | None = None
    #: Components over all the values of the path at once (sh:minCount, ...).
    counts: list[PathComponent] = field(default_factory=list)
    #: Components checked on each value (sh:datatype, sh:class, ...).
    checks: list[ValueComponent] = field(default_factory=list)
    properties: list[Constraints] = field(default_factory=list)
    message: str = ""

    @cached_property  # asked per value; the shapes never change once compiled
    def asks_classes(self) -> bool:
        """Whether sh:class is asked of each value, here or in an sh:or alternative: for a
        value another file defines, that is decided once the types of every file are known."""
        return any(check.asks_classes() for check in self.checks)


@dataclass
class SparqlConstraint:
    """A SELECT-based SHACL-SPARQL constraint of a node shape, ready to run."""

    shape: Term
    query: str
    message: str
    #: The IRIs the query names: only triples with these predicates can matter to it.
    predicates: frozenset[URIRef] = frozenset()


@dataclass
class NodeShape:
    """A node shape with targets: what the engine validates focus nodes against."""

    shape: Term
    targets: set[URIRef]
    properties: list[Constraints]
    sparql: list[SparqlConstraint]
