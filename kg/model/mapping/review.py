"""Review activities: the upstream review inside a record file, and ``kind: review`` files."""

from __future__ import annotations

from rdflib import Literal, URIRef

from ...rdf.namespaces import DCAT, DCTERMS, KG, KGV, PROV, RDFS, XSD
from .context import Node, build_checksum, build_package


def build_review(node: Node, source: URIRef | None, origin: str) -> None:
    """The fields every review has, wherever it is written.

    ``source`` is the source document whose artifact the review checked, and
    ``origin`` says whose review it is: the upstream registry's or claimgraph's own.
    """
    node.type(PROV.Activity, KG.Review)
    node.ctx.add(node.subject, KG.origin, KGV[origin])

    node.ref("agent", PROV.wasAssociatedWith, "agent")
    association = node.facet(node.ctx.bnode())
    association.type(PROV.Association)
    node.ctx.add(node.subject, PROV.qualifiedAssociation, association.subject)
    association.ref("agent", PROV.agent, "agent")
    association.concept("role", PROV.hadRole)
    association.literal("reviewer_note", RDFS.comment)

    node.literal("started_at", PROV.startedAtTime, XSD.dateTime)
    node.literal("reviewed_at", PROV.endedAtTime, XSD.dateTime)
    node.concept("status", KG.reviewStatus)
    node.concepts("methods", KG.method)
    node.literal("method_note", KG.methodNote)
    node.literal("note", KG.outcomeNote)

    sha = node.scalar("artifact_sha256", KG.usedArtifact)
    if sha is not None and source is not None:
        artifact = artifact_iri(source, sha)
        node.emit("artifact_sha256", KG.usedArtifact, artifact, sha)
        node.ctx.add(node.subject, PROV.used, artifact)
    node.children(
        "checks", KG.check, build_check, subject=lambda i: URIRef(f"{node.subject}#check-{i}")
    )


def build_check(node: Node, position: int) -> None:
    """One check a review performed: what was checked, how, and the outcome (passed,
    failed, not-checked), with what it looked for and found (EARL's test result, in
    the project's terms)."""
    node.type(KG.Check)
    node.ctx.add(node.subject, KG.position, Literal(position))
    node.concept("check", DCTERMS.type)
    node.concept("method", KG.method)
    node.concept("outcome", KG.outcome)
    node.literal("detail", RDFS.comment)
    node.literal("expected", KG.expected)
    node.literal("found", KG.found)
    node.literal("page", KG.page, XSD.positiveInteger)
    node.literal("found_on_page", KG.foundOnPage, XSD.positiveInteger)
    node.ref("record", KG.checkedRecord, "record")


def artifact_iri(source: URIRef, sha256: str) -> URIRef:
    """An artifact is named by its source and its content hash."""
    return URIRef(f"{source}#sha256-{sha256}")


def map_review_file(node: Node) -> None:
    """A ``kind: review`` file: a review claimgraph made (``kg verify``) of one record, or of
    the records of one kept JSON file (``records``)."""
    claim = node.ref("record", KG.reviewOf, "record")
    if claim is not None:
        node.ctx.add(node.subject, PROV.used, claim)
    for path, ident in node.scalars("records", KG.reviewOf):
        claim = node.ctx.iri("record", ident)
        node.emit("records", KG.reviewOf, claim, ident, path)
        node.ctx.add(node.subject, PROV.used, claim)
    source = node.ref("source", KG.reviewedSource, "source")
    build_review(node, source, "claimgraph")
    file = URIRef(f"{node.subject}#file")
    if node.child("file", KG.checkedFile, _checked_file, subject=file) is not None:
        node.ctx.add(node.subject, PROV.used, file)
    node.children("software", KG.softwarePackage, build_package)


def _checked_file(node: Node) -> None:
    """The file the review read, with the SHA-256 computed of it: the pinned artifact only
    when the hashes agree (then ``artifact_sha256`` names it)."""
    node.type(PROV.Entity, KG.CheckedFile)
    build_checksum(node, "sha256")
    node.literal("name", KG.fileName)
    node.literal("bytes", DCAT.byteSize, XSD.nonNegativeInteger)
    node.literal("page_count", KG.pageCount, XSD.positiveInteger)
