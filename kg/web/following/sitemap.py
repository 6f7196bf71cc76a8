"""What crawlers read: the sitemap and robots.txt.

The sitemap lists the pages crawlers should know, each record with the time of its last
change; past ``sitemap_urls`` URLs, ``/sitemap.xml`` is a sitemap index of
``/sitemap-N.xml`` files. A removed record is not listed: it answers 410 Gone, which tells
crawlers to drop it.
"""

from __future__ import annotations

from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

from flask import Response, request

from ...errors import NotFoundError
from ...read.closure import path_of
from ..state import state

SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML = "application/xml"


def sitemap() -> Response:
    app = state()
    timeline = app.timeline
    size = app.settings.sitemap_urls
    if timeline.sitemap_size() <= size:
        return _urlset(timeline.sitemap())
    root = request.url_root.rstrip("/")
    index = ET.Element("sitemapindex", xmlns=SITEMAP)
    for n, newest in enumerate(timeline.sitemap_parts(size), 1):
        entry = ET.SubElement(index, "sitemap")
        ET.SubElement(entry, "loc").text = f"{root}/sitemap-{n}.xml"
        if newest:
            ET.SubElement(entry, "lastmod").text = newest
    return _xml(index)


def sitemap_part(number: int) -> Response:
    app = state()
    timeline = app.timeline
    size = app.settings.sitemap_urls
    total = timeline.sitemap_size()
    parts = (total - 1) // size + 1 if total > size else 0
    if not 1 <= number <= parts:
        raise NotFoundError(
            f"no sitemap part {number} (the sitemap has {parts} parts; see /sitemap.xml)"
        )
    return _urlset(timeline.sitemap((number - 1) * size, size))


def robots() -> Response:
    root = request.url_root.rstrip("/")
    body = f"User-agent: *\nDisallow: /sparql\nSitemap: {root}/sitemap.xml\n"
    return Response(body, mimetype="text/plain")


def _urlset(pages: list[tuple[str, str | None]]) -> Response:
    """The pages (registry IRIs, with their last change) as URLs on this host: written as
    text, not built as a tree (a part holds up to 50,000 of them)."""
    host = request.url_root.rstrip("/")
    base = state().settings.base
    lines = ["<?xml version='1.0' encoding='utf-8'?>", f'<urlset xmlns="{SITEMAP}">']
    for iri, at in pages:
        lastmod = f"<lastmod>{escape(at)}</lastmod>" if at else ""
        lines.append(f"<url><loc>{escape(host + path_of(iri, base))}</loc>{lastmod}</url>")
    lines.append("</urlset>")
    response = Response("\n".join(lines).encode(), mimetype=XML)
    response.mimetype_params["charset"] = "utf-8"
    return response


def _xml(element: ET.Element) -> Response:
    body = ET.tostring(element, encoding="utf-8", xml_declaration=True)
    response = Response(body, mimetype=XML)
    response.mimetype_params["charset"] = "utf-8"
    return response
