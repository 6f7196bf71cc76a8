"""A record as a W3C Web Annotation: the claim anchored on the exact file it was read in.

A record says "this file, at this place, states this number". The Web Annotation Data
Model (https://www.w3.org/TR/annotation-model/) says the same in a form annotation tools
read: a *target* (a segment of a resource, given by selectors) and a *body* (what is said
about it). :func:`web_annotation` writes one annotation per record, in JSON-LD with the
standard context ``http://www.w3.org/ns/anno.jsonld`` by reference, so that tools
recognise it; ``schemas/web-annotation/`` holds a copy of that context, and
:func:`document_loader` gives it to pyld for that URL, so expanding it needs no network.

The choices, and why:

- **id**: the record's IRI + ``.wa.jsonld``, the URL the web app answers with this very
  document (``/record/ID.wa.jsonld``). The Web Annotation Protocol has an annotation's IRI
  give the annotation; a fragment of the record's IRI (``#annotation``) would give the
  record page instead, and would name a node the record's graph does not hold.
- **motivation** ``describing``: the body describes what the target states (the claim and
  its value). The registry is not commenting, assessing or highlighting; ``identifying``
  is the purpose of the second body, the record's IRI: the registry's identity for the
  claim the passage makes.
- **target source**: the file, by content. Its id is the RFC 6920 name of its SHA-256
  (``ni:///sha-256;`` + the digest in unpadded base64url), so a tool anchors on those
  bytes only, wherever a copy lies. No ``urn:`` form is given: no URN namespace for hashes
  is registered (``urn:sha256:`` is a convention, not a standard); the registry's own IRI
  of the file (which ends in the hex digest) is given as ``owl:sameAs``, and the source
  document as ``dcterms:isVersionOf`` (both prefixes are in the context, so expansion keeps
  them; a bare key the context lacks would be dropped). ``via`` is where the file was
  retrieved from, ``format`` its media type where the data states one.
  The file is the one the locator names, else the one the source pins (``kg:artifact``:
  the file the reviews checked, whose pages and text the locator's page and quote are).
  A record whose source pins no file is anchored on the source document itself (its IRI).
- **selectors**: the locator's. A page (``page=N``, RFC 3778's PDF fragment) and a quote
  are not two ways of naming one segment (a whole page is not the sentence), and the model
  makes several selectors of one resource alternatives for one segment. So the page is
  given *refined by* the quote (the quote within page N), and beside it the quote alone,
  for tools that know no ``refinedBy``: both select the quoted sentence. An imported
  record's place is a JSON Pointer (RFC 6901) as a fragment selector.
- **creator and generator**: the registry (claimgraph), which makes the annotation from the
  record; the record's own agents (its reviewers, the extraction agent) made the record,
  not this annotation, and the record's IRI leads to them.
"""

from __future__ import annotations

import base64
import json
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pyoxigraph as ox
from pyld.jsonld import JsonLdError

from ..errors import NotFoundError
from ..model.fields import field_text, field_value
from ..model.mapping.json_triples import JSON_POINTER
from ..model.mapping.record import PDF_FRAGMENT
from ..rdf.facts import Facts, Term
from ..rdf.namespaces import DCAT, DCTERMS, KG, OA, PROV, QUDT, RDF, SCHEMA, SPDX
from ..resources import resource_dir

#: The Web Annotation JSON-LD context, by the URL the specification gives it.
ANNO_CONTEXT = "http://www.w3.org/ns/anno.jsonld"
#: The same document at its https address (some tools write that one).
ANNO_CONTEXT_HTTPS = "https://www.w3.org/ns/anno.jsonld"
#: The suffix of an annotation's id (and of its URL in the web app) after the record's IRI.
SUFFIX = ".wa.jsonld"
#: The file's checksum algorithm the registry records.
SHA256 = "http://spdx.org/rdf/terms#checksumAlgorithm_sha256"
#: Characters a URI fragment holds as they are (RFC 3986 pchar, "/" and "?", beyond the
#: unreserved ones ``quote`` always keeps): a JSON Pointer's other characters are
#: percent-encoded, as RFC 6901 section 6 writes a pointer in a fragment.
FRAGMENT_SAFE = "/?:@!$&'()*+,;="
#: Who makes the annotations (the ``creator`` and ``generator``).
REGISTRY_NAME = "claimgraph"


