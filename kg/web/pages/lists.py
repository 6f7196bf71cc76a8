"""The lists: ``/benchmarks``, ``/models``, ``/sources``, ``/developers``, ``/metrics`` (every
value of a facet, with how many records name it) and ``/agents``; each searched (``?q=``),
sorted (``?sort=``), paged (``?page=``), as a page or as data (``.json``, ``.csv``)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from flask import Response, request, url_for

from ...errors import NotFoundError, UsageError
from ...rdf.formats import by_media_type, media_types
from ...rdf.negotiation import negotiate
from ...read.lists import LIST_PAGE, LIST_SORTS, LISTS, Agent, ListItem, ValueList, agents
from ...read.lists import value_list as read_value_list
from ..http.request_rules import params
from ..state import state
from .answers import node_path, page_count, paged_link, paging, records_href, render_page, respond

FORMATS = ("json", "csv")
OFFERED = media_types("html", *FORMATS)


def _wanted(suffix: str | None) -> str:
    """The format asked for: ``html``, ``json`` or ``csv``.

    :raises NotFoundError: for another suffix."""
    if suffix is not None and suffix not in FORMATS:
        raise NotFoundError(f"no list format {suffix!r} ({', '.join(FORMATS)})")
    media_type = negotiate(request.headers.get("Accept"), OFFERED, suffix or params().get("format"))
    return by_media_type(media_type).name


def item_href(kind_link: str, facet: str, item: ListItem) -> str:
    """Where a listed value's name links: its node's page, its model node's page, or the
    records that have it."""
    if kind_link == "node":
        return node_path(item.value)
    if kind_link == "model" and item.node:
        return node_path(item.node)
    return records_href(facet, item.value)


@dataclass(frozen=True)
class ListPage:
    """What ``list.html`` shows."""

    listing: ValueList
    href: Any
    records: Any
    link: Any
    page: int
    pages: int
    lists: dict[str, Any]


def value_list(name: str, suffix: str | None = None) -> Response:
    kind = LISTS.get(name)
    if kind is None:
        raise NotFoundError(f"no list /{name} (lists: {', '.join(LISTS)}, agents)")
    fmt = _wanted(suffix)
    query = params().get("q", "").strip()
    sort = params().get("sort", "") or LIST_SORTS[0]
    if sort not in LIST_SORTS:
        raise UsageError(f"?sort= takes one of {', '.join(LIST_SORTS)}, not {sort!r}")
    page, limit = paging(LIST_PAGE)
    listing = read_value_list(state().catalog.index, kind, query, sort, (page - 1) * limit, limit)
    pages = page_count(listing.total, limit, page, f"/{name}")

    def link(suffix: str | None = None, **changes: object) -> str:
        base = url_for("value_list", name=name, suffix=suffix)
        default = sort if sort != LIST_SORTS[0] else ""
        args = {"q": query, "sort": default, "page": page, "limit": limit, **changes}
        return paged_link(base, args, LIST_PAGE)

    def href(item: ListItem) -> str:
        return item_href(kind.link, kind.facet, item)

    def records(item: ListItem) -> str:
        return records_href(kind.facet, item.value)

    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        beside = [kind.beside[0].lower()] if kind.beside else []
        writer.writerow(["value", "label", "records", *beside, "page", "records_page"])
        for item in listing.items:
            extra = [item.beside] if kind.beside else []
            writer.writerow([item.value, item.label, item.count, *extra, href(item), records(item)])
        return respond(out.getvalue(), "text/csv")
    if fmt == "json":
        body = {
            "list": name,
            "total": listing.total,
            "page": page,
            "pages": pages,
            "items": [
                {
                    "value": item.value,
                    "label": item.label,
                    "records": item.count,
                    **({kind.beside[0].lower(): item.beside} if kind.beside else {}),
                    "page": href(item),
                    "records_page": records(item),
                }
                for item in listing.items
            ],
            "next": link(page=page + 1, suffix="json") if listing.has_next else None,
        }
        return respond(json.dumps(body, ensure_ascii=False, indent=1), "application/json")
    context = ListPage(listing, href, records, link, page, pages, _other_lists())
    return render_page("list.html", context)


@dataclass(frozen=True)
class AgentsPage:
    """What ``agents.html`` shows."""

    agents: list[Agent]
    query: str
    path: Any
    lists: dict[str, Any]


def agent_list(suffix: str | None = None) -> Response:
    fmt = _wanted(suffix)
    query = params().get("q", "").strip()
    found = agents(state().store, query)
    kinds = {a.type: a.type.rpartition("#")[2] for a in found}
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["agent", "label", "type", "activities", "page"])
        for a in found:
            writer.writerow([a.iri, a.label, kinds[a.type], a.activities, node_path(a.iri)])
        return respond(out.getvalue(), "text/csv")
    if fmt == "json":
        items = [
            {
                "agent": a.iri,
                "label": a.label,
                "type": kinds[a.type],
                "activities": a.activities,
                "page": node_path(a.iri),
            }
            for a in found
        ]
        body = {"list": "agents", "total": len(found), "items": items}
        return respond(json.dumps(body, ensure_ascii=False, indent=1), "application/json")
    return render_page("agents.html", AgentsPage(found, query, node_path, _other_lists()))


def _other_lists() -> dict[str, Any]:
    """Every list's path and title, for the links between them."""
    return {**{name: kind.title for name, kind in LISTS.items()}, "agents": "Agents"}
