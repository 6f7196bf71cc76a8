"""A fast SHACL engine for the constraint components claimgraph's shapes use.

pyshacl is the reference: it reads the same shapes and gives the same results (a
differential test holds the two together over the seed, generated corpora and every
broken variant). This engine exists for speed: the shapes are compiled once into
plain Python checks over an index of the batch, and SHACL-SPARQL constraints run once
per batch in pyoxigraph instead of being parsed again for every focus node.

Supported: targets by class (with rdfs:subClassOf from the ontology), property shapes
with a predicate path, and sh:minCount, sh:maxCount, sh:datatype, sh:pattern,
sh:class, sh:node, sh:hasValue, sh:nodeKind, sh:or, sh:message, and sh:sparql (SELECT)
on node shapes. A shape using anything else is refused when it is compiled, so the
engine can never silently skip a constraint.
"""

from __future__ import annotations

import calendar
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cached_property

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.term import Node as Term

from ..rdf.namespaces import RDF, RDFS, SH, XSD, XSD_STRING
from ..rdf.terms import from_ox, to_ox

_KNOWN = {SH.path, SH.minCount, SH.maxCount, SH.datatype, SH.pattern, SH["class"], SH.node,
          SH.hasValue, SH.nodeKind, SH["or"], SH.message, SH.property, SH.targetClass,
          SH.sparql, SH.declare, RDF.type, SH.flags, RDFS.comment}


class UnsupportedShape(Exception):
    """The shapes use a SHACL feature this engine does not implement."""


@dataclass(frozen=True)
class Result:
    """One SHACL validation result."""

    focus: Term
    path: URIRef | None
    value: Term | None
    component: str  # local name of the constraint component
    shape: Term
    message: str = ""


@dataclass
class _Constraints:
    """The constraints of one shape (property shape, or a node shape used by sh:node)."""

    shape: Term
    path: URIRef | None = None
    min_count: int | None = None
    max_count: int | None = None
    datatype: URIRef | None = None
    pattern: re.Pattern[str] | None = None
    classes: list[URIRef] = field(default_factory=list)
    nodes: list[_Constraints] = field(default_factory=list)
    has_value: Term | None = None
    node_kind: URIRef | None = None
    alternatives: list[_Constraints] = field(default_factory=list)
    properties: list[_Constraints] = field(default_factory=list)
    message: str = ""


@dataclass(frozen=True)
class Deferred:
    """A class check on a value defined in another file, decided once every file is read."""

    focus: Term
    path: URIRef | None
    value: URIRef
    constraints: _Constraints = field(hash=False, compare=False)

    def result(self, component: str) -> Result:
        return Result(self.focus, self.path, self.value, component, self.constraints.shape,
                      self.constraints.message)


@dataclass
class _SparqlConstraint:
    shape: Term
    query: str
    message: str
    #: The IRIs the query names: only triples with these predicates can matter to it.
    predicates: frozenset[URIRef] = frozenset()


@dataclass
class _NodeShape:
    shape: Term
    targets: set[URIRef]
    properties: list[_Constraints]
    sparql: list[_SparqlConstraint]


