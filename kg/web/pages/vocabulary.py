"""``/ns``: the vocabulary the registry's data uses (``https://w3id.org/claimgraph/ns#``),
as a page listing every class, property, concept scheme and unit with how many statements
use it, or as RDF (``/ns.ttl``, ``Accept: text/turtle``, JSON-LD, ...); ``/ontology``
redirects to it."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass

import pyoxigraph as ox
from flask import Response, request

from ...errors import NotFoundError
from ...rdf.formats import by_media_type, media_types
from ...rdf.jsonld import compact
from ...rdf.namespaces import PREFIXES
from ...rdf.negotiation import negotiate
from ...rdf.output import write_graph
from ...rdf.vocabulary import ONTOLOGY, ontology_graph
from ...read.vocabulary import VocabularyView, anchor, vocabulary_view
from ...store.ontology_graphs import ontology_nquads
from ..http.documents import (
    DOCUMENT_FORMATS,
    VOCABULARY_PATH,
    as_document,
    document_quads,
    document_url,
)
from ..http.request_rules import params
from ..state import state
from .answers import HTML, render_page, respond

OFFERED = media_types(*DOCUMENT_FORMATS)


@dataclass(frozen=True)
class VocabularyPage:
    """What ``ns.html`` shows."""

    v: VocabularyView
    #: a domain's or range's IRI as a link: an anchor on this page for our terms
    href: Callable[[str], str]
    #: a domain's or range's IRI as a short name (``kg:Claim``, ``xsd:string``)
    short: Callable[[str], str]
    alternates: dict[str, str]
    canonical: str


def vocabulary(suffix: str | None = None) -> Response:
    if suffix is not None and suffix not in DOCUMENT_FORMATS:
        raise NotFoundError(f"no format {suffix!r} of the vocabulary ({', '.join(OFFERED)})")
    media_type = negotiate(request.headers.get("Accept"), OFFERED, suffix or params().get("format"))
    if media_type != HTML:
        return as_document(_rdf(media_type), VOCABULARY_PATH, media_type)
    uses = state().catalog.index.term_uses()  # counted when the version was written
    view = vocabulary_view(ontology_graph(), uses)
    ours = {term.iri for term in view.terms() if term.anchor}
    context = VocabularyPage(
        v=view,
        href=lambda iri: f"#{anchor(iri)}" if iri in ours else iri,
        short=_short,
        alternates={name: document_url(VOCABULARY_PATH, name) for name in ("ttl", "jsonld", "nt")},
        canonical=document_url(VOCABULARY_PATH),
    )
    return as_document(render_page("ns.html", context), VOCABULARY_PATH, HTML)


def ontology(suffix: str | None = None) -> Response:
    """``/ontology``: a permanent redirect to ``/ns`` (with the same suffix)."""
    response = Response(status=301)
    response.headers["Location"] = f"/{VOCABULARY_PATH}{f'.{suffix}' if suffix else ''}"
    return response


def _rdf(media_type: str) -> Response:
    """The ontology, vocabularies and units as one graph in ``media_type``, with the
    document's own statements."""
    quads = [
        ox.Quad(q.subject, q.predicate, q.object)
        for q in ox.parse(ontology_nquads(), ox.RdfFormat.N_QUADS)
    ]
    quads += document_quads(VOCABULARY_PATH, ONTOLOGY)
    fmt = by_media_type(media_type).name
    if fmt == "jsonld":
        return respond(json.dumps(compact(quads), ensure_ascii=False, indent=1) + "\n", media_type)
    out = io.BytesIO()
    write_graph(quads, fmt, out, state().settings.base)
    return respond(out.getvalue(), media_type)


def _short(iri: str) -> str:
    """``iri`` with the prefix written RDF uses (``kg:Claim``), else as it is."""
    for prefix, namespace in PREFIXES.items():
        if iri.startswith(str(namespace)):
            return f"{prefix}:{iri[len(str(namespace)) :]}"
    return iri
