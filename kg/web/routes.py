"""Every URL the web app answers, in one table: its rule, its view, its methods, and what
its requests may carry and its answers are (:class:`~kg.web.http.request_rules.Rules`).

``create_app`` registers each row; the HTTP plumbing reads a route's rules by its endpoint
(the view's name), so what a route takes and how its answers are cached is said here,
beside its URL, and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from flask import Flask, Response

from ..read.lists import LISTS
from .following.feeds import node_feed, registry_feed
from .following.sitemap import robots, sitemap, sitemap_part
from .following.void import PATH as VOID
from .following.void import description
from .http.request_rules import Rules
from .pages.benchmark import benchmark, benchmark_table
from .pages.compare import compare
from .pages.disagreements import disagreements
from .pages.downloads import dump, jsonld_context
from .pages.health import healthz
from .pages.home import home
from .pages.lists import agent_list, value_list
from .pages.model import model
from .pages.node import node
from .pages.record import record
from .pages.records import index
from .pages.release import release
from .pages.suite import suite
from .pages.vocabulary import ontology, vocabulary
from .sparql.endpoint import REQUESTS, endpoint, prefixes, preflight

#: The lists' paths, as Werkzeug's ``any`` converter takes them.
LIST_NAMES = ", ".join(LISTS)
#: Answers that are files, sent with their own validators (and Range).
FILE = Rules(sends_file=True)
#: Routes that read ``?release=``: their non-HTML answers come from that release alone.
RELEASE_READER = Rules(reads_release=True)


@dataclass(frozen=True)
class Route:
    """One view and the URL rules that reach it."""

    #: the URL rules (Werkzeug's syntax); ``url_for`` builds the first whose variables it
    #: is given (``/records`` for the index, not ``/``)
    rules: tuple[str, ...]
    view: Callable[..., Response]
    methods: tuple[str, ...] = ("GET",)
    requests: Rules = field(default_factory=Rules)
    #: the endpoint, where it is not the view's name
    name: str = ""

    @property
    def endpoint(self) -> str:
        return self.name or self.view.__name__


ROUTES: tuple[Route, ...] = (
    # the index and the pages of nodes (docs/views.md)
    Route(("/",), home),
    Route(("/records.<suffix>", "/records"), index),
    # the lists of what records are about (docs/views.md)
    Route((f"/<any({LIST_NAMES}):name>.<suffix>", f"/<any({LIST_NAMES}):name>"), value_list),
    Route(("/agents.<suffix>", "/agents"), agent_list),
    Route(("/record/<path:name>",), record, requests=RELEASE_READER),
    Route(("/<kind>/<path:name>",), node, requests=RELEASE_READER),
    Route(("/benchmark/<path:name>",), benchmark, requests=RELEASE_READER),
    Route(("/benchmark/<ident>/leaderboard.<fmt>",), benchmark_table),
    Route(("/source/<ident>/suite.<fmt>", "/source/<ident>/suite"), suite),
    Route(("/model/<path:name>",), model, requests=RELEASE_READER),
    Route(("/compare.<suffix>", "/compare"), compare),
    Route(("/disagreements",), disagreements),
    Route(("/release/<path:name>",), release),
    # the vocabulary (docs/linked-data.md)
    Route(("/ns.<suffix>", "/ns"), vocabulary),
    Route(("/ontology.<suffix>", "/ontology"), ontology),
    # downloads
    Route(("/context.jsonld",), jsonld_context, requests=FILE),
    Route(("/dumps/<name>",), dump, requests=FILE),
    # the SPARQL endpoint (docs/sparql.md)
    # the preflight first: Flask would answer OPTIONS for the GET route itself
    Route(("/sparql",), preflight, ("OPTIONS",), name="sparql_preflight"),
    Route(("/sparql",), endpoint, ("GET", "POST"), REQUESTS, name="sparql"),
    Route(("/sparql/prefixes.json",), prefixes, name="sparql_prefixes"),
    # following (docs/following.md)
    Route(("/feed.atom",), registry_feed),
    Route(("/feed/<kind>/<path:name>",), node_feed),
    Route(("/sitemap.xml",), sitemap),
    Route(("/sitemap-<int:number>.xml",), sitemap_part),
    Route(("/robots.txt",), robots),
    Route((f"{VOID}.<suffix>", VOID), description, name="void"),
    # for load balancers and operators
    Route(("/healthz",), healthz, requests=FILE),
)


def register_routes(app: Flask) -> dict[str, Rules]:
    """Add every route of :data:`ROUTES` to ``app``; its endpoints' rules (Flask's own
    ``static`` files included)."""
    for route in ROUTES:
        for rule in route.rules:
            app.add_url_rule(rule, route.endpoint, route.view, methods=list(route.methods))
    return {"static": FILE, **{route.endpoint: route.requests for route in ROUTES}}