class Engine:
    """Shapes compiled for repeated validation."""

    def __init__(self, shapes: Graph, terms: Graph):
        self.shapes = shapes
        self.terms = terms
        self._compiled: dict[Term, _Constraints] = {}
        self.superclasses = _superclasses(terms)
        self.node_shapes = [self._node_shape(s) for s in sorted(
            set(shapes.subjects(SH.targetClass, None)), key=str)]
        self.terms_index = Index()
        self.terms_index.add_all(terms)

    # -- compiling ----------------------------------------------------------------------
    def _node_shape(self, shape: Term) -> _NodeShape:
        compiled = self._constraints(shape)
        sparql = []
        for constraint in self.shapes.objects(shape, SH.sparql):
            select = self.shapes.value(constraint, SH.select)
            if select is None:
                raise UnsupportedShape(f"{shape}: only SELECT-based SPARQL constraints")
            prefixes = "".join(
                f"PREFIX {self.shapes.value(d, SH.prefix)}: "
                f"<{self.shapes.value(d, SH.namespace)}>\n"
                for source in self.shapes.objects(constraint, SH.prefixes)
                for d in self.shapes.objects(source, SH.declare))
            query = prefixes + str(select).replace("$this", "?this")
            sparql.append(_SparqlConstraint(
                shape, query, str(self.shapes.value(constraint, SH.message) or ""),
                _named_iris(query)))
        targets = {t for t in self.shapes.objects(shape, SH.targetClass) if isinstance(t, URIRef)}
        return _NodeShape(shape, targets, compiled.properties, sparql)

    def _constraints(self, shape: Term) -> _Constraints:
        if shape in self._compiled:
            return self._compiled[shape]
        g = self.shapes
        unknown = {p for p in g.predicates(shape, None) if p not in _KNOWN}
        if unknown:
            raise UnsupportedShape(f"{shape}: unsupported {sorted(map(str, unknown))}")
        c = _Constraints(shape=shape)
        self._compiled[shape] = c
        c.path = g.value(shape, SH.path)
        if c.path is not None and not isinstance(c.path, URIRef):
            raise UnsupportedShape(f"{shape}: only predicate paths")
        for attr, pred in (("min_count", SH.minCount), ("max_count", SH.maxCount)):
            value = g.value(shape, pred)
            if value is not None:
                setattr(c, attr, int(value))
        c.datatype = g.value(shape, SH.datatype)
        pattern = g.value(shape, SH.pattern)
        if pattern is not None:
            c.pattern = re.compile(str(pattern))
        c.classes = list(g.objects(shape, SH["class"]))
        c.nodes = [self._constraints(n) for n in g.objects(shape, SH.node)]
        c.has_value = g.value(shape, SH.hasValue)
        c.node_kind = g.value(shape, SH.nodeKind)
        for alternatives in g.objects(shape, SH["or"]):
            c.alternatives += [self._constraints(a) for a in Collection(g, alternatives)]
        c.properties = [self._constraints(p) for p in g.objects(shape, SH.property)]
        c.message = str(g.value(shape, SH.message) or "")
        return c

    # -- validating ---------------------------------------------------------------------
    def validate(
        self, data: Index, focus_filter: set[Term] | None = None,
        deferred: list[Deferred] | None = None, sparql: bool = True,
    ) -> list[Result]:
        """Results for the focus nodes in ``data`` (optionally only those in ``focus_filter``).

        ``data`` must hold the batch and the types of what it refers to; the ontology and
        vocabularies are added here. With ``deferred`` given, a class check on an IRI that
        ``data`` knows nothing about is not decided but appended there, to be decided
        where the types of every file are known (:meth:`check_deferred`); with
        ``sparql=False`` the SHACL-SPARQL constraints are left to the caller.
        """
        index = Overlay(data, self.terms_index)
        results: list[Result] = []
        sparql_jobs = []
        for shape in self.node_shapes:
            focus = self.focus_nodes(shape, data)
            if focus_filter is not None:
                focus &= focus_filter
            for node in sorted(focus, key=str):
                for prop in shape.properties:
                    self._property(index, node, prop, results, deferred)
            if sparql and shape.sparql and focus:
                sparql_jobs.append((shape, focus))
        if sparql_jobs:
            wanted = frozenset().union(*(c.predicates for s, _ in sparql_jobs for c in s.sparql))
            store = _store(index, wanted | {RDF.type})
            for shape, focus in sparql_jobs:
                for constraint in shape.sparql:
                    results += _run_sparql(store, index.objects, constraint, focus)
        return results

    def focus_nodes(self, shape: _NodeShape, data: Index) -> set[Term]:
        classes = {c for t in shape.targets for c in self._subclasses(t)}
        return {n for c in classes for n in data.instances.get(c, ())}

    def check_deferred(self, item: Deferred, types: Iterable[URIRef]) -> list[str]:
        """Decide a deferred class check, given every type the value has anywhere."""
        tiny = Index()
        for cls in types:
            tiny.add(item.value, RDF.type, cls)
        return [component for component in self._value_failures(
            Overlay(tiny, self.terms_index), item.value, item.constraints)
            if component in ("ClassConstraintComponent", "OrConstraintComponent")]

    def sparql_results(self, store: ox.Store, focus_by_shape: dict[Term, set[Term]],
                       written: Callable[[Term, URIRef], list[Term]]) -> list[Result]:
        """The SHACL-SPARQL constraints over ``store``, for the given focus nodes;
        ``written(node, predicate)`` gives values as the data wrote them (for messages)."""
        results = []
        for shape in self.node_shapes:
            focus = focus_by_shape.get(shape.shape)
            if focus:
                for constraint in shape.sparql:
                    results += _run_sparql(store, written, constraint, focus)
        return results

    @cached_property  # the shapes never change; ingest asks once per file
    def sparql_predicates(self) -> frozenset[URIRef]:
        """Every predicate a SHACL-SPARQL constraint names (rdf:type only where one uses
        it: the focus nodes are chosen by type before a query runs)."""
        return frozenset().union(*(c.predicates for shape in self.node_shapes
                                   for c in shape.sparql))

    def _subclasses(self, cls: URIRef) -> set[URIRef]:
        return {c for c, supers in self.superclasses.items() if cls in supers} | {cls}

    def _property(
        self, index: Overlay, node: Term, c: _Constraints, out: list[Result],
        deferred: list[Deferred] | None = None,
    ) -> None:
        values = index.objects(node, c.path)
        count = len(values)
        if c.min_count is not None and count < c.min_count:
            out.append(Result(node, c.path, None, "MinCountConstraintComponent", c.shape,
                              c.message))
        if c.max_count is not None and count > c.max_count:
            out.append(Result(node, c.path, None, "MaxCountConstraintComponent", c.shape,
                              c.message))
        if c.has_value is not None and c.has_value not in values:
            out.append(Result(node, c.path, None, "HasValueConstraintComponent", c.shape,
                              c.message))
        for value in values:
            external = (deferred is not None and isinstance(value, URIRef)
                        and (c.classes or any(a.classes for a in c.alternatives))
                        and not index.types(value))
            if external:
                deferred.append(Deferred(node, c.path, value, c))
            for component in self._value_failures(index, value, c, skip_classes=external):
                out.append(Result(node, c.path, value, component, c.shape, c.message))

    def _value_failures(
        self, index: Overlay, value: Term, c: _Constraints, skip_classes: bool = False,
    ) -> Iterable[str]:
        if c.datatype is not None and not datatype_ok(value, c.datatype):
            yield "DatatypeConstraintComponent"
        if c.pattern is not None and (isinstance(value, BNode)
                                      or not c.pattern.search(str(value))):
            yield "PatternConstraintComponent"
        for cls in () if skip_classes else c.classes:
            if not self._is_instance(index, value, cls):
                yield "ClassConstraintComponent"
        if c.node_kind is not None and not _kind_ok(value, c.node_kind):
            yield "NodeKindConstraintComponent"
        for node in c.nodes:
            if not self.conforms(index, value, node):
                yield "NodeConstraintComponent"
        if (c.alternatives and not skip_classes
                and not any(self.conforms(index, value, a) for a in c.alternatives)):
            yield "OrConstraintComponent"

    def conforms(self, index: Overlay, node: Term, c: _Constraints) -> bool:
        """Whether ``node`` conforms to the shape ``c`` (used by sh:node and sh:or)."""
        if any(True for _ in self._value_failures(index, node, c)):
            return False
        for prop in c.properties:
            found: list[Result] = []
            self._property(index, node, prop, found)
            if found:
                return False
        return True

    def _is_instance(self, index: Overlay, node: Term, cls: URIRef) -> bool:
        if isinstance(node, Literal):
            return False
        return any(t == cls or cls in self.superclasses.get(t, ()) for t in index.types(node))


