"""Review activities: the upstream review inside a record file, and ``kind: review`` files."""

from __future__ import annotations

from rdflib import URIRef

from ..namespaces import KG, KGV, PROV, RDFS, XSD
from .context import Node


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
    node.children("checks", KG.check, build_check)


def build_check(node: Node, position: int) -> None:
    """One check a review performed, with its outcome (passed, failed, not-checked)."""
    node.type(KG.Check)
    node.concept("method", KG.method)
    node.concept("outcome", KG.outcome)
    node.literal("detail", RDFS.comment)


def artifact_iri(source: URIRef, sha256: str) -> URIRef:
    """An artifact is named by its source and its content hash."""
    return URIRef(f"{source}#sha256-{sha256}")


def map_review_file(node: Node) -> None:
    """A ``kind: review`` file: a review claimgraph made (``kg verify``) of one record."""
    claim = node.ref("record", KG.reviewOf, "record")
    if claim is not None:
        node.ctx.add(node.subject, PROV.used, claim)
    source = node.ref("source", KG.reviewedSource, "source")
    build_review(node, source, "claimgraph")
