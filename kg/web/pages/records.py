"""The index, ``/`` and ``/records``: every record, searched, filtered by facets, sorted and
paged; as a page, or as data (``/records.json``, ``/records.csv``)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from flask import Response, request, url_for
from markupsafe import Markup

from ...config import placeholder_note
from ...errors import NotFoundError, UsageError
from ...rdf.formats import by_media_type, media_types
from ...rdf.negotiation import negotiate
from ...read.catalog import FACET_LIMIT, FACETS, SORTS, FacetCounts, Page
from ...read.citation import catalog as catalog_schema
from ...read.lists import LIST_OF_FACET
from ...store.index.rows import LISTING_FIELDS
from ..http.request_rules import int_param, params, with_changes
from ..state import state
from .answers import MOST_COMPARED, URL_SAFE, node_path, render_page, respond

#: The index comes as a page, or as data: /records.json, /records.csv.
LISTING_FORMATS = ("json", "csv")
LISTING_OFFERED = media_types("html", *LISTING_FORMATS)
PAGE_SIZE = 50


@dataclass(frozen=True)
class IndexPage:
    """What ``index.html`` shows."""

    page: Page
    query: str
    #: what the header's search box holds (the search shown)
    search: str
    #: the records ticked for comparison so far (``?record=``), kept from page to page
    ticked: list[str]
    filters: dict[str, str]
    facets: FacetCounts
    facet_names: dict[str, str]
    args: Callable[..., dict[str, str]]
    link: Callable[..., str]
    sort: str
    path: Callable[[str], str]
    next_url: str | None
    #: what the index says while the base IRI is a placeholder ("" once it is set)
    base_note: str
    #: the registry as a schema.org DataCatalog
    schema: Markup
    #: facet -> the path and title of the list of all its values, where it has one
    lists: dict[str, tuple[str, str]]
    #: how many values a facet shows at most (a facet that shows so many links to its list)
    facet_limit: int


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
    if listing == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=LISTING_FIELDS)
        writer.writeheader()
        for row in page.rows:
            values = row.as_dict()
            values["methods"] = "; ".join(values["methods"])  # type: ignore[arg-type]
            writer.writerow(values)
        return respond(out.getvalue(), media_type)
    # the facets of the rows shown (the CSV has none): a misspelt search's, those of the
    # corrected one
    # (?facets=none: a caller that shows none, the home page's suggestions as one types)
    facets = (
        FacetCounts()
        if params().get("facets") == "none"
        else catalog.facets(page.corrected or query, filters)
    )
    if listing == "json":
        next_url = (
            # mypy checks a ** dict against url_for's own _external (a bool): _args has no
            # name starting with "_" (_kept drops them), so none of it goes there
            url_for("index", suffix="json", **_args(after=page.next_after))  # type: ignore[arg-type]
            if page.next_after
            else None
        )
        return respond(
            json.dumps(
                {
                    "total": page.total,
                    "corrected": page.corrected,
                    "rows": [
                        {**r.as_dict(), "snippet": str(page.snippet(r.id))}
                        if page.snippets
                        else r.as_dict()
                        for r in page.rows
                    ],
                    "next": next_url,
                    "facets": {
                        name: [{"value": v, "label": label, "count": n} for v, label, n in values]
                        for name, values in facets.items()
                    },
                    # a facet of a large selection counted over its first rows
                    "facets_sampled": {
                        name: {"counted": counted, "of": of}
                        for name, (counted, of) in facets.sampled.items()
                    },
                },
                ensure_ascii=False,
                indent=1,
            ),
            media_type,
        )
    link = _index_link()
    context = IndexPage(
        page=page,
        query=query,
        search=query,
        ticked=[i for i in dict.fromkeys(params().getlist("record")) if i][:MOST_COMPARED],
        filters=filters,
        facets=facets,
        facet_names=FACET_TITLES,
        args=_args,
        link=link,
        sort=sort,
        path=node_path,
        next_url=link(after=page.next_after) if page.next_after else None,
        base_note=placeholder_note(app.settings.base) if app.settings.placeholder_base else "",
        schema=catalog_schema(
            request.url_root,
            app.licence_parts,
        ),
        lists={facet: (kind.name, kind.title) for facet, kind in LIST_OF_FACET.items()},
        facet_limit=FACET_LIMIT,
    )
    return render_page("index.html", context)


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


def _index_link() -> Callable[..., str]:
    """``link(**changes)``: the index's URL with the current arguments changed (as
    :func:`_args`), what ``url_for("index", **_args(**changes))`` gives, built
    without it: an index page has a link per facet value, and ``url_for`` cost a
    millisecond of every 20 (it matches rules for each)."""
    base = url_for("index")
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
