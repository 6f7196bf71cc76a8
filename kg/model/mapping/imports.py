"""``kind: import``: the activity that kept another registry's files and made records of them."""

from __future__ import annotations

from rdflib import Literal, URIRef

from ...rdf.namespaces import DCTERMS, KG, PROV, RDFS, XSD
from ..upstream import FORMATS
from .context import Node, build_package

SPDX_LICENSES = "http://spdx.org/licenses/"


def map_import(node: Node) -> None:
    """An import record (written by ``kg import``; docs/records.md gives its keys)."""
    node.type(PROV.Activity, KG.Import)
    node.literal("title", DCTERMS.title)
    fmt = node.literal("format", KG.format)
    if fmt is not None and fmt not in FORMATS:
        node.ctx.problem("format", f"not a format kg import reads ({fmt!r}; one of: "
                                   + ", ".join(FORMATS) + ")")
    origin = node.declare("origin")
    if origin is not None:  # its keys are statements about the import itself
        inner = node.ctx.node(node.subject, origin, "origin")
        if inner is not None:
            _origin(inner)
            inner.done()
    licence = node.scalar("licence", DCTERMS.license)
    if licence is not None:
        # An SPDX licence id (MIT, Apache-2.0): its IRI in the SPDX licence list.
        node.emit("licence", DCTERMS.license, URIRef(SPDX_LICENSES + licence)
                  if _spdx_id(licence) else Literal(licence), licence)
    node.literal("licence_file", KG.licenceFile)
    node.ref("agent", PROV.wasAssociatedWith, "agent")
    node.literal("started_at", PROV.startedAtTime, XSD.dateTime)
    node.literal("ended_at", PROV.endedAtTime, XSD.dateTime)
    node.literal("files", KG.fileCount, XSD.nonNegativeInteger)
    node.literal("results", KG.resultCount, XSD.nonNegativeInteger)
    node.literal("manifest_sha256", KG.manifestSha256)
    node.children("unknown_fields", KG.unknownField, _unknown_field)
    node.children("skipped", KG.skippedFile, _skipped)
    node.children("software", KG.softwarePackage, build_package)
    node.literal("note", RDFS.comment)


def _origin(node: Node) -> None:
    node.url("repository", KG.originRepository)
    node.literal("commit", KG.originCommit)
    node.literal("archive", KG.originArchive)
    node.literal("archive_sha256", KG.originArchiveSha256)


def _unknown_field(node: Node, _position: int) -> None:
    node.type(KG.UnknownField)
    node.literal("pointer", KG.pointer)
    node.literal("files", KG.fileCount, XSD.nonNegativeInteger)


def _skipped(node: Node, _position: int) -> None:
    node.type(KG.SkippedFile)
    node.literal("file", KG.upstreamPath)
    node.literal("reason", RDFS.comment)


def _spdx_id(text: str) -> bool:
    return bool(text) and all(c.isalnum() or c in "-.+" for c in text)