class Index:
    """Triples by subject and predicate, and instances by class."""

    def __init__(self) -> None:
        self.spo: dict[Term, dict[URIRef, list[Term]]] = defaultdict(lambda: defaultdict(list))
        self.instances: dict[URIRef, set[Term]] = defaultdict(set)
        self.triples: list[tuple[Term, URIRef, Term]] = []

    def add(self, s: Term, p: URIRef, o: Term) -> None:
        objects = self.spo[s][p]
        if o not in objects:
            objects.append(o)
            self.triples.append((s, p, o))
            if p == RDF.type:
                self.instances[o].add(s)

    def add_all(self, triples: Iterable[tuple[Term, URIRef, Term]]) -> None:
        for s, p, o in triples:
            self.add(s, p, o)

    def add_distinct(self, triples: Iterable[tuple[Term, URIRef, Term]]) -> None:
        """Triples known to be distinct, added without the membership test of :meth:`add`
        (which is linear in a subject's values: a release node has 100k+ parts)."""
        for s, p, o in triples:
            self.spo[s][p].append(o)
            self.triples.append((s, p, o))
            if p == RDF.type:
                self.instances[o].add(s)


class Overlay:
    """The batch over the ontology: reads see both."""

    def __init__(self, data: Index, terms: Index):
        self.layers = (data, terms)

    def objects(self, s: Term, p: URIRef) -> list[Term]:
        found: list[Term] = []
        for layer in self.layers:
            by_p = layer.spo.get(s)
            if by_p:
                found += [o for o in by_p.get(p, ()) if o not in found]
        return found

    def types(self, s: Term) -> list[Term]:
        return self.objects(s, RDF.type)


