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
from ..rdf.namespaces import PREFIXES, RDF, SKOS

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

    @property
    def predicate(self) -> URIRef:
        """The predicate of its first step (a one-step field's own), for a reader that
        walks it backwards: the records a run reproduces, a review reviews."""
        return self.steps[0][0]

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


def field_value(facts: Facts, node: Term | None, name: str) -> Term | None:
    """The first value of the field ``name`` of ``node`` (None when it has none).

    :raises KeyError: for a name no field has.
    """
    return first(FIELDS[name].values(facts, node))


def field_text(facts: Facts, node: Term | None, name: str) -> str:
    """That value's lexical form or IRI ("" when it has none)."""
    found = field_value(facts, node, name)
    return found.value if found is not None else ""


def meant(reason_label: str, printed: str) -> str:
    """What a page, a listing or a citation says of a printed value that stands for no
    value (docs/imports.md, "What a source meant"): ``not computed (printed -1.0)``."""
    return f"{reason_label} (printed {printed})"


def meant_text(facts: Facts, record: Term | None) -> str:
    """:func:`meant` of a record whose value stands for none ("" for any other record)."""
    reason = field_value(facts, record, "valueReason")
    if reason is None:
        return ""
    label = facts.concept(reason, SKOS.altLabel) or facts.concept(reason)
    return meant(label, field_text(facts, record, "printed"))


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
    # the scale the upstream declares for its metric (min_score, max_score), where it does
    Field("minScore", "kg:minScore", "xsd:decimal", claims_only=True),
    Field("maxScore", "kg:maxScore", "xsd:decimal", claims_only=True),
    Field("evidenceKind", "kg:evidenceKind"),
    Field("status", "kg:reviewStatus"),
    Field("source", "prov:wasQuotedFrom"),
    Field("reportedValue", "kg:reportedValue"),
    Field("printed", "kg:reportedValue/kg:printedValue", "xsd:string"),
    Field("value", "kg:reportedValue/qudt:numericValue", "xsd:decimal"),
    Field("display", "kg:reportedValue/kg:displayValue", "xsd:string"),
    # why the printed value stands for no value (a placeholder: docs/imports.md)
    Field("valueReason", "kg:reportedValue/kg:reason"),
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
    # -- a source document, and its artifact (the file whose SHA-256 a review checked) -------
    Field("issued", "dcterms:issued", of="source"),  # a year, a month or a day
    Field("venue", "kg:venue", "xsd:string", of="source"),
    Field("documentType", "dcterms:type", of="source"),
    Field("doi", "kg:doi", "xsd:string", of="source"),
    Field("landingPage", "schema:url", of="source"),
    Field("artifact", "kg:artifact", of="source"),
    Field("pdfUrl", "kg:artifact/dcat:downloadURL", of="source"),
    Field("versionStatement", "kg:artifact/kg:versionStatement", "xsd:string", of="source"),
    Field("pageCount", "kg:artifact/kg:pageCount", "xsd:positiveInteger", of="source"),
    Field("pdfCreated", "kg:artifact/kg:pdfCreationDate", "xsd:date", of="source"),
    Field("hashScope", "kg:artifact/kg:hashScope", "xsd:string", of="source"),  # or a reason
    Field(
        "artifactSha256", "kg:artifact/spdx:checksum/spdx:checksumValue", "xsd:string", of="source"
    ),
    # -- a reproduction run (a prov:Activity of its own), and what it generated -------------
    Field("reproduces", "kg:reproduces", of="run"),
    Field("runStatus", "kg:runStatus", of="run"),
    Field("started", "prov:startedAtTime", "xsd:dateTime", of="run"),  # a review's too
    Field("ended", "prov:endedAtTime", "xsd:dateTime", of="run"),
    Field("runAgent", "prov:wasAssociatedWith", of="run"),
    Field("recipe", "schema:instrument", of="run"),
    Field("recipePath", "schema:instrument/kg:recipePath", "xsd:string", of="run"),
    Field("gpuModel", "kg:environment/kg:gpuModel", "xsd:string", of="run"),
    Field("gpuCount", "kg:environment/kg:gpuCount", "xsd:nonNegativeInteger", of="run"),
    Field("gpuMemory", "kg:environment/kg:gpuMemory", "xsd:string", of="run"),
    Field("parameter", "kg:parameter", of="run"),
    Field("measurement", "prov:generated", of="run"),
    Field("stageResult", "kg:stageResult", of="run"),
    Field("verdict", "kg:verdict", of="run"),
    # -- a review (an upstream registry's, or kg verify's), and what it checked -------------
    Field("reviewOf", "kg:reviewOf", of="review"),
    Field("reviewer", "prov:wasAssociatedWith", of="review"),
    Field("role", "prov:qualifiedAssociation/prov:hadRole", of="review"),
    Field("reviewerNote", "prov:qualifiedAssociation/rdfs:comment", "xsd:string", of="review"),
    Field("reviewedAt", "prov:endedAtTime", "xsd:dateTime", of="review"),
    Field("reviewStatus", "kg:reviewStatus", of="review"),
    Field("reviewMethod", "kg:method", of="review"),
    Field("methodNote", "kg:methodNote", "xsd:string", of="review"),
    Field("outcomeNote", "kg:outcomeNote", "xsd:string", of="review"),
    Field("origin", "kg:origin", of="review"),
    Field("usedArtifact", "kg:usedArtifact", of="review"),
    Field(
        "usedSha256", "kg:usedArtifact/spdx:checksum/spdx:checksumValue", "xsd:string", of="review"
    ),
    Field("usedUrl", "kg:usedArtifact/dcat:downloadURL", of="review"),
    Field("usedHashScope", "kg:usedArtifact/kg:hashScope", "xsd:string", of="review"),
    Field("check", "kg:check", of="review"),
    Field("fileName", "kg:checkedFile/kg:fileName", "xsd:string", of="review"),
    Field(
        "fileSha256", "kg:checkedFile/spdx:checksum/spdx:checksumValue", "xsd:string", of="review"
    ),
    # -- what an imported result is cited and licensed by (kg/model/licences.py) -----------
    Field("importedBy", "kg:importedBy"),
    Field("upstreamLicence", "kg:importedBy/dcterms:license"),
    Field("retrievedAt", "kg:evaluation/kg:retrievedAt", "xsd:dateTime"),
    Field("originRepository", "kg:importedBy/kg:originRepository"),
    Field("originCommit", "kg:importedBy/kg:originCommit", "xsd:string"),
    Field("upstreamPath", "kg:locator/oa:hasSource/kg:upstreamPath", "xsd:string"),
    Field("publisher", "dcterms:publisher", "xsd:string", of="source"),
    # -- an evaluation (the file an imported result comes from) -----------------------------
    Field("params", "kg:parametersBillions", "xsd:decimal", of="evaluation"),
    Field("precision", "kg:precision", "xsd:string", of="evaluation"),
)
