"""What crawlers read: the sitemap and robots.txt.

The sitemap lists the pages crawlers should know, each record with the time of its last
change; past ``sitemap_urls`` URLs, ``/sitemap.xml`` is a sitemap index of
``/sitemap-N.xml`` files. A removed record is not listed: it answers 410 Gone, which tells
crawlers to drop it.
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

from flask import Response, request

from ...errors import NotFoundError
from ...read.closure import path_of
from ...read.timeline import utc
from ..state import AppState, state

SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML = "application/xml"


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


def sitemap_part(number: int) -> Response:
    urls = _urls()
    size = state().settings.sitemap_urls
    parts = (len(urls) - 1) // size + 1 if len(urls) > size else 0
    if not 1 <= number <= parts:
        raise NotFoundError(
            f"no sitemap part {number} (the sitemap has {parts} parts; see /sitemap.xml)"
        )
    return _xml(_urlset(urls[(number - 1) * size : number * size]))


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
    for row in app.catalog.rows():
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
