"""What differs between SPARQL servers, declared once per kind of server.

A remote store asks the server which kind it is (the ``Server`` header of its answer to
``ASK {}``) unless ``KG_STORE_SERVER`` says so, and then sends each request the way that
kind answers (docs/deployment.md has a row per server):

- **standard** (Oxigraph's server; what the SPARQL 1.1 Protocol says): queries and updates
  as direct POSTs, one update request is one transaction, the default graph is what the
  union parameter makes it.
- **virtuoso** (Virtuoso Open Source 7): a direct ``application/sparql-query`` POST is
  never answered, so queries and updates are form-encoded POSTs; one update request is
  *not* one transaction (an operation that fails leaves the ones before it done), so a
  write goes in steps behind a version marker (:mod:`kg.store.stepwise`); the default
  graph is the union of every graph, the server's own system graphs too, so each query
  starts with ``define input:default-graph-exclude`` and ``define
  input:named-graph-exclude`` pragmas for them.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox
import requests

from ..errors import ConfigError


@dataclass(frozen=True)
class Dialect:
    """How to talk to one kind of SPARQL server."""

    name: str
    #: Queries and updates as ``application/x-www-form-urlencoded`` POSTs.
    form_posts: bool
    #: One SPARQL Update request is one transaction (all of it or none).
    atomic_updates: bool
    #: The server's own graphs, kept out of every query's dataset.
    system_graphs: tuple[str, ...] = ()
    #: Its SPARQL JSON needs :func:`kg.store.answers.virtuoso_results`; graphs come as
    #: RDF/JSON.
    virtuoso_json: bool = False
    #: Parameters go first in the WHERE group in every query form, never in a trailing
    #: ``VALUES`` (which Virtuoso 7 joins with one branch of a ``UNION`` only, and refuses
    #: outside SELECT). Elsewhere only a SELECT's and an ASK's do (kg.store.sparql_requests).
    values_inside: bool = False
    #: A request's ``default-graph-uri``/``named-graph-uri`` are added to the query's
    #: ``FROM`` (the protocol: they replace it), and naming only one kind leaves the other
    #: as every graph (the protocol: none).
    adds_datasets: bool = False
    #: The internal query that lists the named graphs (Virtuoso answers ``GRAPH ?g {}``
    #: with one empty row).
    graph_listing: str = "named-graphs"

    def prologue(self) -> str:
        """What goes before each query's text, on its first line (so that the server's
        error positions keep their line numbers).

        >>> VIRTUOSO.prologue().split(" define ")[0]
        'define input:default-graph-exclude <http://www.openlinksw.com/schemas/virtrdf#>'
        >>> STANDARD.prologue()
        ''
        """
        return "".join(
            f"define input:default-graph-exclude {ox.NamedNode(g)} "
            f"define input:named-graph-exclude {ox.NamedNode(g)} "
            for g in self.system_graphs
        )


STANDARD = Dialect("standard", form_posts=False, atomic_updates=True)
VIRTUOSO = Dialect(
    "virtuoso",
    form_posts=True,
    atomic_updates=False,
    # the graphs a fresh Virtuoso 7.2 database holds (its RDF views, LDP and the
    # URIQA server's descriptions)
    system_graphs=(
        "http://www.openlinksw.com/schemas/virtrdf#",
        "http://www.w3.org/ns/ldp#",
        "http://localuriqaserver/sparql",
    ),
    virtuoso_json=True,
    values_inside=True,
    adds_datasets=True,
    graph_listing="named-graphs-of-triples",
)
DIALECTS = {dialect.name: dialect for dialect in (STANDARD, VIRTUOSO)}
#: What ``KG_STORE_SERVER`` may say.
CHOICES = ("auto", *DIALECTS)


def named(name: str) -> Dialect | None:
    """The dialect a ``KG_STORE_SERVER`` value names; None for ``auto``.

    :raises ConfigError: for a name that is none of :data:`CHOICES`.
    """
    if name == "auto":
        return None
    if name not in DIALECTS:
        raise ConfigError(f"store_server must be one of {', '.join(CHOICES)} (got {name!r})")
    return DIALECTS[name]


def from_server_header(header: str) -> Dialect:
    """The dialect for a ``Server`` header (a proxy may put its own name before the
    server's).

    >>> from_server_header("Virtuoso/07.20.3229 (Linux) x86_64-pc-linux-gnu").name
    'virtuoso'
    >>> from_server_header("Oxigraph/0.4").name
    'standard'
    """
    return VIRTUOSO if "virtuoso/" in header.lower() else STANDARD


def detect(session: requests.Session, query_url: str, timeout: float) -> Dialect | None:
    """Ask the server which kind it is: a GET of ``ASK {}`` (which every kind answers),
    read for its ``Server`` header. None when it cannot be reached: nothing is known yet,
    and the request that follows reports why."""
    try:
        response = session.get(
            query_url,
            params={"query": "ASK {}"},
            timeout=timeout,
            headers={"Accept": "application/sparql-results+json"},
        )
    except requests.RequestException:
        return None
    return from_server_header(response.headers.get("Server", ""))
