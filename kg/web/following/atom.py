"""Atom feeds (RFC 4287) of timeline entries, paged as RFC 5005 archived feeds.

A feed is its entries oldest first (:class:`kg.store.index.timeline.Entry`), cut into archive
pages of ``size`` counted from the oldest: page 1 holds the first ``size`` entries, and
only whole pages are archives. The subscription document holds the newest ``size``
entries (it may repeat some of the newest archive page's: readers know an entry by its id)
and links, as ``prev-archive``, to the newest archive page holding an entry older than all
of its own. Because entries in a release keep their places, an archive page of released
entries never changes; removals are RFC 6721 ``deleted-entry`` elements as well as entries
of their own, for readers that know no tombstones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from xml.etree import ElementTree as ET

from ... import __version__
from ...errors import NotFoundError
from ...store.index.timeline import Entry

ATOM = "http://www.w3.org/2005/Atom"
#: RFC 5005's namespace (``fh:archive``) and RFC 6721's (``at:deleted-entry``).
HISTORY = "http://purl.org/syndication/history/1.0"
TOMBSTONES = "http://purl.org/atompub/tombstones/1.0"
MEDIA_TYPE = "application/atom+xml"
# Atom is each document's default namespace, declared on the root: its elements are
# written unqualified (ElementTree's own default namespace would refuse plain attributes).
ET.register_namespace("fh", HISTORY)
ET.register_namespace("at", TOMBSTONES)


@dataclass(frozen=True)
class FeedPage:
    """One document of a feed: the subscription document (``number`` None) or an archive."""

    entries: list[Entry]  # newest first
    number: int | None
    previous: int | None
    following: int | None


def page(entries: Sequence[Entry], size: int, number: int | None) -> FeedPage:
    """Document ``number`` (1 is the oldest archive; None the subscription document) of the
    feed of ``entries`` (oldest first) in pages of ``size``.

    >>> from ...store.index.timeline import Entry
    >>> es = [Entry(f"urn:x:{i}", "run", f"2026-01-0{i}T00:00:00Z", "", "", "")
    ...       for i in range(1, 6)]
    >>> [e.id[-1] for e in page(es, 2, None).entries], page(es, 2, None).previous
    (['5', '4'], 2)
    >>> p = page(es, 2, 2); [e.id[-1] for e in p.entries], p.previous, p.following
    (['4', '3'], 1, None)

    :raises NotFoundError: for a page the feed does not have.
    """
    archives = len(entries) // size
    if number is None:
        newest = list(entries[-size:])
        older = len(entries) - len(newest)
        previous = (older - 1) // size + 1 if older else None
        return FeedPage(newest[::-1], None, previous, None)
    if not 1 <= number <= archives:
        raise NotFoundError(f"this feed has {archives} archive page(s); no page {number}")
    held = list(entries[(number - 1) * size : number * size])
    return FeedPage(
        held[::-1], number, number - 1 or None, number + 1 if number < archives else None
    )


@dataclass(frozen=True)
class FeedLinks:
    """Where a feed's documents and its entries' pages are, for one request's host."""

    feed_id: str
    title: str
    #: The feed's document: None for the subscription document, else an archive number.
    document: Callable[[int | None], str]
    #: The HTML page the feed is about.
    alternate: str
    #: A registry IRI's URL on this host.
    url: Callable[[str], str]
    #: Who publishes the feed (Atom requires an author).
    author: str
    home: str


def write(feed: FeedPage, links: FeedLinks, updated: str) -> bytes:
    """The Atom document of ``feed``, as UTF-8 XML."""
    root = ET.Element("feed", xmlns=ATOM)
    _text(root, "id", links.feed_id)
    _text(root, "title", links.title)
    newest = max((e.at for e in feed.entries), default=updated)
    _text(root, "updated", newest)
    author = ET.SubElement(root, "author")
    _text(author, "name", links.author)
    _text(author, "uri", links.home)
    generator = _text(root, "generator", "claimgraph")
    generator.set("version", __version__)
    _link(root, "self", links.document(feed.number), MEDIA_TYPE)
    _link(root, "alternate", links.alternate, "text/html")
    if feed.number is not None:
        ET.SubElement(root, f"{{{HISTORY}}}archive")
        _link(root, "current", links.document(None), MEDIA_TYPE)
    if feed.previous is not None:
        _link(root, "prev-archive", links.document(feed.previous), MEDIA_TYPE)
    if feed.following is not None:
        _link(root, "next-archive", links.document(feed.following), MEDIA_TYPE)
    for entry in feed.entries:
        if entry.deletes:
            _tombstone(root, entry, links)
        _entry(root, entry, links)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def _entry(root: ET.Element, entry: Entry, links: FeedLinks) -> None:
    element = ET.SubElement(root, "entry")
    _text(element, "id", entry.id)
    _text(element, "title", entry.title)
    _text(element, "updated", entry.at)
    category = ET.SubElement(element, "category")
    category.set("term", entry.kind)
    category.set("scheme", f"{links.home}feed.atom#kinds")
    page = links.url(entry.page)
    _link(element, "alternate", page, "text/html")
    _link(element, "alternate", f"{page}.ttl", "text/turtle")
    if entry.related:  # an activity: its (first) record
        _link(element, "related", links.url(entry.related), "text/html")
    _text(element, "summary", entry.summary)


def _tombstone(root: ET.Element, entry: Entry, links: FeedLinks) -> None:
    deleted = ET.SubElement(root, f"{{{TOMBSTONES}}}deleted-entry")
    deleted.set("ref", entry.deletes or "")
    deleted.set("when", entry.at)
    ET.SubElement(deleted, f"{{{TOMBSTONES}}}by").text = links.author
    ET.SubElement(deleted, f"{{{TOMBSTONES}}}comment").text = entry.summary
    _link(deleted, "alternate", links.url(entry.page), "text/html")


def _text(parent: ET.Element, name: str, text: str) -> ET.Element:
    element = ET.SubElement(parent, name)
    element.text = text
    return element


def _link(parent: ET.Element, rel: str, href: str, media_type: str) -> None:
    link = ET.SubElement(parent, "link")
    link.set("rel", rel)
    link.set("href", href)
    link.set("type", media_type)
