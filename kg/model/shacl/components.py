"""SHACL's constraint components, one class each, as pySHACL models them.

The parser makes one object per parameter a shape gives (each sh:class value is its own
check, as in SHACL) and the engine runs them in a fixed order, which is the order of
the results: first the components over all the values of a path (sh:minCount,
sh:maxCount, sh:hasValue), then, for each value, sh:datatype, sh:minInclusive, sh:pattern,
sh:class, sh:nodeKind, sh:node and sh:or. Each class names its component as a result reports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar, Protocol

from rdflib import BNode, Literal, URIRef
from rdflib.term import Node as Term

from ...rdf.namespaces import SH
from .datatypes import datatype_ok, numeric_value
from .shapes import UnsupportedShape

if TYPE_CHECKING:
    from .index import Overlay
    from .shapes import Constraints


class Checker(Protocol):
    """What a component asks of the engine: the class hierarchy, and whether a node
    conforms to another shape (for sh:node and sh:or)."""

    superclasses: dict[URIRef, set[URIRef]]

    def conforms(self, index: Overlay, node: Term, c: Constraints) -> bool: ...


# -- over all the values of a path ----------------------------------------------------------
class PathComponent:
    """A component that looks at all the values of a path at once."""

    name: ClassVar[str]

    def fails(self, values: list[Term]) -> bool:
        raise NotImplementedError


@dataclass(frozen=True)
class MinCount(PathComponent):
    """sh:minCount: at least so many values."""

    minimum: int
    name = "MinCountConstraintComponent"

    def fails(self, values: list[Term]) -> bool:
        return len(values) < self.minimum


@dataclass(frozen=True)
class MaxCount(PathComponent):
    """sh:maxCount: at most so many values."""

    maximum: int
    name = "MaxCountConstraintComponent"

    def fails(self, values: list[Term]) -> bool:
        return len(values) > self.maximum


@dataclass(frozen=True)
class HasValue(PathComponent):
    """sh:hasValue: this value among the values."""

    value: Term
    name = "HasValueConstraintComponent"

    def fails(self, values: list[Term]) -> bool:
        return self.value not in values


# -- on each value ----------------------------------------------------------------------------
class ValueComponent:
    """A component checked on each value of a path (or on the focus node of sh:node)."""

    name: ClassVar[str]
    #: Decided by the types of the value: left undecided for a value another file defines.
    on_types: ClassVar[bool] = False

    def fails(self, checker: Checker, index: Overlay, value: Term) -> bool:
        raise NotImplementedError

    def asks_classes(self) -> bool:
        """Whether this asks sh:class of the value (directly, or in an sh:or alternative)."""
        return False


@dataclass(frozen=True)
class Datatype(ValueComponent):
    """sh:datatype: a literal of the datatype, with a well-formed lexical form."""

    datatype: Term  # as the shapes give it: an IRI, or a node no literal has as datatype
    name = "DatatypeConstraintComponent"

    def fails(self, checker: Checker, index: Overlay, value: Term) -> bool:
        return not datatype_ok(value, self.datatype)


@dataclass(frozen=True)
class MinInclusive(ValueComponent):
    """sh:minInclusive with a number: a literal whose value is a number at least this one
    (a text, an IRI or a blank node never is, as pyshacl has it)."""

    minimum: Decimal
    name = "MinInclusiveConstraintComponent"

    def fails(self, checker: Checker, index: Overlay, value: Term) -> bool:
        number = numeric_value(value)
        return number is None or number < self.minimum


@dataclass(frozen=True)
class Pattern(ValueComponent):
    """sh:pattern: the value's text matches a regular expression (never a blank node)."""

    pattern: re.Pattern[str]
    name = "PatternConstraintComponent"

    def fails(self, checker: Checker, index: Overlay, value: Term) -> bool:
        return isinstance(value, BNode) or not self.pattern.search(str(value))


@dataclass(frozen=True)
class Class(ValueComponent):
    """sh:class: an instance of the class or of one of its subclasses."""

    cls: Term  # as the shapes give it (an IRI in any shape SHACL allows)
    name = "ClassConstraintComponent"
    on_types = True

    def fails(self, checker: Checker, index: Overlay, value: Term) -> bool:
        if isinstance(value, Literal):
            return True
        cls, superclasses = self.cls, checker.superclasses
        return not any(
            t == cls or (isinstance(t, URIRef) and cls in superclasses.get(t, ()))
            for t in index.types(value)
        )

    def asks_classes(self) -> bool:
        return True


@dataclass(frozen=True)
class NodeKind(ValueComponent):
    """sh:nodeKind: an IRI, a literal, a blank node, or one of the pairs of them."""

    kind: Term  # as the shapes give it (any but the six IRIs is refused when checked)
    name = "NodeKindConstraintComponent"

    def fails(self, checker: Checker, index: Overlay, value: Term) -> bool:
        return not _kind_ok(value, self.kind)


@dataclass(frozen=True)
class Node(ValueComponent):
    """sh:node: the value conforms to another shape."""

    shape: Constraints
    name = "NodeConstraintComponent"

    def fails(self, checker: Checker, index: Overlay, value: Term) -> bool:
        return not checker.conforms(index, value, self.shape)


@dataclass(frozen=True)
class Or(ValueComponent):
    """sh:or: the value conforms to one of the alternatives (those of every sh:or list of
    the shape, together)."""

    alternatives: tuple[Constraints, ...]
    name = "OrConstraintComponent"
    on_types = True

    def fails(self, checker: Checker, index: Overlay, value: Term) -> bool:
        return not any(checker.conforms(index, value, a) for a in self.alternatives)

    def asks_classes(self) -> bool:
        return any(isinstance(check, Class) for a in self.alternatives for check in a.checks)


def _kind_ok(value: Term, kind: Term) -> bool:
    if kind == SH.IRI:
        return isinstance(value, URIRef)
    if kind == SH.Literal:
        return isinstance(value, Literal)
    if kind == SH.BlankNode:
        return isinstance(value, BNode)
    if kind == SH.BlankNodeOrIRI:
        return isinstance(value, BNode | URIRef)
    if kind == SH.IRIOrLiteral:
        return isinstance(value, URIRef | Literal)
    if kind == SH.BlankNodeOrLiteral:
        return isinstance(value, BNode | Literal)
    raise UnsupportedShape(f"unknown sh:nodeKind {kind}")
