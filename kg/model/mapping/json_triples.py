"""Triples made from a JSON document, each remembering the JSON Pointer it came from (so
a shape's complaint names the place in the file), and what the document says beyond them,
kept as JSON with the numbers as written (``kg:upstreamRemainder``), so nothing is dropped.

A value is mapped as the JSON gives it (a string as a string, a number as a number, ...):
the shapes judge whether it fits its field. One they refuse is mapped again kept as written
(``as_written``): the typed triple left out, a ``kg:UpstreamValue`` with its pointer in its
place, and the value in the remainder (:func:`kg.model.validation.map_fitted`).
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

    def __init__(self, as_written: frozenset[tuple[str, str, str]] = frozenset()) -> None:
        self.triples: list[Triple] = []
        self.origins = Origins()
        self.used: set[str] = set()  # the pointers of the values mapped to statements
        self.label = ""
        #: (subject, predicate, pointer) of the values to keep as written, not typed.
        self.as_written = as_written
        #: The pointers of the values kept as written.
        self.kept_as_written: set[str] = set()
        self._written_count: dict[URIRef, int] = {}

    def node(self, subject: URIRef, where: str, *classes: URIRef) -> URIRef:
        self.origins.nodes.setdefault(subject, where)
        self.origins.labels.setdefault(subject, self.label)
        for cls in classes:
            self.triples.append((subject, RDF.type, cls))
        return subject

    def add(
        self, s: URIRef, p: URIRef, o: Any, where: str | None = None, raw: str | None = None
    ) -> None:
        if where is not None and self.as_written and (str(s), str(p), where) in self.as_written:
            self._keep_as_written(s, p, where, raw if raw is not None else str(o))
            return
        self.triples.append((s, p, o))
        if where is not None:
            self.origins.fields.setdefault((s, p), where)
            self.origins.values.setdefault((s, p, o), (where, raw if raw is not None else str(o)))
            self.used.add(where)

    def text(self, s: URIRef, p: URIRef, value: Any, where: str) -> None:
        """A string the file gives (nothing for null or none); a value of another JSON
        type as that type, which the shapes refuse."""
        if isinstance(value, str):
            self.add(s, p, literal(value), where, value)
        elif value is not None:
            self.add(s, p, as_json(value), where, written(value))

    def number(self, s: URIRef, p: URIRef, value: Any, where: str) -> None:
        """A number the file gives, as an exact ``xsd:decimal`` (another JSON type as that
        type, which the shapes refuse)."""
        if isinstance(value, JsonNumber):
            self.add(s, p, literal(value.decimal_lexeme(), XSD.decimal), where, value.lexeme)
        elif value is not None:
            self.add(s, p, as_json(value), where, written(value))

    def link(self, s: URIRef, p: URIRef, value: Any, where: str) -> None:
        """A web address as an IRI; a literal when it is none (the shapes say so)."""
        if isinstance(value, str):
            self.add(s, p, URIRef(value) if is_web_url(value) else literal(value), where, value)
        elif value is not None:
            self.add(s, p, as_json(value), where, written(value))

    def _keep_as_written(self, s: URIRef, p: URIRef, where: str, raw: str) -> None:
        """``raw`` (at ``where``) kept as written on ``s``, in place of its ``p``."""
        count = self._written_count[s] = self._written_count.get(s, 0) + 1
        node = URIRef(f"{s}{'-' if '#' in s else '#'}as-written-{count}")
        self.triples.append((s, KG.upstreamValue, node))
        self.node(node, where, KG.UpstreamValue)
        self.triples.append((node, KG.pointer, literal(where)))
        self.triples.append((node, RDF.value, literal(raw)))
        self.triples.append((node, KG.field, p))
        self.kept_as_written.add(where)


def as_json(value: Any) -> Literal:
    """A JSON value as the literal of its type: a string, an ``xsd:decimal``, an
    ``xsd:boolean``, or an object or array as JSON text."""
    if isinstance(value, str):
        return literal(value)
    if isinstance(value, JsonNumber):
        return literal(value.decimal_lexeme(), XSD.decimal)
    if isinstance(value, bool):
        return literal("true" if value else "false", XSD.boolean)
    return Literal(written(value), datatype=JSON_TEXT, normalize=False)


def written(value: Any) -> str:
    """A JSON value as the file writes it (a string as itself)."""
    if isinstance(value, str):
        return value
    if isinstance(value, JsonNumber):
        return value.lexeme
    return dumps(value)


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
