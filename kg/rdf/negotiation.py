"""Content negotiation: one pure function serves every route.

A route offers media types in its order of preference; the client's ``Accept``
header (q-values parsed by Werkzeug) picks one, unless a format name given as a
suffix (``/record/x.ttl``) or ``?format=`` overrides it. What cannot be given is
:class:`NotAcceptable` (HTTP 406).
"""

from __future__ import annotations

from collections.abc import Sequence

from werkzeug.datastructures import MIMEAccept

from ..errors import KgError

#: Format names (suffixes and ?format= values) and the media type each stands for.
FORMATS: dict[str, str] = {
    "html": "text/html",
    "ttl": "text/turtle",
    "nt": "application/n-triples",
    "nq": "application/n-quads",
    "trig": "application/trig",
    "jsonld": "application/ld+json",
    "rdf": "application/rdf+xml",
    "json": "application/json",
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
    "srj": "application/sparql-results+json",
    "srx": "application/sparql-results+xml",
    "xml": "application/sparql-results+xml",
    # citations (the media types DOI content negotiation uses)
    "csl.json": "application/vnd.citationstyles.csl+json",
    "bib": "application/x-bibtex",
    "ris": "application/x-research-info-systems",
    # the names SPARQL clients (SPARQLWrapper) send as format=; Turtle is valid N3
    "turtle": "text/turtle",
    "n3": "text/turtle",
    "json-ld": "application/ld+json",
    "rdf+xml": "application/rdf+xml",
    # the names kg export takes
    "csl-json": "application/vnd.citationstyles.csl+json",
    "bibtex": "application/x-bibtex",
}
#: The media types of citation formats, each with the suffix of its downloads.
CITATION_SUFFIXES: dict[str, str] = {
    FORMATS[name]: name for name in ("csl.json", "bib", "ris")
}
#: The media types each RDF format name is written as by the output module.
RDF_MEDIA_TYPES: dict[str, str] = {
    FORMATS[name]: name for name in ("ttl", "nt", "nq", "trig", "jsonld", "rdf")
}


class NotAcceptable(KgError):
    """The client accepts none of the representations a resource has."""

    http_status = 406

    def __init__(self, offered: Sequence[str]):
        self.offered = list(offered)
        super().__init__("none of the requested media types is available; this resource "
                         "offers: " + ", ".join(self.offered))


def negotiate(accept: MIMEAccept, offered: Sequence[str], override: str | None = None) -> str:
    """The media type to answer with.

    ``override`` is a format name (a key of :data:`FORMATS`) or a media type, from a
    suffix or ``?format=``; it wins over ``Accept``. Without an ``Accept`` header the
    first offered type is the answer.

    :raises NotAcceptable: when the override or the Accept header names nothing offered.
    """
    if override:
        media_type = FORMATS.get(override, override)
        if media_type in offered:
            return media_type
        raise NotAcceptable(offered)
    if not accept:
        return offered[0]
    best = accept.best_match(offered)
    if best is None:
        raise NotAcceptable(offered)
    return best


def split_suffix(name: str) -> tuple[str, str | None]:
    """``x.ttl`` -> (``x``, ``ttl``), ``x.csl.json`` -> (``x``, ``csl.json``) when the
    suffix is a format name (the longest that is); else (name, None)."""
    parts = name.split(".")
    for cut in range(1, len(parts)):  # the longest suffix first
        stem, suffix = ".".join(parts[:cut]), ".".join(parts[cut:])
        if stem and suffix in FORMATS:
            return stem, suffix
    return name, None
