"""The fields readers take from a node, each declared once: its name, the path of predicates
that reaches it from the node, and the datatype of its values.

A reader names the fields it wants; how each is reached is said here. The SPARQL that the
index, the leaderboards and ``kg verify`` run is made from these declarations
(:func:`kg.store.queries.internal_query` expands ``{{rows: ...}}`` and ``{{columns: ...}}``
in a query file), and the pages and the exports read a closure by field name
(:meth:`Field.values` over :class:`~kg.rdf.facts.Facts`). A test keeps every other module
from naming the predicates of a record's fields itself, and each declared datatype equal
to the one the shapes require.

>>> FIELDS["printed"].path
'kg:reportedValue/kg:printedValue'
>>> [str(p) for p, inverse in FIELDS["method"].steps]
['https://w3id.org/claimgraph/ns#reviewOf', 'https://w3id.org/claimgraph/ns#method']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from rdflib import URIRef

from ..rdf.facts import Facts, Term
from ..rdf.namespaces import PREFIXES, RDF

#: The prefixes a field's path may use.
_PREFIXES = {**PREFIXES, "rdf": str(RDF)}


@dataclass(frozen=True)
class Field:
    """One field: a name, its path from the node (SPARQL property path syntax in the
    prefixed names of :data:`kg.rdf.namespaces.PREFIXES`: ``/`` between steps, ``^`` for
    a step read backwards), and the datatype of its values (a prefixed name; "" for an IRI
    or a plain string)."""

    name: str
    path: str
    datatype: str = ""
    #: Read of claims alone: the predicate is used by other nodes too (``?node a
    #: kg:Claim`` in the query, which also makes it one lookup per claim).
    claims_only: bool = False
    #: The kind of node whose field it is.
    of: str = "record"

    @cached_property
    def steps(self) -> tuple[tuple[URIRef, bool], ...]:
        """Each step's predicate, and whether it is read backwards."""
        return tuple(
            (expand(step.lstrip("^")), step.startswith("^")) for step in self.path.split("/")
        )

    def values(self, facts: Facts, node: Term | None) -> list[Term]:
        """The values the path reaches from ``node`` in ``facts``."""
        nodes: list[Term] = [node] if node is not None else []
        for predicate, inverse in self.steps:
            found: list[Term] = []
            for at in nodes:
                found += facts.subjects(predicate, at) if inverse else facts.all(at, predicate)
            nodes = found
        return nodes


def first(values: list[Term]) -> Term | None:
    """The first of a field's values (None when it has none)."""
    return values[0] if values else None


def expand(name: str) -> URIRef:
    """A prefixed name (``kg:metric``) as its IRI.

    :raises KeyError: for an unknown prefix.
    """
    prefix, _, local = name.partition(":")
    return URIRef(_PREFIXES[prefix] + local)


def _fields(*fields: Field) -> dict[str, Field]:
    return {field.name: field for field in fields}


#: Every declared field, by name: a record's first, then those of the nodes it links to.
FIELDS: dict[str, Field] = _fields(
    # -- a record (kg:Claim) --------------------------------------------------------------
    Field("id", "dcterms:identifier", "xsd:string", claims_only=True),
    Field("title", "dcterms:title", "xsd:string"),  # also a source's, an evaluation's
    Field("metric", "kg:metric", "xsd:string"),
    Field("metricLabel", "kg:metricLabel", "xsd:string"),
    Field("qualifier", "kg:metricQualifier", "xsd:string"),
    Field("direction", "kg:metricDirection", claims_only=True),
    Field("evidenceKind", "kg:evidenceKind"),
    Field("status", "kg:reviewStatus"),
    Field("source", "prov:wasQuotedFrom"),
    Field("reportedValue", "kg:reportedValue"),
    Field("printed", "kg:reportedValue/kg:printedValue", "xsd:string"),
    Field("value", "kg:reportedValue/qudt:numericValue", "xsd:decimal"),
    Field("display", "kg:reportedValue/kg:displayValue", "xsd:string"),
    Field("unit", "kg:reportedValue/qudt:unit"),
    Field("unitDetail", "kg:reportedValue/kg:unitDetail", "xsd:string"),
    Field("model", "kg:testedConfiguration/kg:model", "xsd:string"),
    Field("dataset", "kg:dataset/rdf:value", "xsd:string"),
    Field("locator", "kg:locator"),
    Field("page", "kg:locator/kg:page", "xsd:positiveInteger"),
    Field("quote", "kg:locator/oa:hasSelector/oa:exact", "xsd:string"),
    Field("method", "^kg:reviewOf/kg:method"),
    Field("benchmark", "kg:benchmark"),
    Field("modelNode", "kg:evaluatedModel"),
    Field("evaluation", "kg:evaluation", claims_only=True),
    Field("evaluator", "kg:evaluation/kg:evaluatorRelationship"),
    Field("developer", "kg:evaluation/kg:modelDeveloper", "xsd:string"),
    Field("sourceId", "prov:wasQuotedFrom/dcterms:identifier", "xsd:string"),
    Field(
        "sha256", "prov:wasQuotedFrom/kg:artifact/spdx:checksum/spdx:checksumValue", "xsd:string"
    ),
    # -- an evaluation (the file an imported result comes from) -----------------------------
    Field("params", "kg:parametersBillions", "xsd:decimal", of="evaluation"),
    Field("precision", "kg:precision", "xsd:string", of="evaluation"),
)
