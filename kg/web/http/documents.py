"""What an answer that is a document about something says of itself, whatever page gives
it (docs/linked-data.md): ``Content-Location``, the URL of the variant served; ``Link``
headers to its other syntaxes and to the vocabulary; in its RDF, the thing it is about
(``foaf:primaryTopic``) and the vocabulary its statements use.

URLs are on the origin the request reached (a trusted proxy's: :mod:`.proxy`); the thing
keeps its IRI, minted under the base setting.
"""

from __future__ import annotations

from urllib.parse import quote

import pyoxigraph as ox
from flask import Response, request

from ...kinds import minted_iri
from ...rdf.formats import NAMES, RDF_SYNTAXES, by_media_type, media_type_of, media_types
from ...rdf.namespaces import DCTERMS, FOAF
from ...rdf.vocabulary import ONTOLOGY

#: What a document comes as, by suffix: the alternates its Link header names.
DOCUMENT_FORMATS = ("html", *RDF_SYNTAXES)
#: The RDF syntaxes whose answer says what it is about (citations and upstream formats
#: are not RDF).
RDF_DOCUMENTS = media_types(*RDF_SYNTAXES)
#: Where the vocabulary is served (kg.web.pages.vocabulary).
VOCABULARY_PATH = "ns"


def node_stem(kind: str, ident: str) -> str:
    """A node's path on this site without its leading "/" (``record/ID``): its minted IRI
    without the base, since every minted IRI answers at its path."""
    return minted_iri("", kind, ident)


def document_url(stem: str, suffix: str = "", release: str | None = None) -> str:
    """The URL of the document at ``stem`` in the syntax ``suffix`` (none: the page's own
    URL, the canonical one), on the origin the request reached."""
    dot = f".{suffix}" if suffix else ""
    query = f"?release={quote(release, safe='')}" if release else ""
    return f"{request.host_url}{stem}{dot}{query}"


def vocabulary_link() -> str:
    """A Link header value: the ontology is described at /ns of this origin."""
    return f'<{request.host_url}{VOCABULARY_PATH}>; rel="describedby"; anchor="{ONTOLOGY}"'


def as_document(
    response: Response, stem: str, media_type: str, release: str | None = None
) -> Response:
    """``response``, the document at ``stem`` as ``media_type``, with ``Content-Location``
    (this variant's own URL) and ``Link`` to each other syntax (``rel="alternate"``) and to
    the vocabulary."""
    served = by_media_type(media_type).name
    # a page with other arguments (a board's filters) is no variant of the node's document
    if served in NAMES and set(request.args) <= {"release", "format"}:
        response.headers["Content-Location"] = document_url(stem, served, release)
    links = [
        f'<{document_url(stem, name, release)}>; rel="alternate"; type="{media_type_of(name)}"'
        for name in DOCUMENT_FORMATS
        if name != served
    ]
    response.headers["Link"] = ", ".join([*links, vocabulary_link()])
    return response


def document_quads(stem: str, topic: str, release: str | None = None) -> list[ox.Quad]:
    """What the documents at ``stem`` say of themselves: each syntax's URL is about
    ``topic`` (``foaf:primaryTopic``) and uses the vocabulary (``dcterms:conformsTo``).
    Every syntax names them all, so that one URL's Turtle and JSON-LD hold the same
    triples, and the one served (its ``Content-Location``) is among them."""
    about, conforms = (ox.NamedNode(str(p)) for p in (FOAF.primaryTopic, DCTERMS.conformsTo))
    quads = []
    for name in DOCUMENT_FORMATS:
        document = ox.NamedNode(document_url(stem, name, release))
        quads += [
            ox.Quad(document, about, ox.NamedNode(topic)),
            ox.Quad(document, conforms, ox.NamedNode(ONTOLOGY)),
        ]
    return quads
