"""Exports of one record or source, by media type: framed JSON-LD and citations.

The CLI (``kg export ID --format ...``) and the browser (``/record/ID.bib``, ``Accept:
application/x-bibtex``, ...) both come here, so a format is written one way.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable

import pyoxigraph as ox

from ..errors import NotFoundError
from ..rdf.formats import media_type_of
from ..rdf.jsonld import compact, framed_record
from ..registry import Registry
from ..store.archive import ReleaseInfo
from ..store.records import citable
from .citations import CslItem, csl_items
from .citeformats import to_bibtex, to_csl_json, to_ris
from .eee_files import export_one as export_eee
from .web_annotation import annotation_bytes

JSONLD = media_type_of("jsonld")
#: A record, or an evaluation's records, as an Every Eval Ever file.
EVERY_EVAL_EVER = media_type_of("every-eval-ever")
#: A record as a W3C Web Annotation (JSON-LD with the Web Annotation profile).
WEB_ANNOTATION = media_type_of("web-annotation")
#: Citation formats: media type -> writer of CSL items.
CITATION_WRITERS: dict[str, Callable[[list[CslItem]], str]] = {
    media_type_of("csl.json"): to_csl_json,
    media_type_of("bib"): to_bibtex,
    media_type_of("ris"): to_ris,
}
#: Every media type :func:`render` writes.
EXPORT_MEDIA_TYPES = [JSONLD, *CITATION_WRITERS, EVERY_EVAL_EVER, WEB_ANNOTATION]


def render(
    registry: Registry,
    kind: str,
    ident: str,
    quads: list[ox.Quad],
    media_type: str,
    accessed: dt.date | None = None,
    at: ReleaseInfo | None = None,
) -> bytes:
    """``quads`` (what :func:`kg.store.records.describe` gave for ``kind``/``ident``) as
    ``media_type``: a record as framed JSON-LD, anything else as compacted JSON-LD; a
    record or source as CSL-JSON, BibTeX or RIS; a record as a Web Annotation.

    A record's citation names as its version release ``at`` (the one being read), else
    the newest release in the registry's archive that holds the record.

    :raises NotFoundError: for a Web Annotation of anything but a record.
    """
    if media_type == EVERY_EVAL_EVER:
        return export_eee(registry, ident)
    if media_type == WEB_ANNOTATION:
        if kind != "record":
            raise NotFoundError(
                f"no record with id {ident!r} (a web annotation is of a record; this is a {kind})"
            )
        return annotation_bytes(quads, registry.iri(kind, ident), registry.base)
    if media_type == JSONLD:
        if kind == "record":
            doc = framed_record(quads, registry.iri(kind, ident))
        else:
            doc = compact(quads)
        return (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode()
    release = at
    if release is None and kind == "record":
        release = registry.archive.latest_holding(registry.iri(kind, ident))
    items = csl_items(registry, ident, accessed, found=(kind, quads), release=release)
    return CITATION_WRITERS[media_type](items).encode()


def export(registry: Registry, ident: str, fmt: str, accessed: dt.date | None = None) -> bytes:
    """Record or source ``ident`` as ``fmt``: a format name (``jsonld``, ``csl-json``,
    ``bibtex``, ``ris``, ``web-annotation``) or one of :data:`EXPORT_MEDIA_TYPES`; a
    record's citation names the newest release in the registry's archive that holds it.

    :raises NotFoundError: when no record or source has the id.
    """
    kind, quads = citable(registry.store, registry.base, ident)
    return render(registry, kind, ident, quads, media_type_of(fmt), accessed)
