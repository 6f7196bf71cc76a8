"""Browsing: the index with search and facets, and a page for every minted IRI."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pyoxigraph as ox
from flask import Blueprint, Response, render_template, request, url_for

from ..errors import NotFoundError, UsageError
from ..export.render import EXPORT_MEDIA_TYPES, render
from ..kinds import segments
from ..rdf.facts import Facts
from ..rdf.formats import CITATIONS, RDF_SYNTAXES, by_media_type, media_type_of, media_types
from ..rdf.negotiation import negotiate, split_suffix
from ..rdf.output import write_graph
from ..registry import Registry
from ..store.archive import ReleaseInfo
from ..store.records import describe, quote_siblings, record_and_standing, record_closure
from .catalog import FACETS, SORTS
from .index_rows import LISTING_FIELDS
from .request_rules import int_param, params, with_changes
from .state import state
from .tombstones import gone_if_removed
from .views.base import path_of
from .views.citation import citation_meta, schema_org
from .views.node import node_rows
from .views.quote import QuoteView
from .views.record import RecordView
from .views.standing import standing_view

browse = Blueprint("browse", __name__)

#: Kinds of page this blueprint serves (releases: kg.web.releases).
KINDS = segments(browsed=True)
RDF_OFFERED = media_types("html", *RDF_SYNTAXES)
#: Records and sources are citable: they also come as CSL-JSON, BibTeX and RIS.
CITABLE = segments(citable=True)
CITABLE_OFFERED = [*RDF_OFFERED, *media_types(*CITATIONS)]
#: A record, or an evaluation's records, also as an Every Eval Ever file (/record/ID.eee.json).
UPSTREAM_FORMAT = {"record": media_types("every-eval-ever"),
                   "evaluation": media_types("every-eval-ever")}
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
    media_type = negotiate(request.accept_mimetypes, LISTING_OFFERED,
                           suffix or params().get("format"))
    listing = by_media_type(media_type).name
    app = state()
    catalog = app.catalog
    query = params().get("q", "").strip()
    filters = {name: params().get(name, "") for name in FACETS if params().get(name)}
    limit = int_param("limit", PAGE_SIZE, 1, 1000)
    sort = params().get("sort", "")
    if sort and sort.removeprefix("-") not in SORTS:
        raise UsageError(f"?sort= takes one of {', '.join(SORTS)} (a '-' first for "
                         f"descending), not {sort!r}")
    page = catalog.page(query, filters, params().get("after") or None, limit, sort)
    if listing == "json":
        next_url = (url_for("browse.index", suffix="json", **_args(after=page.next_after))
                    if page.next_after else None)
        return respond(json.dumps({
            "total": page.total, "rows": [r.as_dict() for r in page.rows],
            "next": next_url, "facets": {
                name: [{"value": v, "label": label, "count": n} for v, label, n in values]
                for name, values in catalog.facets(query, filters).items()},
        }, ensure_ascii=False, indent=1), media_type)
    if listing == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=LISTING_FIELDS)
        writer.writeheader()
        for row in page.rows:
            values = row.as_dict()
            values["methods"] = "; ".join(values["methods"])  # type: ignore[arg-type]
            writer.writerow(values)
        return respond(out.getvalue(), media_type)
    return respond(render_template(
        "index.html", page=page, query=query, filters=filters,
        facets=catalog.facets(query, filters), facet_names=FACET_TITLES,
        args=_args, sort=sort, path=lambda iri: path_of(iri, app.settings.base),
        next_url=(url_for("browse.index", **_args(after=page.next_after))
                  if page.next_after else None),
    ), HTML)


FACET_TITLES = {
    "metric": "Metric", "model": "Model", "evidence_kind": "Evidence kind",
    "review_status": "Review status", "source": "Source", "method": "Review method",
    "verification": "Source verification", "benchmark": "Benchmark",
    "evaluator": "Evaluator relationship", "developer": "Model developer",
    "precision": "Precision", "standing": "Standing",
}


def _args(**changes: Any) -> dict[str, str]:
    """The current query arguments with ``changes`` (None removes one); paging restarts
    whenever a filter changes."""
    args = {k: v for k, v in params().items() if v}
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
    found = None
    try:  # an unknown id is 404 before 406
        if kind == "record":
            quads, found = record_and_standing(store, settings.base, ident)
        else:
            quads = describe(store, settings.base, kind, ident)
    except NotFoundError:
        if release:
            raise NotFoundError(f"release {release} holds no {kind} {ident!r}") from None
        if kind == "record":
            gone_if_removed(app, registry.iri(kind, ident), ident)
        raise
    media_type = negotiate(request.accept_mimetypes,
                           [*(CITABLE_OFFERED if kind in CITABLE else RDF_OFFERED),
                            *UPSTREAM_FORMAT.get(kind, []), *ANNOTATION_FORMAT.get(kind, [])],
                           suffix or params().get("format"))
    if media_type != HTML:
        return rdf_response(registry, kind, ident, quads, media_type, at)

    facts = Facts(quads, app.terms.graph)
    iri = ox.NamedNode(f"{settings.base}{kind}/{_quote(ident)}")
    stem = request.path[:-len(suffix) - 1] if suffix else request.path
    same_release = f"?release={release}" if release else ""
    alternates = {name: f"{stem}.{name}{same_release}"
                  for name in ("ttl", "jsonld", "nt", "nq", "rdf")}
    citations = ({name: f"{stem}.{name}{same_release}" for name in CITATIONS}
                 if kind in CITABLE else {})
    if kind == "record":
        view = RecordView(facts, iri, settings.base, release)
        return respond(render_template(
            "record.html", r=view, alternates=alternates, citations=citations,
            meta=citation_meta(view.quoted_from), schema=schema_org(view, request.url_root),
            evidence_filters=_evidence_filters(view), history=app.history(iri.value),
            standing=standing_view(found, settings.base, release),
            at_release=at, quote=_quote_view(registry, ident, iri, facts, release),
            placement=None if release else _placement(iri.value),
            annotation=f"{stem}.wa.jsonld{same_release}",
        ), HTML)
    rows, title, source = node_rows(facts, iri, settings.base, store, release)
    return respond(render_template(
        "node.html", kind=kind, ident=ident, iri=iri.value, title=title, rows=rows,
        alternates=alternates, citations=citations, meta=citation_meta(source) if source else [],
        schema=None, at_release=at,
    ), HTML)


def rdf_response(registry: Registry, kind: str, ident: str, quads: list[ox.Quad],
                 media_type: str, at: ReleaseInfo | None = None) -> Response:
    """The node as ``media_type``: an RDF syntax, JSON-LD (a record framed, anything else
    compacted, our context inline), or a citation format (a download named for it, citing
    release ``at`` when one is read, else the newest release holding the record)."""
    fmt = by_media_type(media_type)
    if media_type in EXPORT_MEDIA_TYPES:
        response = respond(render(registry, kind, ident, quads, media_type, at=at),
                           media_type)
        if fmt.citation:  # a download, named for the record
            response.mimetype_params["charset"] = "utf-8"
            response.headers["Content-Disposition"] = (
                f'attachment; filename="{ident}.{fmt.name}"')
        return response
    out = io.BytesIO()
    write_graph(quads, fmt.name, out, registry.base)
    return respond(out.getvalue(), media_type)


def _quote_view(registry: Registry, ident: str, iri: ox.NamedNode, facts: Facts,
                release: str | None) -> QuoteView | None:
    """The record and the other claims of its quoted sentence, side by side (None when the
    sentence gives no other record)."""
    base = registry.base
    siblings = quote_siblings(registry.store, base, ident)
    if not siblings:
        return None
    # A sentence prints a few numbers; a page reads at most MAX_SIBLINGS of them in full.
    closures = [(iri, facts)] + [
        (ox.NamedNode(registry.iri("record", other)),
         Facts(record_closure(registry.store, base, other), facts.terms))
        for other in siblings[:QuoteView.MAX_SIBLINGS]]
    return QuoteView(iri, closures, base, release,
                     left_out=max(0, len(siblings) - QuoteView.MAX_SIBLINGS))


def _placement(record: str) -> dict[str, Any] | None:
    """The record's place on its benchmark's leaderboard and the other records of the same
    quantity (its model on its benchmark), each with its difference from this one."""
    boards = state().catalog.boards
    entry = boards.entry.get(record)
    if entry is None:
        return None
    row, base = entry.row, state().settings.base
    same = [(other, f"{other.value - row.value:+}"
             if other.value is not None and row.value is not None else "")
            for other in boards.same_quantity(row)]
    return {"entry": entry, "size": len(boards.ranked[row.benchmark]), "same": same,
            "disagree": any(other.value != row.value for other, _ in same),
            "board_href": f"{path_of(row.benchmark, base)}?record={_quote(row.id)}"
                          f"#{_quote(row.id)}",
            "path": lambda iri: path_of(iri, base)}


def _evidence_filters(view: RecordView) -> dict[str, Any]:
    """The evidence table's filters (by property and by citation type), applied server-side."""
    prop = params().get("evidence_property", "")
    citation = params().get("evidence_citation", "")
    rows = [r for r in view.rows if (not prop or r.property_id == prop)
            and (not citation or r.citation_id == citation)]
    return {
        "rows": rows, "property": prop, "citation": citation,
        "properties": sorted({(r.property_id, r.property) for r in view.rows}),
        "citations": sorted({(r.citation_id, r.citation) for r in view.rows}),
    }


def _quote(ident: str) -> str:
    from urllib.parse import quote

    return quote(ident, safe="")


__all__ = ["browse"]
