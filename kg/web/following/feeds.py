"""Following the registry: Atom feeds.

Feeds (:mod:`kg.web.following.atom`) come for the whole registry (``/feed.atom``), one record, one
source or one benchmark (``/feed/<kind>/<id>.atom``); ``?archive=N`` is an archive page of
the same feed (the sitemap and robots.txt: :mod:`.sitemap`).
"""

from __future__ import annotations

from flask import Response, g, request, url_for

from ...errors import NotFoundError
from ...kinds import minted_iri
from ...rdf.negotiation import split_suffix
from ...read.closure import path_of
from ...store.index.timeline import loaded_at
from ...store.index.timeline_file import Entries
from ...store.records import describe
from ..http.request_rules import int_param
from ..state import state
from . import atom

#: The kinds of node with a feed of their own.
FEED_KINDS = ("record", "source", "benchmark")
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML = "application/xml"
SUFFIX = ".atom"


def registry_feed() -> Response:
    app = state()
    timeline = app.timeline
    return _feed(
        timeline.entries,
        "claimgraph: what changed",
        url_for("registry_feed"),
        "/",
        f"{app.settings.base}feed.atom",
    )


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
        if timeline.changed(iri) is None:  # every record with an entry, removed ones too
            describe(app.store, base, kind, ident)  # 404 for an unknown record
        entries = timeline.about([iri])
    else:
        describe(app.store, base, kind, ident)
        entries = timeline.about_node(iri)
    return _feed(
        entries,
        f"claimgraph: {kind} {ident}",
        url_for("node_feed", kind=kind, name=name),
        path_of(iri, base),
        f"{base}feed/{iri[len(base) :]}{SUFFIX}",
    )


def feeds_in_templates() -> dict[str, object]:
    """What every template may read: ``page_feeds`` (a context processor)."""
    return {"page_feeds": page_feeds}


def page_feeds() -> dict[str, str]:
    """The feeds a page links to as ``<link rel="alternate">``: title -> URL. Every page
    has the registry's; a record's, source's or benchmark's page its own too (found once
    per request: a page lists them twice)."""
    if "kg_page_feeds" in g:
        return g.kg_page_feeds
    found = g.kg_page_feeds = {"claimgraph: what changed": url_for("registry_feed")}
    kind, _, name = request.path.lstrip("/").partition("/")
    ident = split_suffix(name)[0]
    if kind in FEED_KINDS and ident and "/" not in ident:
        found[f"claimgraph: {kind} {ident}"] = url_for(
            "node_feed", kind=kind, name=f"{ident}{SUFFIX}"
        )
    return found


def _feed(entries: Entries, title: str, path: str, alternate: str, feed_id: str) -> Response:
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
