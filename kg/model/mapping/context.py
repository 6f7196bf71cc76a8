"""The machinery every mapper uses: build RDF from YAML, remembering where each triple came from.

A :class:`Node` wraps one YAML mapping and the RDF node it becomes.  Each of its
methods reads one key and adds the triples for it; asking for a key, present or
not, declares it, so that afterwards (a) keys nobody asked for are reported as
unknown and (b) a SHACL result about a node and a property can be translated back
to the YAML field path (``reviews[0].reviewed_at``) and the value as written.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from rdflib import BNode, Literal, URIRef
from rdflib.term import Node as Term

from ...errors import Problem
from ...kinds import minted_iri
from ...rdf.namespaces import KG, KGV, RDF, RDFS, SPDX

Triple = tuple[Term, URIRef, Term]
_LIST_INDEX = re.compile(r"\[\d+\]")


@dataclass
class Origins:
    """Where the triples of one file came from, for messages in terms of the file."""

    #: (subject, predicate) -> YAML path of the field, declared whether or not it was given.
    fields: dict[tuple[Term, URIRef], str] = field(default_factory=dict)
    #: (subject, predicate, object) -> (YAML path of the value, the value as written).
    values: dict[Triple, tuple[str, str]] = field(default_factory=dict)
    #: node -> YAML path of the mapping it was built from ("" for the file's main node).
    nodes: dict[Term, str] = field(default_factory=dict)
    #: node -> how messages name what it belongs to ("record <id>"), where that is not the
    #: file's own label (a file of several graphs: an upstream file's records).
    labels: dict[Term, str] = field(default_factory=dict)


class MapContext:
    """What one file's mapping accumulates: triples, origins and problems."""

    def __init__(self, base: str, file: str, label: str, terms: Any):
        self.base = base
        self.file = file
        self.label = label
        self.terms = terms  # kg.rdf.vocabulary.Vocabulary: units, document classes
        self.triples: list[Triple] = []
        self.origins = Origins()
        self.problems: list[Problem] = []
        #: Every key path the mappers asked for, lists written "[]": the file format's keys.
        self.keys: set[str] = set()
        self._blank = 0
        self._blank_prefix = ""
        #: Where each graph after the file's first begins in ``triples``: (IRI, label, start).
        self.graph_starts: list[tuple[URIRef, str, int]] = []

    def bnode(self) -> BNode:
        """A blank node whose label is the same each time the file is mapped, and unique to
        the file: mapping a file again (to explain a problem found later) finds the same
        nodes, and the N-Quads of many files never share a label."""
        self._blank += 1
        return BNode(f"{self._blank_prefix}n{self._blank}")

    def name_blank_nodes(self, graph: str) -> None:
        self._blank_prefix = "b" + hashlib.sha256(graph.encode()).hexdigest()[:16]

    def iri(self, segment: str, ident: str) -> URIRef:
        """The minted IRI of id ``ident`` of a kind whose IRIs have ``segment`` (kg.kinds)."""
        return URIRef(minted_iri(self.base, segment, ident))

    def add(self, s: Term, p: URIRef, o: Term) -> None:
        self.triples.append((s, p, o))

    def start_graph(self, graph: URIRef, label: str) -> None:
        """The triples added from now on belong to the named graph ``graph`` (a file of
        several graphs: an import record's models and benchmarks)."""
        self.graph_starts.append((graph, label, len(self.triples)))

    def add_implied(self, s: Term, p: URIRef, o: Term, stated: Triple) -> None:
        """A triple the file implies rather than states (an evidence row cites the record's
        source): a problem with its value is reported where ``stated`` was written, so the
        message names the field the user wrote, once."""
        self.add(s, p, o)
        origin = self.origins.values.get(stated)
        if origin is not None:
            self.origins.values.setdefault((s, p, o), origin)

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(self.file, self.label, path, message))

    def node(self, subject: Term, data: Any, path: str = "") -> Node | None:
        """A :class:`Node` over ``data``, or None (with a problem) when it is not a mapping."""
        if not isinstance(data, dict):
            self.problem(path, f"expected a mapping of keys to values, got {_describe(data)}")
            return None
        self.origins.nodes.setdefault(subject, path)
        return Node(self, subject, data, path)


