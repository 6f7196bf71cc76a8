"""Triples made from a JSON document, each remembering the JSON Pointer it came from (so
a shape's complaint names the place in the file), and what the document says beyond them,
kept as JSON with the numbers as written (``kg:upstreamRemainder``), so nothing is dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rdflib import Literal, URIRef

from ...rdf.namespaces import DCAT, KG, PROV, RDF, SPDX, XSD
from ..upstream.jsondoc import JsonNumber, child, dumps
from .context import Origins, Triple, is_web_url
from .review import artifact_iri

if TYPE_CHECKING:
    from ..upstream.kept import KeptFile

JSON_TEXT = KG.JSONText
#: What a locator's fragment selector conforms to: RFC 6901, JSON Pointer.
JSON_POINTER = URIRef("http://tools.ietf.org/rfc/rfc6901")
#: Literals made before, by (text, datatype): most values recur from file to file (metric
#: names, descriptions, data sets, bounds), and an rdflib Literal is slow to make (a fifth
#: of the Every Eval Ever mapping's time). Cleared when full.
_LITERALS: dict[tuple[object, URIRef | None], Literal] = {}
_MOST_LITERALS = 200_000


def literal(text: str | int | bool, datatype: URIRef | None = None) -> Literal:
    """The literal of ``text`` (with ``datatype``), its lexical form as given."""
    key = (text, datatype)
    found = _LITERALS.get(key)
    if found is None:
        if len(_LITERALS) >= _MOST_LITERALS:
            _LITERALS.clear()
        found = _LITERALS[key] = Literal(text, datatype=datatype, normalize=False)
    return found


class TripleBuilder:
    """Triples with the JSON Pointer each came from, for messages in terms of the file."""

    def __init__(self) -> None:
        self.triples: list[Triple] = []
        self.origins = Origins()
        self.used: set[str] = set()  # the pointers of the values mapped to statements
        self.label = ""

    def node(self, subject: URIRef, where: str, *classes: URIRef) -> URIRef:
        self.origins.nodes.setdefault(subject, where)
        self.origins.labels.setdefault(subject, self.label)
        for cls in classes:
            self.triples.append((subject, RDF.type, cls))
        return subject

    def add(
        self, s: URIRef, p: URIRef, o: Any, where: str | None = None, raw: str | None = None
    ) -> None:
        self.triples.append((s, p, o))
        if where is not None:
            self.origins.fields.setdefault((s, p), where)
            self.origins.values.setdefault((s, p, o), (where, raw if raw is not None else str(o)))
            self.used.add(where)

    def text(self, s: URIRef, p: URIRef, value: Any, where: str) -> None:
        """A string the file gives (nothing when it gives none, or something else)."""
        if isinstance(value, str):
            self.add(s, p, literal(value), where, value)

    def number(self, s: URIRef, p: URIRef, value: Any, where: str) -> None:
        """A number the file gives, as an exact ``xsd:decimal``."""
        if isinstance(value, JsonNumber):
            self.add(s, p, literal(value.decimal_lexeme(), XSD.decimal), where, value.lexeme)

    def link(self, s: URIRef, p: URIRef, value: Any, where: str) -> None:
        """A web address as an IRI; a literal when it is none (the shapes say so)."""
        if isinstance(value, str):
            self.add(s, p, URIRef(value) if is_web_url(value) else literal(value), where, value)


def remainder(
    out: TripleBuilder,
    subject: URIRef,
    value: dict[str, Any],
    at: str,
    skip: frozenset[str] | set[str] = frozenset(),
) -> None:
    """What ``value`` says beyond the statements made of it, as JSON."""
    rest = _without(value, at, out.used, skip)
    if rest:
        out.add(
            subject, KG.upstreamRemainder, Literal(dumps(rest), datatype=JSON_TEXT, normalize=False)
        )


def _without(value: dict[str, Any], at: str, used: set[str], skip) -> dict[str, Any]:
    """``value`` less the mapped places (and the keys in ``skip``); an object that held only
    mapped places goes too, one that was empty stays (it is part of what the file says)."""
    rest: dict[str, Any] = {}
    for key, item in value.items():
        where = child(at, key)
        if key in skip or where in used:
            continue
        if isinstance(item, dict) and item:
            inner = _without(item, where, used, ())
            if inner:
                rest[key] = inner
        else:
            rest[key] = item
    return rest


def kept_artifact(out: TripleBuilder, kept: KeptFile, source: URIRef, imported: URIRef) -> URIRef:
    """The kept file as its records' source artifact (``kg:artifact``, their locators'
    ``oa:hasSource``): named by its source and hash, as a PDF artifact is; its SHA-256,
    size, media type and paths, and the import that kept it."""
    artifact = out.node(artifact_iri(source, kept.sha256), "", PROV.Entity, KG.SourceArtifact)
    checksum = out.node(URIRef(f"{artifact}-checksum"), "", SPDX.Checksum)
    out.add(artifact, PROV.specializationOf, source)
    out.add(artifact, SPDX.checksum, checksum)
    out.add(checksum, SPDX.algorithm, SPDX.checksumAlgorithm_sha256)
    out.add(checksum, SPDX.checksumValue, literal(kept.sha256))
    out.add(artifact, DCAT.mediaType, literal("application/json"))
    out.add(artifact, DCAT.byteSize, literal(str(kept.size), XSD.nonNegativeInteger))
    out.add(artifact, KG.keptFile, literal(kept.kept_path))
    out.add(artifact, KG.upstreamPath, literal(kept.upstream_path))
    out.add(artifact, PROV.wasGeneratedBy, imported)
    return artifact
