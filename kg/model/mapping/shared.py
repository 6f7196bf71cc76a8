"""The shared kinds, referenced by id from records: sources, agents, evaluations."""

from __future__ import annotations

from rdflib import Literal, URIRef

from ...rdf.namespaces import DCAT, DCTERMS, KG, PROV, RDF, RDFS, SCHEMA, XSD
from .context import Node, build_checksum, concept_iri
from .links import author_links, source_links
from .review import artifact_iri


def typed_by_concept(node: Node, key: str) -> None:
    """A type concept (``paper``, ``software``) and the RDF classes the vocabulary ties to it."""
    kind = node.concept(key, DCTERMS.type)
    if kind is not None:
        node.type(*node.ctx.terms.classes_of(concept_iri(kind)))


def map_source(node: Node) -> None:
    """A source document and the one file of it (the artifact) that was checked."""
    ctx = node.ctx
    node.type(PROV.Entity, KG.SourceDocument)
    typed_by_concept(node, "document_type")
    node.literal("title", DCTERMS.title)
    node.literal("publisher", DCTERMS.publisher)
    node.children(
        "authors", DCTERMS.creator, _author, subject=lambda i: URIRef(f"{node.subject}#author-{i}")
    )
    node.literal("venue", KG.venue)
    date = node.scalar("date", DCTERMS.issued)
    if date is not None:
        node.emit("date", DCTERMS.issued, _partial_date(date), date)
    node.literal("doi", KG.doi)
    node.url("url", SCHEMA.url)
    source_links(node)
    # What an upstream file said of the source that does not fit its field (kg import).
    node.children("upstream_values", KG.upstreamValue, _upstream_value)

    # The artifact's IRI holds its hash, so reviews name the very file they checked.
    artifact = node.declare("artifact", KG.artifact)
    sha = artifact.get("sha256") if isinstance(artifact, dict) else None
    source = node.subject
    assert isinstance(source, URIRef)  # a file's own node: its minted IRI (map_file)
    subject = artifact_iri(source, sha if isinstance(sha, str) else "")
    built = node.child("artifact", KG.artifact, _artifact, subject=subject)
    if built is not None:
        ctx.add(subject, PROV.specializationOf, node.subject)


def _upstream_value(node: Node, _position: int) -> None:
    node.type(KG.UpstreamValue)
    node.literal("file", KG.upstreamPath)
    node.literal("pointer", KG.pointer)
    node.literal("value", RDF.value)


def _author(node: Node, position: int) -> None:
    node.type(SCHEMA.Person)
    node.ctx.add(node.subject, KG.position, Literal(position))
    node.literal("family", SCHEMA.familyName)
    node.literal("given", SCHEMA.givenName)
    author_links(node)


def _artifact(node: Node) -> None:
    node.type(PROV.Entity, KG.SourceArtifact)
    build_checksum(node, "sha256")
    node.literal("version_statement", KG.versionStatement)
    node.literal("page_count", KG.pageCount, XSD.positiveInteger)
    node.literal("pdf_creation_date", KG.pdfCreationDate, XSD.date)
    node.url("retrieval_url", DCAT.downloadURL)
    node.value_or_missing("hash_scope", KG.hashScope)
    node.literal("media_type", DCAT.mediaType)


def map_agent(node: Node) -> None:
    """A person, organization or piece of software that reviews or runs."""
    node.type(PROV.Agent)
    typed_by_concept(node, "agent_type")
    node.literal("label", RDFS.label)
    node.literal("note", RDFS.comment)
    node.literal("version", KG.softwareVersion)
    node.url("homepage", SCHEMA.url)


def map_evaluation(node: Node) -> None:
    """An evaluation: the measurement setting several records may share."""
    node.type(PROV.Entity, KG.Evaluation)
    node.literal("title", DCTERMS.title)
    node.literal("description", DCTERMS.description)
    node.ref("source", DCTERMS.source, "source")


def _partial_date(value: str) -> Literal:
    """A year, a year and month, or a full date: the precision the source gives, no more."""
    datatype = {4: XSD.gYear, 7: XSD.gYearMonth}.get(len(value), XSD.date)
    return Literal(value, datatype=datatype, normalize=False)
