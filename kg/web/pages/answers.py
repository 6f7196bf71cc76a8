"""What the pages share: an answer's body with its media type, a context rendered into its
template, and the data answers of any minted IRI (RDF syntaxes, citation formats, exports).

Not a page itself: the route table names no view of this module.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import NoReturn
from urllib.parse import quote, urlencode

import pyoxigraph as ox
from flask import Response, g, render_template, request, url_for

from ...errors import KgError, NotFoundError
from ...export.render import EXPORT_MEDIA_TYPES, UPSTREAM_OFFERED, render
from ...kinds import minted_iri, segments
from ...rdf.formats import CITATIONS, RDF_SYNTAXES, by_media_type, media_type_of, media_types
from ...rdf.negotiation import accept_parameter, negotiate, split_suffix
from ...rdf.output import write_graph
from ...read.closure import path_of
from ...registry import Registry
from ...store.archive import ReleaseInfo
from ...store.index.rows import Row
from ...store.records import describe
from ..following.tombstones import gone_if_removed
from ..http.documents import RDF_DOCUMENTS, as_document, document_quads, document_url, node_stem
from ..http.request_rules import int_param, params
from ..state import AppState, state

HTML = media_type_of("html")
#: Kinds of node with a page of their own at /<kind>/<id> (releases: kg.web.pages.release).
KINDS = segments(browsed=True)
RDF_OFFERED = media_types("html", *RDF_SYNTAXES)
#: Records and sources are citable: they also come as CSL-JSON, BibTeX and RIS.
CITABLE = segments(citable=True)
CITABLE_OFFERED = [*RDF_OFFERED, *media_types(*CITATIONS)]
#: A record, also as a W3C Web Annotation (/record/ID.wa.jsonld, or Accept: application/ld+json
#: with the Web Annotation profile; plain application/ld+json stays the framed record) and as
#: a nanopublication (/record/ID.np.trig, or Accept: application/trig with its profile).
ANNOTATION_FORMAT = {"record": media_types("wa.jsonld", "np.trig")}
#: What the boards' pages (a benchmark's, a model's) offer themselves; the rest is the
#: node's page.
BOARD_OFFERED = media_types("html", *RDF_SYNTAXES)


#: What a query string leaves unescaped: what Werkzeug's URL building leaves (url_for).
URL_SAFE = "!$'()*,/:;?@"


def records_href(facet: str, value: str) -> str:
    """The index of the records that have ``value`` of ``facet``."""
    return f"{url_for('index')}?{urlencode({facet: value}, safe=URL_SAFE)}"


#: How far a paged list may be paged (a bound on the walk its OFFSET makes).
MAX_PAGE = 100_000
#: How many records a comparison takes: what the index and a board carry from page to page
#: as ticked.
MOST_COMPARED = 12


def paging(default_limit: int) -> tuple[int, int]:
    """A paged list's ``?page=`` (from 1) and ``?limit=`` (1 to 1,000).

    :raises UsageError: for anything else."""
    return int_param("page", 1, 1, MAX_PAGE), int_param("limit", default_limit, 1, 1000)


def page_count(total: int, limit: int, page: int, what: str) -> int:
    """How many pages of ``limit`` a list of ``total`` makes (one at least).

    :raises NotFoundError: for a ``page`` past the last."""
    pages = max(1, -(-total // limit))
    if page > pages:
        raise NotFoundError(f"{what} has {pages} page(s) of {limit}; there is no page {page}")
    return pages


def paged_link(base: str, args: Mapping[str, object], default_limit: int) -> str:
    """``base`` with ``args`` as its query string, leaving out the empty ones, the first
    page and the default limit."""
    kept = {
        k: str(v)
        for k, v in args.items()
        if v not in ("", None) and (k, v) not in (("page", 1), ("limit", default_limit))
    }
    return f"{base}?{urlencode(kept, safe=URL_SAFE)}" if kept else base


def respond(body: str | bytes, media_type: str) -> Response:
    response = Response(body, mimetype=media_type)
    response.vary.add("Accept")
    return response


def render_page(template: str, context: object) -> Response:
    """``context`` (a dataclass: what the template reads) rendered into ``template``, as
    HTML; each field is a name in the template."""
    names = {f.name: getattr(context, f.name) for f in fields(context)}  # type: ignore[arg-type]
    return respond(render_template(template, **names), HTML)


def node_name(kind: str, name: str) -> tuple[str, str | None]:
    """(id, format name) of ``/<kind>/NAME``: ``x.ttl`` is node ``x`` as Turtle, unless a
    node's id is the whole name (the model ``ai2/tulu-2-7b-rm-v0.json`` of RewardBench is
    a model, not a model as JSON): one look-up, where the name ends as a format does."""
    ident, suffix = split_suffix(name)
    if suffix is None or kind == "record":  # a record's id never holds a dot
        return ident, suffix
    iri = minted_iri(state().settings.base, kind, name)
    store = state().registry(params().get("release") or None).store
    return (name, None) if bool(store.query(f"ASK {{ <{iri}> ?p ?o }}")) else (ident, suffix)


def html_wanted(suffix: str | None) -> bool:
    """Whether ``/benchmark/NAME`` (or ``/model/NAME``) asks for the page, not the node's RDF
    (``suffix``: the format name :func:`node_name` found after the id)."""
    if params().get("release"):
        return False
    return (
        negotiate(request.headers.get("Accept"), BOARD_OFFERED, suffix or params().get("format"))
        == HTML
    )


def record_href(row: Row) -> str:
    """The path of a catalogue row's record page."""
    return f"/record/{quote(row.id, safe='')}"


def node_path(iri: str) -> str:
    """The path of a node's page on this site (an IRI of another site as it is)."""
    return path_of(iri, state().settings.base)