def _superclasses(terms: Graph) -> dict[URIRef, set[URIRef]]:
    direct: dict[URIRef, set[URIRef]] = defaultdict(set)
    for sub, sup in terms.subject_objects(RDFS.subClassOf):
        if isinstance(sub, URIRef) and isinstance(sup, URIRef):
            direct[sub].add(sup)
    closed: dict[URIRef, set[URIRef]] = {}
    for cls in direct:
        seen: set[URIRef] = set()
        todo = list(direct[cls])
        while todo:
            sup = todo.pop()
            if sup not in seen:
                seen.add(sup)
                todo += direct.get(sup, ())
        closed[cls] = seen
    return closed


def _kind_ok(value: Term, kind: URIRef) -> bool:
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


# -- datatypes ------------------------------------------------------------------------------
_ZONE = r"(Z|[+-](\d\d):(\d\d))?"
_DATE = re.compile(rf"^(-?\d{{4,}})-(\d\d)-(\d\d){_ZONE}$")
_DATETIME = re.compile(rf"^(-?\d{{4,}})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?{_ZONE}$")
_GYEAR = re.compile(rf"^-?\d{{4,}}{_ZONE}$")
_GYEARMONTH = re.compile(rf"^(-?\d{{4,}})-(\d\d){_ZONE}$")
_DECIMAL = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
_INTEGER = re.compile(r"^[+-]?\d+$")
_XSD_STRING = URIRef(XSD_STRING)


def datatype_ok(value: Term, datatype: URIRef) -> bool:
    """Whether ``value`` is a literal of ``datatype`` with a well-formed lexical form."""
    if not isinstance(value, Literal):
        return False
    if value.language:
        return datatype == RDF.langString
    actual = value.datatype or _XSD_STRING
    if actual != datatype:
        return False
    return lexical_ok(str(value), datatype)


def lexical_ok(text: str, datatype: URIRef) -> bool:
    if datatype == _XSD_STRING:
        return True
    if datatype == XSD.decimal:
        return bool(_DECIMAL.match(text))
    if datatype in (XSD.integer, XSD.nonNegativeInteger, XSD.positiveInteger):
        if not _INTEGER.match(text):
            return False
        number = int(text)
        return (datatype == XSD.integer or (datatype == XSD.nonNegativeInteger and number >= 0)
                or (datatype == XSD.positiveInteger and number > 0))
    if datatype == XSD.boolean:
        return text in ("true", "false", "1", "0")
    if datatype == XSD.date:
        m = _DATE.match(text)
        return bool(m) and _valid_day(m.group(1), m.group(2), m.group(3)) and _zone_ok(m, 5)
    if datatype == XSD.dateTime:
        m = _DATETIME.match(text)
        if not m or not _valid_day(m.group(1), m.group(2), m.group(3)):
            return False
        hour, minute, second = int(m.group(4)), int(m.group(5)), int(m.group(6))
        midnight = hour == 24 and minute == 0 and second == 0 and not (m.group(7) or "").strip(".0")
        return (hour < 24 or midnight) and minute < 60 and second < 60 and _zone_ok(m, 9)
    if datatype == XSD.gYear:
        m = _GYEAR.match(text)
        return bool(m) and _zone_ok(m, 2)
    if datatype == XSD.gYearMonth:
        m = _GYEARMONTH.match(text)
        return bool(m) and 1 <= int(m.group(2)) <= 12 and _zone_ok(m, 4)
    raise UnsupportedShape(f"no lexical check for datatype {datatype}")