def context_path() -> Path:
    """Where the vendored copy of ``anno.jsonld`` is (in a checkout or an installed wheel)."""
    return resource_dir("schemas") / "web-annotation" / "anno.jsonld"


@cache
def anno_context() -> dict[str, Any]:
    """The vendored ``anno.jsonld`` document, parsed (its ``@context`` inside)."""
    return json.loads(context_path().read_text(encoding="utf-8"))


def document_loader(url: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A pyld document loader that gives the vendored ``anno.jsonld`` for its URL and refuses
    every other URL, so expanding an annotation never goes to the network.

    :raises JsonLdError: for any URL but the Web Annotation context's.
    """
    if url in (ANNO_CONTEXT, ANNO_CONTEXT_HTTPS):
        return {"contextUrl": None, "documentUrl": url, "document": anno_context()}
    raise JsonLdError(
        f"only the Web Annotation context is loaded offline, not {url!r}",
        "jsonld.LoadDocumentError",
        {"url": url},
        code="loading document failed",
    )


def ni_uri(sha256_hex: str) -> str:
    """The RFC 6920 name of a SHA-256: ``ni:///sha-256;`` and the digest in base64url
    without padding.

    :raises ValueError: when ``sha256_hex`` is not 64 hexadecimal digits.
    """
    digest = bytes.fromhex(sha256_hex)
    if len(digest) != 32:
        raise ValueError(f"not a SHA-256: {sha256_hex!r}")
    return "ni:///sha-256;" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def annotation_id(record_iri: str) -> str:
    """The id of a record's annotation: the URL the web app serves it at."""
    return record_iri + SUFFIX


def web_annotation(
    quads: list[ox.Quad], record_iri: str, base: str | None = None
) -> dict[str, Any]:
    """Record ``record_iri`` (``quads``: its closure, as :func:`kg.store.records.describe`
    gives it) as one Web Annotation, a JSON-LD document (see the module's docstring);
    ``base``, the registry's base IRI, is the home page of its creator.

    :raises NotFoundError: when the quads hold no claim of that IRI.
    """
    f = Facts(quads)
    record = ox.NamedNode(record_iri)
    if not f.has_type(record, KG.Claim):
        raise NotFoundError(f"no record {record_iri}")
    registry: dict[str, Any] = {"type": "Software", "name": REGISTRY_NAME}
    if base:
        registry["homepage"] = base
    return {
        "@context": ANNO_CONTEXT,
        "id": annotation_id(record_iri),
        "type": "Annotation",
        "motivation": "describing",
        "creator": registry,
        "generator": registry,
        "body": _bodies(f, record),
        "target": _target(f, record),
    }


def _bodies(f: Facts, record: ox.NamedNode) -> list[dict[str, Any]]:
    """The claim in words (title, value as printed, unit), and the record's IRI."""
    unit = field_value(f, record, "unit")
    printed = " ".join(
        filter(None, (field_text(f, record, "printed"), f.concept(unit, QUDT.symbol)))
    )
    words = ": ".join(filter(None, (f.text(record, DCTERMS.title), printed)))
    standing = f.text(record, KG.standingSummary)  # only where the claim is not current
    if standing:
        words += f" (standing in claimgraph: {standing})"
    return [
        {
            "type": "TextualBody",
            "purpose": "describing",
            "value": words,
            "format": "text/plain",
            "language": "en",
        },
        {"type": "SpecificResource", "purpose": "identifying", "source": record.value},
    ]


def _target(f: Facts, record: ox.NamedNode) -> dict[str, Any]:
    """The file (or the source document) with the locator's selectors."""
    locator = field_value(f, record, "locator")
    named = f.one(locator, OA.hasSource) or field_value(f, record, "source")
    if named is not None and f.has_type(named, KG.SourceArtifact):
        artifact: Term | None = named
        document = f.one(named, PROV.specializationOf)
    else:
        artifact, document = field_value(f, named, "artifact"), named
    target: dict[str, Any] = {"type": "SpecificResource", "source": _file(f, artifact, document)}
    selectors = _selectors(f, locator)
    if selectors:
        target["selector"] = selectors[0] if len(selectors) == 1 else selectors
    return target


def _file(f: Facts, artifact: Term | None, document: Term | None) -> dict[str, Any]:
    """The annotated file, named by its SHA-256; the source document where none is pinned."""
    sha = _sha256(f, artifact)
    if artifact is None or sha is None:  # (a pinned file always has its SHA-256)
        return _document(f, document)
    media_type = f.text(artifact, DCAT.mediaType)
    node: dict[str, Any] = {"id": ni_uri(sha), "type": _resource_class(f, media_type, document)}
    if media_type:
        node["format"] = media_type
    retrieved = f.text(artifact, DCAT.downloadURL)
    if retrieved:
        node["via"] = retrieved
    node["owl:sameAs"] = {"id": artifact.value}
    if document is not None:
        node["dcterms:isVersionOf"] = _document(f, document)
    return node


def _document(f: Facts, document: Term | None) -> dict[str, Any]:
    """A source document: its IRI, class, title, DOI and landing page."""
    out: dict[str, Any] = {"id": document.value} if document is not None else {}
    out["type"] = _resource_class(f, "", document)
    title = f.text(document, DCTERMS.title)
    if title:
        out["dcterms:title"] = title
    doi = field_text(f, document, "doi")
    if doi:
        out["owl:sameAs"] = {"id": f"https://doi.org/{doi}"}
    landing = field_text(f, document, "landingPage")
    if landing:
        out["homepage"] = landing
    return out


def _resource_class(f: Facts, media_type: str, document: Term | None) -> str:
    """The model's class of a resource: ``Dataset`` for a JSON file or a data set (a
    leaderboard), else ``Text`` (papers, preprints and reports, whatever their format)."""
    if media_type.split(";")[0].endswith(("/json", "+json")):
        return "Dataset"
    if document is not None and f.has_type(document, SCHEMA.Dataset):
        return "Dataset"
    return "Text"


def _sha256(f: Facts, artifact: Term | None) -> str | None:
    for checksum in f.all(artifact, SPDX.checksum):
        algorithm = f.one(checksum, SPDX.algorithm)
        if algorithm is None or algorithm.value == SHA256:
            value = f.text(checksum, SPDX.checksumValue)
            if value:
                return value
    return None


def _selectors(f: Facts, locator: Term | None) -> list[dict[str, Any]]:
    """The locator's selectors: a page refined by the quote, then the quote alone; any
    other fragment (an imported record's JSON Pointer) as it is."""
    quotes: list[dict[str, Any]] = []
    pages: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    for selector in f.all(locator, OA.hasSelector):
        if f.has_type(selector, OA.TextQuoteSelector):
            found = {"type": "TextQuoteSelector", "exact": f.text(selector, OA.exact)}
            for key, predicate in (("prefix", OA.prefix), ("suffix", OA.suffix)):
                if f.text(selector, predicate):
                    found[key] = f.text(selector, predicate)
            quotes.append(found)
        elif f.has_type(selector, OA.FragmentSelector):
            spec = f.one(selector, DCTERMS.conformsTo)
            value = f.text(selector, RDF.value)
            if spec is not None and spec.value == str(JSON_POINTER):
                value = quote(value, safe=FRAGMENT_SAFE)
            found = {"type": "FragmentSelector", "value": value}
            if spec is not None:
                found["conformsTo"] = spec.value
            (pages if spec is not None and spec.value == str(PDF_FRAGMENT) else others).append(
                found
            )
    if len(pages) == 1 and quotes:
        refined = {**pages[0], "refinedBy": quotes[0] if len(quotes) == 1 else quotes}
        return [refined, *quotes, *others]
    return [*pages, *quotes, *others]


def annotation_bytes(quads: list[ox.Quad], record_iri: str, base: str | None = None) -> bytes:
    """:func:`web_annotation` written as the export and the web app give it."""
    doc = web_annotation(quads, record_iri, base)
    return (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode()
