"""Following the registry: Atom feeds, the sitemap and robots.txt.

Feeds (:mod:`kg.web.atom`) come for the whole registry (``/feed.atom``), one record, one
source or one benchmark (``/feed/<kind>/<id>.atom``); ``?archive=N`` is an archive page of
the same feed. The sitemap lists the pages crawlers should know, each record with the time
of its last change; past ``sitemap_urls`` URLs, ``/sitemap.xml`` is a sitemap index of
``/sitemap-N.xml`` files. A removed record is not listed: it answers 410 Gone, which tells
crawlers to drop it.
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

from flask import Blueprint, Response, g, request, url_for

from ..errors import NotFoundError
from ..kinds import minted_iri
from ..rdf.negotiation import split_suffix
from ..store.records import describe
from . import atom
from .request_rules import int_param
from .state import AppState, state
from .timeline import Entry, loaded_at, utc
from .views.base import path_of

feeds = Blueprint("feeds", __name__)

#: The kinds of node with a feed of their own.
FEED_KINDS = ("record", "source", "benchmark")
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML = "application/xml"
SUFFIX = ".atom"


@feeds.get("/feed.atom")
def registry_feed() -> Response:
    app = state()
    timeline = app.timeline
    return _feed(
        timeline.entries,
        "claimgraph: what changed",
        url_for("feeds.registry_feed"),
        "/",
        f"{app.settings.base}feed.atom",
    )


@feeds.get("/feed/<kind>/<path:name>")
def node_feed(kind: str, name: str) -> Response:
    if kind not in FEED_KINDS or not name.endswith(SUFFIX):
        raise NotFoundError(
            f"no feed at /feed/{kind}/{name} (feeds: /feed.atom, "
            f"/feed/{{{','.join(FEED_KINDS)}}}/ID{SUFFIX})"
        )
    ident = name[: -len(SUFFIX)]
    app = state()
    base = app.settings.base
    iri = minted_iri(base, kind, ident)
    timeline = app.timeline
    if kind == "record":
        if iri not in timeline.changed:  # every record with an entry, removed ones too
            describe(app.store, base, kind, ident)  # 404 for an unknown record
        records = {iri}
    else:
        describe(app.store, base, kind, ident)
        records = {row.record for row in app.catalog.rows if getattr(row, kind) == iri}
    return _feed(
        timeline.about(records),
        f"claimgraph: {kind} {ident}",
        url_for("feeds.node_feed", kind=kind, name=name),
        path_of(iri, base),
        f"{base}feed/{iri[len(base) :]}{SUFFIX}",
    )


@feeds.app_context_processor
def _page_feeds() -> dict[str, object]:
    return {"page_feeds": page_feeds}


def page_feeds() -> dict[str, str]:
    """The feeds a page links to as ``<link rel="alternate">``: title -> URL. Every page
    has the registry's; a record's, source's or benchmark's page its own too (found once
    per request: a page lists them twice)."""
    if "kg_page_feeds" in g:
        return g.kg_page_feeds
    found = g.kg_page_feeds = {"claimgraph: what changed": url_for("feeds.registry_feed")}
    kind, _, name = request.path.lstrip("/").partition("/")
    ident = split_suffix(name)[0]
    if kind in FEED_KINDS and ident and "/" not in ident:
        found[f"claimgraph: {kind} {ident}"] = url_for(
            "feeds.node_feed", kind=kind, name=f"{ident}{SUFFIX}"
        )
    return found


def _feed(entries: list[Entry], title: str, path: str, alternate: str, feed_id: str) -> Response:
    app = state()
    number = int_param("archive", 0, 1, 10**9) or None
    document = atom.page(entries, app.settings.feed_page, number)
    root = request.url_root.rstrip("/")
    base = app.settings.base

    def document_url(n: int | None) -> str:
        return f"{root}{path}" + (f"?archive={n}" if n else "")

    links = atom.FeedLinks(
        feed_id=feed_id,
        title=title,
        document=document_url,
        alternate=f"{root}{alternate}",
        url=lambda iri: f"{root}{path_of(iri, base)}" if iri.startswith(base) else iri,
        author="claimgraph",
        home=f"{root}/",
    )
    response = Response(atom.write(document, links, _store_time()), mimetype=atom.MEDIA_TYPE)
    response.mimetype_params["charset"] = "utf-8"
    # an archive page of released entries never changes; the rest follows each load
    response.cache_control.max_age = 60
    return response


def _store_time() -> str:
    return loaded_at(state().version) or "1970-01-01T00:00:00Z"


@feeds.get("/sitemap.xml")
def sitemap() -> Response:
    urls = _urls()
    size = state().settings.sitemap_urls
    root = request.url_root.rstrip("/")
    if len(urls) <= size:
        return _xml(_urlset(urls))
    index = ET.Element("sitemapindex", xmlns=SITEMAP)
    for n in range(1, (len(urls) - 1) // size + 2):
        part = urls[(n - 1) * size : n * size]
        entry = ET.SubElement(index, "sitemap")
        ET.SubElement(entry, "loc").text = f"{root}/sitemap-{n}.xml"
        newest = max((at for _, at in part if at), default=None)
        if newest:
            ET.SubElement(entry, "lastmod").text = newest
    return _xml(index)


@feeds.get("/sitemap-<int:number>.xml")
def sitemap_part(number: int) -> Response:
    urls = _urls()
    size = state().settings.sitemap_urls
    parts = (len(urls) - 1) // size + 1 if len(urls) > size else 0
    if not 1 <= number <= parts:
        raise NotFoundError(
            f"no sitemap part {number} (the sitemap has {parts} parts; see /sitemap.xml)"
        )
    return _xml(_urlset(urls[(number - 1) * size : number * size]))


@feeds.get("/robots.txt")
def robots() -> Response:
    root = request.url_root.rstrip("/")
    body = f"User-agent: *\nDisallow: /sparql\nSitemap: {root}/sitemap.xml\n"
    return Response(body, mimetype="text/plain")


def _urls() -> list[tuple[str, str | None]]:
    """Every page the sitemap lists, on this host, with its last change where one is
    known: the index, each record, source and benchmark, and each release."""
    app = state()
    archive = app.archive_head
    paths = app.derived(f"sitemap {archive}", lambda _store: _paths(app))
    root = request.url_root.rstrip("/")
    return [(f"{root}{path}", at) for path, at in paths]


def _paths(app: AppState) -> list[tuple[str, str | None]]:
    """The sitemap's pages as paths (read once per store version and release)."""
    base = app.settings.base
    timeline = app.timeline
    newest = max(timeline.changed.values(), default=None)
    paths: list[tuple[str, str | None]] = [("/", newest)]
    by_node: dict[str, str | None] = {}
    for row in app.catalog.rows:
        changed = timeline.changed.get(row.record)
        paths.append((path_of(row.record, base), changed))
        for node in (row.source, row.benchmark):
            if node.startswith(base):
                known = by_node.get(node)
                by_node[node] = max(filter(None, (known, changed)), default=None)
    paths += [(path_of(node, base), at) for node, at in sorted(by_node.items())]
    paths += [(path_of(info.iri, base), utc(info.issued)) for info in app.archive.releases()]
    return paths


def _urlset(urls: list[tuple[str, str | None]]) -> ET.Element:
    root = ET.Element("urlset", xmlns=SITEMAP)
    for loc, at in urls:
        url = ET.SubElement(root, "url")
        ET.SubElement(url, "loc").text = loc
        if at:
            ET.SubElement(url, "lastmod").text = at
    return root


def _xml(element: ET.Element) -> Response:
    body = ET.tostring(element, encoding="utf-8", xml_declaration=True)
    response = Response(body, mimetype=XML)
    response.mimetype_params["charset"] = "utf-8"
    return response