@dataclass
class NodeRequest:
    """A request for one minted IRI (``/<kind>/<id>[.suffix]``), read before its answer."""

    app: AppState
    kind: str
    ident: str
    #: the suffix of the path (``ttl`` of ``/record/ID.ttl``), "" when it has none
    suffix: str
    #: ``?release=ID``: the node as that release holds it (from the archive), not as it is now
    release: str | None
    at: ReleaseInfo | None
    registry: Registry
    #: the media type negotiated ("" when negotiation failed: see ``refused``)
    media_type: str
    #: the error negotiation raised, given once the id is known (an unknown id is 404
    #: before 406)
    refused: KgError | None

    @classmethod
    def read(cls, kind: str, name: str) -> NodeRequest:
        """:raises NotFoundError: for a kind of node with no pages."""
        if kind not in KINDS:
            raise NotFoundError(f"no such page: /{kind}/{name}")
        ident, suffix = node_name(kind, name)
        app = state()
        release = params().get("release") or None
        at = app.archive.release(release) if release else None
        refused: KgError | None = None
        try:
            media_type = negotiate(
                request.headers.get("Accept"),
                [
                    *(CITABLE_OFFERED if kind in CITABLE else RDF_OFFERED),
                    *UPSTREAM_OFFERED.get(kind, []),  # a record's, an evaluation's upstream file
                    *ANNOTATION_FORMAT.get(kind, []),
                ],
                suffix or params().get("format"),
            )
        except KgError as exc:
            media_type, refused = "", exc
        return cls(
            app, kind, ident, suffix or "", release, at, app.registry(release), media_type, refused
        )

    def missing(self, exc: NotFoundError) -> NoReturn:
        """Raise what an id the store lacks answers: 410 for a record a release held, a
        404 naming the release read, else ``exc``."""
        if self.release:
            raise NotFoundError(
                f"release {self.release} holds no {self.kind} {self.ident!r}"
            ) from None
        if self.kind == "record":
            gone_if_removed(self.app, self.registry.iri(self.kind, self.ident), self.ident)
        raise exc

    def describe(self) -> list[ox.Quad]:
        """The node's quads (a record's closure with its standing, or the node's own
        statements).

        :raises NotFoundError: as :meth:`missing` says.
        """
        try:
            return describe(self.registry.store, self.app.settings.base, self.kind, self.ident)
        except NotFoundError as exc:
            self.missing(exc)

    def data(self) -> Response:
        """The node in the negotiated data format (406 once the node is known to exist
        when none of them was acceptable)."""
        quads = self.describe()
        if self.refused is not None:
            raise self.refused
        if self.media_type in RDF_DOCUMENTS:
            topic = self.registry.iri(self.kind, self.ident)
            quads = [*quads, *document_quads(self.stem, topic, self.release)]
        return self.document(
            data_answer(self.registry, self.kind, self.ident, quads, self.media_type, self.at)
        )

    def document(self, response: Response) -> Response:
        """``response`` with the headers of the document it is (:func:`as_document`)."""
        return as_document(response, self.stem, self.media_type, self.release)

    @property
    def stem(self) -> str:
        """The node's path on this site, without its leading "/" or a suffix."""
        return node_stem(self.kind, self.ident)

    def alternates(self) -> dict[str, str]:
        """The page's other representations by suffix: RDF syntaxes."""
        return {name: self.path(name) for name in ("ttl", "jsonld", "nt", "nq", "rdf")}

    def citations(self) -> dict[str, str]:
        """Its citation formats by suffix (none for a kind that is not citable)."""
        return {name: self.path(name) for name in CITATIONS} if self.kind in CITABLE else {}

    def path(self, suffix: str) -> str:
        """This page's path with ``suffix`` (in the same release, where one is read)."""
        stem = request.path[: -len(self.suffix) - 1] if self.suffix else request.path
        return f"{stem}.{suffix}{f'?release={self.release}' if self.release else ''}"


def data_answer(
    registry: Registry,
    kind: str,
    ident: str,
    quads: list[ox.Quad],
    media_type: str,
    at: ReleaseInfo | None = None,
) -> Response:
    """The node as ``media_type``: an RDF syntax, JSON-LD (a record framed, anything else
    compacted, our context inline), or a citation format (a download named for it, citing
    release ``at`` when one is read, else the newest release holding the record; a
    formatted reference in the style the request names, ``?style=`` or ``text/x-bibliography;
    style=...``)."""
    fmt = by_media_type(media_type)
    if media_type in EXPORT_MEDIA_TYPES:
        # a formatted reference's CSL style: ?style=, else the Accept entry's style parameter
        style = params().get("style") or accept_parameter(
            request.headers.get("Accept"), media_type, "style"
        )
        body = render(registry, kind, ident, quads, media_type, at=at, style=style)
        response = respond(body, media_type)
        if fmt.citation:  # a download, named for the record
            response.mimetype_params["charset"] = "utf-8"
            response.headers["Content-Disposition"] = f'attachment; filename="{ident}.{fmt.name}"'
        return response
    out = io.BytesIO()
    write_graph(quads, fmt.name, out, registry.base)
    return respond(out.getvalue(), media_type)


def document_in_templates() -> dict[str, object]:
    """What every template may read: ``canonical``, the URL of the page of the node the
    request is for ("" on other pages; a context processor)."""
    kind, _, name = request.path.lstrip("/").partition("/")
    checked = g.get("kg_params")  # None on an error page for a request refused before
    if kind not in {*KINDS, "release"} or not name or checked is None:
        return {"canonical": ""}
    stem = node_stem(kind, split_suffix(name)[0])
    return {"canonical": document_url(stem, "", checked.get("release"))}