def _valid_day(year: str, month: str, day: str) -> bool:
    y, mo, d = int(year), int(month), int(day)
    if not 1 <= mo <= 12 or d < 1:
        return False
    leap = calendar.isleap(y) if y > 0 else (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0))
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]
    return d <= days


def _zone_ok(match: re.Match[str], group: int) -> bool:
    hours, minutes = match.group(group), match.group(group + 1)
    if hours is None:
        return True
    return int(hours) <= 14 and int(minutes) < 60 and (int(hours) < 14 or int(minutes) == 0)


# -- SHACL-SPARQL -----------------------------------------------------------------------------
def _store(index: Overlay, predicates: frozenset[URIRef]) -> ox.Store:
    """The triples the SPARQL constraints can see, in an in-memory store."""
    store = ox.Store()
    store.extend(ox.Quad(to_ox(s), to_ox(p), to_ox(o), ox.DefaultGraph())  # type: ignore[arg-type]
                 for layer in index.layers for s, p, o in layer.triples if p in predicates)
    return store


_PREFIX = re.compile(r"PREFIX\s+(\w*):\s*<([^>]*)>", re.IGNORECASE)
_IRI = re.compile(r"<([^>\s]*)>")
_PNAME = re.compile(r"(?<![\w?$])(\w+):(\w[\w.-]*)")
_A = re.compile(r"(?<![\w?$:])a(?![\w:-])")
_COMMENT = re.compile(r"#[^\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"' + r"|'(?:[^'\\]|\\.)*'")


def _named_iris(query: str) -> frozenset[URIRef]:
    """Every IRI a query names, written in full or as a prefixed name. A constraint whose
    query has a variable in predicate position would need every triple: the engine's
    differential test against pyshacl would show it."""
    prefixes = dict(_PREFIX.findall(query))
    body = _PREFIX.sub(" ", query)
    found = {URIRef(iri) for iri in _IRI.findall(body)}
    found |= {URIRef(prefixes[p] + local) for p, local in _PNAME.findall(body) if p in prefixes}
    code = _COMMENT.sub(" ", _IRI.sub(" ", _STRING.sub(" ", body)))
    if _A.search(code):  # the keyword "a" is rdf:type
        found.add(RDF.type)
    return frozenset(found)


_TEMPLATE = re.compile(r"\{[?$](\w+)\}")


def _run_sparql(
    store: ox.Store, written: Callable[[Term, URIRef], list[Term]],
    constraint: _SparqlConstraint, focus: set[Term],
) -> list[Result]:
    """Run the constraint once for all focus nodes; each solution is a violation."""
    results = []
    solutions = store.query(constraint.query)
    names = [v.value for v in solutions.variables]
    for row in solutions:
        bindings = {name: row[name] for name in names}
        this = from_ox(bindings["this"])
        if this not in focus:
            continue
        value = from_ox(bindings["value"]) if bindings.get("value") is not None else None
        path = from_ox(bindings["path"]) if bindings.get("path") is not None else None
        if isinstance(value, Literal) and isinstance(path, URIRef):
            # The store writes numbers canonically ("24.00" -> "24"); report the value as
            # the data holds it.
            original = [o for o in written(this, path) if o == value or (
                isinstance(o, Literal) and o.datatype == value.datatype and _same(o, value))]
            value = original[0] if original else value
        texts = {name: (term.value if term is not None else None)
                 for name, term in bindings.items()}
        if value is not None:
            texts["value"] = str(value)
        message = _TEMPLATE.sub(lambda m, t=texts: t.get(m.group(1)) or m.group(0),
                                constraint.message)
        results.append(Result(this, path if isinstance(path, URIRef) else None, value,
                              "SPARQLConstraintComponent", constraint.shape, message))
    return results


def _same(a: Literal, b: Literal) -> bool:
    try:
        return Decimal(str(a)) == Decimal(str(b))
    except InvalidOperation:
        return False
