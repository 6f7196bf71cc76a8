"""Browsing: the index with search and facets, and a page for every minted IRI."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import pyoxigraph as ox
from flask import Blueprint, Response, render_template, request, url_for

from ..errors import KgError, NotFoundError, UsageError
from ..export.render import EXPORT_MEDIA_TYPES, UPSTREAM_OFFERED, render
from ..kinds import segments
from ..rdf.facts import Facts
from ..rdf.formats import CITATIONS, RDF_SYNTAXES, by_media_type, media_type_of, media_types
from ..rdf.negotiation import negotiate, split_suffix
from ..rdf.output import write_graph
from ..registry import Registry
from ..store.archive import ReleaseInfo
from ..store.records import describe
from .catalog import FACETS, SORTS
from .index_rows import LISTING_FIELDS
from .record_page import RecordPage
from .request_rules import int_param, params, with_changes
from .state import state
from .tombstones import gone_if_removed
from .views.base import path_of
from .views.citation import citation_meta
from .views.node import node_rows

browse = Blueprint("browse", __name__)

#: Kinds of page this blueprint serves (releases: kg.web.releases).
KINDS = segments(browsed=True)
RDF_OFFERED = media_types("html", *RDF_SYNTAXES)
#: Records and sources are citable: they also come as CSL-JSON, BibTeX and RIS.
CITABLE = segments(citable=True)
CITABLE_OFFERED = [*RDF_OFFERED, *media_types(*CITATIONS)]
#: A record, or an evaluation's records, also as an upstream format's file (/record/ID.eee.json).
UPSTREAM_FORMAT = UPSTREAM_OFFERED
#: A record, also as a W3C Web Annotation (/record/ID.wa.jsonld, or Accept: application/ld+json
#: with the Web Annotation profile); plain application/ld+json stays the framed record.
ANNOTATION_FORMAT = {"record": media_types("wa.jsonld")}
#: The index comes as a page, or as data: /records.json, /records.csv.
LISTING_FORMATS = ("json", "csv")
LISTING_OFFERED = media_types("html", *LISTING_FORMATS)
HTML = media_type_of("html")
PAGE_SIZE = 50


def respond(body: str | bytes, media_type: str) -> Response:
    response = Response(body, mimetype=media_type)
    response.vary.add("Accept")
    return response


@browse.get("/")
@browse.get("/records")
@browse.get("/records.<suffix>")
def index(suffix: str | None = None) -> Response:
    if suffix is not None and suffix not in LISTING_FORMATS:
        raise NotFoundError(f"no listing format {suffix!r} ({', '.join(LISTING_FORMATS)})")
    media_type = negotiate(
        request.headers.get("Accept"), LISTING_OFFERED, suffix or params().get("format")
    )
    listing = by_media_type(media_type).name
    app = state()
    catalog = app.catalog
    query = params().get("q", "").strip()
    filters = {name: params().get(name, "") for name in FACETS if params().get(name)}
    limit = int_param("limit", PAGE_SIZE, 1, 1000)
    sort = params().get("sort", "")
    if sort and sort.removeprefix("-") not in SORTS:
        raise UsageError(
            f"?sort= takes one of {', '.join(SORTS)} (a '-' first for descending), not {sort!r}"
        )
    page = catalog.page(query, filters, params().get("after") or None, limit, sort)
    if listing == "json":
        next_url = (
            # mypy checks a ** dict against url_for's own _external (a bool): _args has no
            # name starting with "_" (_kept drops them), so none of it goes there
            url_for("browse.index", suffix="json", **_args(after=page.next_after))  # type: ignore[arg-type]
            if page.next_after
            else None
        )
        return respond(
            json.dumps(
                {
                    "total": page.total,
                    "rows": [r.as_dict() for r in page.rows],
                    "next": next_url,
                    "facets": {
                        name: [{"value": v, "label": label, "count": n} for v, label, n in values]
                        for name, values in catalog.facets(query, filters).items()
                    },
                },
                ensure_ascii=False,
                indent=1,
            ),
            media_type,
        )
    if listing == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=LISTING_FIELDS)
        writer.writeheader()
        for row in page.rows:
            values = row.as_dict()
            values["methods"] = "; ".join(values["methods"])  # type: ignore[arg-type]
            writer.writerow(values)
        return respond(out.getvalue(), media_type)
    link = _index_link()
    return respond(
        render_template(
            "index.html",
            page=page,
            query=query,
            filters=filters,
            facets=catalog.facets(query, filters),
            facet_names=FACET_TITLES,
            args=_args,
            link=link,
            sort=sort,
            path=lambda iri: path_of(iri, app.settings.base),
            next_url=link(after=page.next_after) if page.next_after else None,
        ),
        HTML,
    )


FACET_TITLES = {
    "metric": "Metric",
    "model": "Model",
    "evidence_kind": "Evidence kind",
    "review_status": "Review status",
    "source": "Source",
    "method": "Review method",
    "verification": "Source verification",
    "benchmark": "Benchmark",
    "evaluator": "Evaluator relationship",
    "developer": "Model developer",
    "precision": "Precision",
    "standing": "Standing",
}


#: What a query string leaves unescaped: what Werkzeug's URL building leaves (url_for).
URL_SAFE = "!$'()*,/:;?@"


def _index_link() -> Callable[..., str]:
    """``link(**changes)``: the index's URL with the current arguments changed (as
    :func:`_args`), what ``url_for("browse.index", **_args(**changes))`` gives, built
    without it: an index page has a link per facet value, and ``url_for`` cost a
    millisecond of every 20 (it matches rules for each)."""
    base = url_for("browse.index")
    current = _kept()

    def link(**changes: Any) -> str:
        args = with_changes(
            {k: v for k, v in current.items() if k != "after"}
            if "after" not in changes
            else current,
            **changes,
        )
        return f"{base}?{urlencode(list(args.items()), safe=URL_SAFE)}" if args else base

    return link


def _kept() -> dict[str, str]:
    """The query arguments links carry on: not the rule's own variable (``suffix``) nor a
    name ``url_for`` reads itself (``_anchor``, ...), which a link cannot pass on."""
    return {k: v for k, v in params().items() if v and k != "suffix" and not k.startswith("_")}


def _args(**changes: Any) -> dict[str, str]:
    """The current query arguments with ``changes`` (None removes one); paging restarts
    whenever a filter changes."""
    args = _kept()
    if "after" not in changes:
        args.pop("after", None)
    return with_changes(args, **changes)


@browse.get("/<kind>/<path:name>")
def resource(kind: str, name: str) -> Response:
    if kind not in KINDS:
        raise NotFoundError(f"no such page: /{kind}/{name}")
    ident, suffix = split_suffix(name)
    app = state()
    settings = app.settings
    # ?release=ID: the node as that release holds it (from the archive), not as it is now.
    release = params().get("release") or None
    at = app.archive.release(release) if release else None
    registry = app.registry(release)
    store = registry.store
    refused: KgError | None = None
    try:
        media_type = negotiate(
            request.headers.get("Accept"),
            [
                *(CITABLE_OFFERED if kind in CITABLE else RDF_OFFERED),
                *UPSTREAM_FORMAT.get(kind, []),
                *ANNOTATION_FORMAT.get(kind, []),
            ],
            suffix or params().get("format"),
        )
    except KgError as exc:  # answered once the id is known: an unknown id is 404 before 406
        media_type, refused = "", exc
    page = None
    try:
        if kind == "record" and media_type == HTML:
            page = RecordPage(app, registry, ident, release)
        else:  # a record's closure with its standing, or the node's own statements
            quads = describe(store, settings.base, kind, ident)
    except NotFoundError:
        if release:
            raise NotFoundError(f"release {release} holds no {kind} {ident!r}") from None
        if kind == "record":
            gone_if_removed(app, registry.iri(kind, ident), ident)
        raise
    if refused is not None:
        raise refused
    if media_type != HTML:
        return rdf_response(registry, kind, ident, quads, media_type, at)

    stem = request.path[: -len(suffix) - 1] if suffix else request.path
    same_release = f"?release={release}" if release else ""
    alternates = {
        name: f"{stem}.{name}{same_release}" for name in ("ttl", "jsonld", "nt", "nq", "rdf")
    }
    citations = (
        {name: f"{stem}.{name}{same_release}" for name in CITATIONS} if kind in CITABLE else {}
    )
    if page is not None:
        return respond(
            page.render(
                url_root=request.url_root,
                alternates=alternates,
                citations=citations,
                annotation=f"{stem}.wa.jsonld{same_release}",
                at=at,
            ),
            HTML,
        )
    facts = Facts(quads, app.terms.graph)
    iri = ox.NamedNode(f"{settings.base}{kind}/{_quote(ident)}")
    rows, title, source = node_rows(facts, iri, settings.base, store, release)
    return respond(
        render_template(
            "node.html",
            kind=kind,
            ident=ident,
            iri=iri.value,
            title=title,
            rows=rows,
            alternates=alternates,
            citations=citations,
            meta=citation_meta(source) if source else [],
            schema=None,
            at_release=at,
        ),
        HTML,
    )


def rdf_response(
    registry: Registry,
    kind: str,
    ident: str,
    quads: list[ox.Quad],
    media_type: str,
    at: ReleaseInfo | None = None,
) -> Response:
    """The node as ``media_type``: an RDF syntax, JSON-LD (a record framed, anything else
    compacted, our context inline), or a citation format (a download named for it, citing
    release ``at`` when one is read, else the newest release holding the record)."""
    fmt = by_media_type(media_type)
    if media_type in EXPORT_MEDIA_TYPES:
        response = respond(render(registry, kind, ident, quads, media_type, at=at), media_type)
        if fmt.citation:  # a download, named for the record
            response.mimetype_params["charset"] = "utf-8"
            response.headers["Content-Disposition"] = f'attachment; filename="{ident}.{fmt.name}"'
        return response
    out = io.BytesIO()
    write_graph(quads, fmt.name, out, registry.base)
    return respond(out.getvalue(), media_type)


def _quote(ident: str) -> str:
    from urllib.parse import quote

    return quote(ident, safe="")


__all__ = ["browse"]