class Node:
    """One YAML mapping becoming one RDF node."""

    def __init__(self, ctx: MapContext, subject: Term, data: dict[str, Any], path: str):
        self.ctx = ctx
        self.subject = subject
        self.data = data
        self.path = path
        self.declared: dict[str, URIRef | None] = {}

    def facet(self, subject: Term) -> Node:
        """A node on another subject built from the same mapping (a qualified association,
        a value node): keys read through it count as known for this mapping too."""
        other = Node(self.ctx, subject, self.data, self.path)
        other.declared = self.declared
        self.ctx.origins.nodes.setdefault(subject, self.path)
        return other

    # -- reading keys -----------------------------------------------------------------
    def _path(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def declare(self, key: str, predicate: URIRef | None = None) -> Any:
        """Declare ``key`` (and the predicate it maps to); return its raw value or None."""
        self.declared[key] = predicate
        self.ctx.keys.add(_LIST_INDEX.sub("[]", self._path(key)))
        if predicate is not None:
            self.ctx.origins.fields.setdefault((self.subject, predicate), self._path(key))
        return self.data.get(key)

    def scalar(self, key: str, predicate: URIRef | None = None) -> str | None:
        """The string value of ``key``; a problem when it is a list, mapping or empty."""
        raw = self.declare(key, predicate)
        if raw is None:
            return None
        if not isinstance(raw, str):
            self.ctx.problem(self._path(key), f"expected a single value, got {_describe(raw)}")
            return None
        if not raw.strip():
            self.ctx.problem(
                self._path(key),
                "empty value (leave the key out, or write {missing: <reason>} where the "
                "source does not report it)",
            )
            return None
        return raw

    def type(self, *classes: URIRef) -> None:
        for cls in classes:
            self.ctx.add(self.subject, RDF.type, cls)

    def emit(
        self,
        key: str,
        predicate: URIRef,
        obj: Term,
        raw: str,
        path: str | None = None,
    ) -> None:
        """Add one triple whose object came from the value ``raw`` of ``key``."""
        triple = (self.subject, predicate, obj)
        self.ctx.add(*triple)
        self.ctx.origins.values.setdefault(triple, (path or self._path(key), raw))

    # -- typed values -----------------------------------------------------------------
    def literal(self, key: str, predicate: URIRef, datatype: URIRef | None = None) -> str | None:
        """A literal, typed with ``datatype``; the shapes judge whether it is well-formed."""
        raw = self.scalar(key, predicate)
        if raw is not None:
            # normalize=False: the lexical form stays as written ("11.50", "...Z").
            self.emit(key, predicate, Literal(raw, datatype=datatype, normalize=False), raw)
        return raw

    def concept(self, key: str, predicate: URIRef) -> str | None:
        """A SKOS concept of the project's vocabularies, named by its local name."""
        raw = self.scalar(key, predicate)
        if raw is not None:
            self.emit(key, predicate, concept_iri(raw), raw)
        return raw

    def concepts(self, key: str, predicate: URIRef) -> list[str]:
        """A list of SKOS concepts."""
        values = []
        for path, raw in self.scalars(key, predicate):
            self.emit(key, predicate, concept_iri(raw), raw, path)
            values.append(raw)
        return values

    def ref(self, key: str, predicate: URIRef, kind: str) -> URIRef | None:
        """A reference by id to a thing of ``kind`` defined in another file."""
        raw = self.scalar(key, predicate)
        if raw is None:
            return None
        target = self.ctx.iri(kind, raw)
        self.emit(key, predicate, target, raw)
        return target

    def unit(self, key: str, predicate: URIRef) -> str | None:
        """A unit by the name curators write (``gigabyte``), as its QUDT IRI."""
        raw = self.scalar(key, predicate)
        if raw is not None:
            iri = self.ctx.terms.unit(raw)
            # An unknown name stays a literal, which the shapes reject as "not a known unit".
            self.emit(key, predicate, iri if iri is not None else Literal(raw), raw)
        return raw

    def url(self, key: str, predicate: URIRef) -> str | None:
        """A web address as an IRI; a plain literal when it is not one (the shapes say so)."""
        raw = self.scalar(key, predicate)
        if raw is not None:
            self.emit(key, predicate, URIRef(raw) if is_web_url(raw) else Literal(raw), raw)
        return raw

    def scalars(self, key: str, predicate: URIRef | None = None) -> list[tuple[str, str]]:
        """A list of strings, as (path, value) pairs."""
        raw = self._declared_list(key, predicate)
        out = []
        for i, item in enumerate(raw):
            path = f"{self._path(key)}[{i}]"
            if not isinstance(item, str) or not item.strip():
                self.ctx.problem(path, f"expected a single value, got {_describe(item)}")
            else:
                out.append((path, item))
        return out

    def _declared_list(self, key: str, predicate: URIRef | None) -> list:
        """The list under ``key`` (empty when absent); anything else is a problem."""
        raw = self.declare(key, predicate)
        if raw is None:
            return []
        if not isinstance(raw, list):
            self.ctx.problem(self._path(key), f"expected a list, got {_describe(raw)}")
            return []
        return raw

    # -- nested structures ------------------------------------------------------------
    def child(
        self,
        key: str,
        predicate: URIRef,
        build: Callable[[Node], None],
        subject: Term | None = None,
    ) -> Node | None:
        """A nested mapping that becomes its own node (a blank node unless ``subject``)."""
        raw = self.declare(key, predicate)
        if raw is None:
            return None
        sub = subject if subject is not None else self.ctx.bnode()
        node = self.ctx.node(sub, raw, self._path(key))
        if node is None:
            return None
        self.emit(key, predicate, sub, "")
        build(node)
        node.done()
        return node

    def children(
        self,
        key: str,
        predicate: URIRef | None,
        build: Callable[[Node, int], None],
        subject: Callable[[int], Term] | None = None,
    ) -> list[Node]:
        """A list of mappings, each its own node; ``build`` gets the node and its position."""
        raw = self._declared_list(key, predicate)
        nodes = []
        for i, item in enumerate(raw):
            sub = subject(i + 1) if subject else self.ctx.bnode()
            node = self.ctx.node(sub, item, f"{self._path(key)}[{i}]")
            if node is None:
                continue
            if predicate is not None:
                self.emit(key, predicate, sub, "", node.path)
            build(node, i + 1)
            node.done()
            nodes.append(node)
        return nodes

    def value_or_missing(
        self,
        key: str,
        predicate: URIRef,
        make: Callable[[str], Term] = Literal,
    ) -> None:
        """A value, or ``{missing: <reason>, note: ...}`` where the source gives none."""
        raw = self.declare(key, predicate)
        if isinstance(raw, dict):
            self.child(key, predicate, build_missing)
            return
        value = self.scalar(key, predicate)
        if value is not None:
            self.emit(key, predicate, make(value), value)

    def done(self) -> None:
        """Report the keys nobody asked for (a misspelt key must not pass silently)."""
        for key in self.data:
            if key not in self.declared:
                hint = difflib.get_close_matches(key, list(self.declared), n=1)
                known = (
                    f"did you mean '{hint[0]}'?"
                    if hint
                    else ("known keys: " + ", ".join(sorted(self.declared)))
                )
                self.ctx.problem(self._path(key), f"unknown key ({known})")


def build_missing(node: Node) -> None:
    """A value the source does not give: the reason (a concept) and the wording, if any."""
    node.type(KG.MissingValue)
    node.concept("missing", KG.reason)
    node.literal("note", RDFS.comment)


def build_checksum(node: Node, key: str) -> None:
    """The SHA-256 under ``key`` as an SPDX checksum node of ``node``'s subject (named
    ``<subject>-checksum``). A string with a pattern, not xsd:hexBinary: an ill-formed
    hexBinary could not even be parsed."""
    checksum = node.facet(URIRef(f"{node.subject}-checksum"))
    node.ctx.add(node.subject, SPDX.checksum, checksum.subject)
    checksum.type(SPDX.Checksum)
    node.ctx.add(checksum.subject, SPDX.algorithm, SPDX.checksumAlgorithm_sha256)
    checksum.literal(key, SPDX.checksumValue)


def build_package(node: Node, _position: int) -> None:
    """A software package and its version (a run's environment, a review's software)."""
    node.type(KG.SoftwarePackage)
    node.literal("name", RDFS.label)
    node.literal("version", KG.softwareVersion)


def concept_iri(local: str) -> URIRef:
    return URIRef(f"{KGV}{quote(local, safe='')}")


def is_web_url(value: str) -> bool:
    """True for an absolute http(s) URL without spaces or characters IRIs forbid."""
    if any(c in value for c in ' <>"{}|\\^`') or any(ord(c) < 33 for c in value):
        return False
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return f"{value!r}" if value.strip() else "an empty value"
