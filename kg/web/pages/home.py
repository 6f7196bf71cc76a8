"""The home page, ``/``: what the registry holds, its sources and most-used benchmarks, the
latest changes, and the way into the lists and the records. ``/`` with a search, a filter,
a sort or a page, or asked for as data, is the records' index (``/records``), as it always
was: links and bookmarks of ``/?q=`` keep working."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from flask import Response, current_app, request
from markupsafe import Markup

from ...config import placeholder_note
from ...rdf.formats import by_media_type, media_types
from ...rdf.negotiation import negotiate
from ...read.catalog import FACETS
from ...read.citation import catalog as catalog_schema
from ...read.home import Overview, overview
from ..http.request_rules import params
from ..state import state
from .answers import node_path, records_href, render_page

#: What ``/`` answers as data: the index's formats (kg/web/pages/records.py).
OFFERED = media_types("html", "json", "csv")
#: What makes ``/`` the records' index: any of the index's own parameters.
LISTING_PARAMETERS = frozenset({"q", "after", "sort", "limit", *FACETS})


@dataclass(frozen=True)
class HomePage:
    """What ``home.html`` shows."""

    overview: Overview
    path: Any
    records: Any
    base_note: str
    #: the registry as a schema.org DataCatalog, its parts with their licences
    schema: Markup


def home() -> Response:
    given = params()
    wanted = negotiate(request.headers.get("Accept"), OFFERED, given.get("format"))
    if by_media_type(wanted).name != "html" or any(given.get(p) for p in LISTING_PARAMETERS):
        # the index's own view, found by its endpoint (a page imports no other page)
        return cast(Response, current_app.view_functions["index"]())
    app = state()
    context = HomePage(
        overview=overview(app.catalog.index, app.timeline),
        path=node_path,
        records=records_href,
        base_note=placeholder_note(app.settings.base) if app.settings.placeholder_base else "",
        schema=catalog_schema(request.url_root, app.licence_parts),
    )
    return render_page("home.html", context)
