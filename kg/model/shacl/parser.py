"""The shapes parser: the shapes graph read once into compiled form (:mod:`.shapes`).

Only the parameters the engine implements are accepted: a shape using anything else is
refused here (:class:`~.shapes.UnsupportedShape`), so the engine can never silently
skip a constraint. Also here: the class hierarchy the targets use, from the ontology,
and the IRIs a SHACL-SPARQL query names.
"""

from __future__ import annotations

import re
from collections import defaultdict

from rdflib import Graph, URIRef
from rdflib.collection import Collection
from rdflib.term import Node as Term

from ...rdf.namespaces import RDF, RDFS, SH
from .components import (
    Class,
    Datatype,
    HasValue,
    MaxCount,
    MinCount,
    MinInclusive,
    Node,
    NodeKind,
    Or,
    PathComponent,
    Pattern,
    ValueComponent,
)
from .datatypes import numeric_value
from .shapes import Constraints, NodeShape, SparqlConstraint, UnsupportedShape

_KNOWN = {
    SH.path,
    SH.minCount,
    SH.maxCount,
    SH.datatype,
    SH.minInclusive,
    SH.pattern,
    SH["class"],
    SH.node,
    SH.hasValue,
    SH.nodeKind,
    SH["or"],
    SH.message,
    SH.property,
    SH.targetClass,
    SH.sparql,
    SH.declare,
    RDF.type,
    SH.flags,
    RDFS.comment,
}


class ShapesParser:
    """Reads the shapes of a graph; each shape is compiled once (sh:node and sh:or may
    name one many times, or name a shape that names them back)."""

    def __init__(self, shapes: Graph):
        self.shapes = shapes
        #: Every shape compiled so far, by its node in the shapes graph.
        self.compiled: dict[Term, Constraints] = {}

    def node_shapes(self) -> list[NodeShape]:
        """The shapes with a target class, in a fixed order (by IRI)."""
        return [
            self.node_shape(s)
            for s in sorted(set(self.shapes.subjects(SH.targetClass, None)), key=str)
        ]

    def node_shape(self, shape: Term) -> NodeShape:
        compiled = self.constraints(shape)
        sparql = []
        for constraint in self.shapes.objects(shape, SH.sparql):
            select = self.shapes.value(constraint, SH.select)
            if select is None:
                raise UnsupportedShape(f"{shape}: only SELECT-based SPARQL constraints")
            prefixes = "".join(
                f"PREFIX {self.shapes.value(d, SH.prefix)}: "
                f"<{self.shapes.value(d, SH.namespace)}>\n"
                for source in self.shapes.objects(constraint, SH.prefixes)
                for d in self.shapes.objects(source, SH.declare)
            )
            query = prefixes + str(select).replace("$this", "?this")
            sparql.append(
                SparqlConstraint(
                    shape,
                    query,
                    str(self.shapes.value(constraint, SH.message) or ""),
                    _named_iris(query),
                )
            )
        targets = {t for t in self.shapes.objects(shape, SH.targetClass) if isinstance(t, URIRef)}
        return NodeShape(shape, targets, compiled.properties, sparql)

    def constraints(self, shape: Term) -> Constraints:
        if shape in self.compiled:
            return self.compiled[shape]
        g = self.shapes
        unknown = {p for p in g.predicates(shape, None) if p not in _KNOWN}
        if unknown:
            raise UnsupportedShape(f"{shape}: unsupported {sorted(map(str, unknown))}")
        c = Constraints(shape=shape)
        self.compiled[shape] = c  # before the shapes it names, which may name it back
        path = g.value(shape, SH.path)
        if path is not None and not isinstance(path, URIRef):
            raise UnsupportedShape(f"{shape}: only predicate paths")
        c.path = path
        counts: list[PathComponent] = []
        for component, pred in ((MinCount, SH.minCount), (MaxCount, SH.maxCount)):
            value = g.value(shape, pred)
            if value is not None:
                counts.append(component(int(str(value))))  # its lexical form
        has_value = g.value(shape, SH.hasValue)
        if has_value is not None:
            counts.append(HasValue(has_value))
        checks: list[ValueComponent] = []
        datatype = g.value(shape, SH.datatype)
        if datatype is not None:
            checks.append(Datatype(datatype))
        minimum = g.value(shape, SH.minInclusive)
        if minimum is not None:
            bound = numeric_value(minimum)
            if bound is None:
                raise UnsupportedShape(f"{shape}: sh:minInclusive with a number only")
            checks.append(MinInclusive(bound))
        pattern = g.value(shape, SH.pattern)
        if pattern is not None:
            checks.append(Pattern(re.compile(str(pattern))))
        checks += [Class(cls) for cls in g.objects(shape, SH["class"])]
        node_kind = g.value(shape, SH.nodeKind)
        nodes = [Node(self.constraints(n)) for n in g.objects(shape, SH.node)]
        alternatives = [
            self.constraints(a)
            for alternatives in g.objects(shape, SH["or"])
            for a in Collection(g, alternatives)
        ]
        if node_kind is not None:
            checks.append(NodeKind(node_kind))
        checks += nodes
        if alternatives:
            checks.append(Or(tuple(alternatives)))
        c.counts, c.checks = counts, checks
        c.properties = [self.constraints(p) for p in g.objects(shape, SH.property)]
        c.message = str(g.value(shape, SH.message) or "")
        return c


def superclasses(terms: Graph) -> dict[URIRef, set[URIRef]]:
    """Every class of the ontology with all its superclasses (rdfs:subClassOf, closed)."""
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
