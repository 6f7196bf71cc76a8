"""Exports of one record or source, by media type: framed JSON-LD, citations, upstream
formats' files.

The CLI (``kg export ID --format ...``) and the browser (``/record/ID.bib``, ``Accept:
application/x-bibtex``, ...) both come here, so a format is written one way. The upstream
formats are those registered (:mod:`kg.model.upstream.formats`) when a request or a command
asks: :data:`EXPORT_MEDIA_TYPES` and :data:`UPSTREAM_OFFERED` are read anew each time.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator, Mapping

import pyoxigraph as ox

from ..errors import NotFoundError
from ..model.upstream import formats
from ..rdf.formats import media_type_of
from ..rdf.jsonld import compact, framed_record
from ..registry import Registry
from ..store.archive import ReleaseInfo
from ..store.records import citable
from .bibliography import DEFAULT_STYLE, to_bibliography
from .citations import csl_items
from .citeformats import to_bibtex, to_csl_json, to_ris
from .upstream_files import export_one as export_upstream
from .web_annotation import annotation_bytes

JSONLD = media_type_of("jsonld")
#: A record as a W3C Web Annotation (JSON-LD with the Web Annotation profile).
WEB_ANNOTATION = media_type_of("web-annotation")
#: A record as a trusty nanopublication (TriG with the nanopublication profile).
NANOPUB = media_type_of("nanopub")
#: A formatted reference: written in a CSL style (:mod:`kg.export.bibliography`).
BIBLIOGRAPHY = media_type_of("bibliography")
#: Citation formats: media type -> writer of CSL items (a formatted reference's takes the
#: style too).
CITATION_WRITERS: dict[str, Callable[..., str]] = {
    media_type_of("csl.json"): to_csl_json,
    media_type_of("bib"): to_bibtex,
    media_type_of("ris"): to_ris,
    BIBLIOGRAPHY: to_bibliography,
}


class _ExportMediaTypes:
    """Every media type :func:`render` writes, in order: JSON-LD, the citations, each
    registered upstream format (a record, or an evaluation's records, as its file), the
    Web Annotation."""

    def __iter__(self) -> Iterator[str]:
        yield JSONLD
        yield from CITATION_WRITERS
        yield from (fmt.media_type.media_type for fmt in formats.every())
        yield WEB_ANNOTATION
        yield NANOPUB

    def __contains__(self, media_type: object) -> bool:
        return any(media_type == known for known in self)


class _UpstreamOffered(Mapping[str, list[str]]):
    """Kind of node -> the media types of the upstream formats its nodes export as
    (``record`` and ``evaluation``: ``/record/ID.eee.json``)."""

    def __getitem__(self, kind: str) -> list[str]:
        offered = [f.media_type.media_type for f in formats.every() if kind in f.exported_kinds]
        if not offered:
            raise KeyError(kind)
        return offered

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(k for f in formats.every() for k in f.exported_kinds))

    def __len__(self) -> int:
        return sum(1 for _ in self)


#: Every media type :func:`render` writes.
EXPORT_MEDIA_TYPES = _ExportMediaTypes()
#: What each kind of node also comes as: the upstream formats' files.
UPSTREAM_OFFERED: Mapping[str, list[str]] = _UpstreamOffered()


def render(
    registry: Registry,
    kind: str,
    ident: str,
    quads: list[ox.Quad],
    media_type: str,
    accessed: dt.date | None = None,
    at: ReleaseInfo | None = None,
    style: str | None = None,
) -> bytes:
    """``quads`` (what :func:`kg.store.records.describe` gave for ``kind``/``ident``) as
    ``media_type``: a record as framed JSON-LD, anything else as compacted JSON-LD; a
    record or source as CSL-JSON, BibTeX, RIS or a formatted reference in CSL style
    ``style`` (default :data:`~kg.export.bibliography.DEFAULT_STYLE`); a record as a Web
    Annotation; a record as a trusty nanopublication (kg.export.nanopub).

    A record's citation names as its version release ``at`` (the one being read), else
    the newest release in the registry's archive that holds the record.

    :raises NotFoundError: for a Web Annotation of anything but a record.
    :raises UsageError: for an unknown citation style.
    """
    upstream = formats.by_media_type(media_type)
    if upstream is not None:
        return export_upstream(registry, ident, upstream)
    if media_type == NANOPUB:
        if kind != "record":
            raise NotFoundError(
                f"no record with id {ident!r} (a nanopublication is of a record; this is a {kind})"
            )
        from .nanopubs import nanopub_trig, record_nanopub  # cryptography: only when asked

        return nanopub_trig(record_nanopub(registry, ident, quads)[1])
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
    styled = (style or DEFAULT_STYLE,) if media_type == BIBLIOGRAPHY else ()
    return CITATION_WRITERS[media_type](items, *styled).encode()


def export(
    registry: Registry,
    ident: str,
    fmt: str,
    accessed: dt.date | None = None,
    style: str | None = None,
) -> bytes:
    """Record or source ``ident`` as ``fmt``: a format name (``jsonld``, ``csl-json``,
    ``bibtex``, ``ris``, ``bibliography``, ``web-annotation``) or one of
    :data:`EXPORT_MEDIA_TYPES`; a record's citation names the newest release in the
    registry's archive that holds it; ``style`` is a formatted reference's CSL style.

    :raises NotFoundError: when no record or source has the id.
    """
    kind, quads = citable(registry.store, registry.base, ident)
    return render(registry, kind, ident, quads, media_type_of(fmt), accessed, style=style)
