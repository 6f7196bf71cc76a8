"""The page of any minted IRI, ``/<kind>/<id>``: its statements, linked, or the node in an
RDF syntax or a citation format (a record's page is :mod:`.record`'s).

The boards' pages defer to it for what they do not show themselves: a benchmark's or a
model's RDF, and their pages in a past release.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pyoxigraph as ox
from flask import Response

from ...export.citations import source_item
from ...rdf.facts import Facts
from ...read.citation import citation_meta
from ...read.node import node_rows
from ...read.suite import has_suite
from ...store.archive import ReleaseInfo
from .answers import HTML, NodeRequest, render_page


@dataclass(frozen=True)
class NodePage:
    """What ``node.html`` shows."""

    kind: str
    ident: str
    iri: str
    title: str
    rows: list[Any]
    alternates: dict[str, str]
    citations: dict[str, str]
    meta: list[tuple[str, str]]
    schema: str | None
    at_release: ReleaseInfo | None
    #: a source's suite, its results side by side ("" for another node, or none)
    suite: str = ""


def node(kind: str, name: str) -> Response:
    """``/<kind>/<id>``, as the request asks for it."""
    asked = NodeRequest.read(kind, name)
    if asked.media_type != HTML:
        return asked.data()
    quads = asked.describe()
    app, base = asked.app, asked.app.settings.base
    facts = Facts(quads, app.terms.graph)
    iri = ox.NamedNode(f"{base}{kind}/{quote(asked.ident, safe='')}")
    index = app.catalog.index if asked.release is None else None  # the live version's
    rows, title, source = node_rows(facts, iri, base, asked.registry.store, asked.release, index)
    context = NodePage(
        kind=kind,
        ident=asked.ident,
        iri=iri.value,
        title=title,
        rows=rows,
        alternates=asked.alternates(),
        citations=asked.citations(),
        meta=citation_meta(source_item(facts, iri), pdf_url=source.pdf_url) if source else [],
        schema=None,
        at_release=asked.at,
        suite=f"/source/{quote(asked.ident, safe='')}/suite"
        if kind == "source" and index is not None and has_suite(index, iri.value)
        else "",
    )
    return asked.document(render_page("node.html", context))
