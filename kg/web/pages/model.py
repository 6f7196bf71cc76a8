"""A model's results, ``/model/<id>``: its records by benchmark, each with its rank there, and a
chart of where each stands between that benchmark's lowest and highest number. Its RDF,
its page in a release, and a model no ranked result names are the node's page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import pyoxigraph as ox
from flask import Response
from markupsafe import Markup

from ...kinds import minted_iri
from ...rdf.facts import Facts
from ...rdf.namespaces import FOAF, OWL, RDFS
from ...read.chart import ModelPoint, model_chart
from ...read.model_results import BenchmarkResults, ModelResults, model_results
from ...store.index.rows import Row
from ..http.documents import as_document, node_stem
from ..state import state
from .answers import HTML, NodeRequest, html_wanted, node_name, node_path, record_href, render_page
from .node import node


@dataclass(frozen=True)
class ModelPage:
    """What ``model.html`` shows."""

    ident: str
    iri: str
    sections: list[BenchmarkResults]
    sources: list[str]
    rows: list[Row]
    chart: Markup | str
    node_path: Callable[[str], str]
    record_href: Callable[[Any], str]
    alternates: dict[str, str]
    #: its name as its files write it, its developer, its sizes (billions) as stated
    name: str = ""
    developer: str = ""
    sizes: list[str] = field(default_factory=list)
    #: (site, URL) of the pages elsewhere its node links to (docs/links.md)
    links: list[tuple[str, str]] = field(default_factory=list)


#: The properties of a model node that link out, and the sites they are named by.
LINKING = (FOAF.page, OWL.sameAs, RDFS.seeAlso)
SITES = {"huggingface.co": "Hugging Face"}


def links_out(name: str, iri: str) -> list[tuple[str, str]]:
    """(site, URL) of each page elsewhere the model node ``iri`` links to: its Hugging Face
    repository where its files name one (kg/model/mapping/imports.py)."""
    facts = Facts(NodeRequest.read("model", name).describe(), state().terms.graph)
    found = []
    for predicate in LINKING:
        for target in facts.all(ox.NamedNode(iri), predicate):
            if isinstance(target, ox.NamedNode):
                host = urlsplit(target.value).hostname or target.value
                found.append((SITES.get(host, host), target.value))
    return sorted(set(found))


def model(name: str) -> Response:
    ident, suffix = node_name("model", name)
    if not html_wanted(suffix):
        return node("model", name)
    app = state()
    iri = minted_iri(app.settings.base, "model", ident)
    results = model_results(app.catalog.boards, iri)
    if results is None:
        return node("model", name)  # a model no ranked result names: its node page
    context = ModelPage(
        ident=ident,
        iri=iri,
        sections=results.sections,
        sources=results.sources,
        rows=results.rows,
        chart=model_chart(_points(results), results.name or ident),
        name=results.name or ident,
        developer=results.developer,
        sizes=results.sizes,
        links=links_out(name, iri),
        node_path=node_path,
        record_href=record_href,
        alternates={
            fmt: f"/model/{quote(ident, safe='')}.{fmt}" for fmt in ("ttl", "jsonld", "nt")
        },
    )
    return as_document(render_page("model.html", context), node_stem("model", ident), HTML)


def _points(results: ModelResults) -> list[ModelPoint]:
    """The chart's points: each result with a number, on a benchmark with numbers."""
    points = []
    for section in results.sections:
        for entry in section.entries:
            row = entry.row
            if row.value is None or section.low is None or section.high is None:
                continue
            points.append(
                ModelPoint(
                    label=f"{row.benchmark_label} ({row.source_title})",
                    href=record_href(row),
                    value=row.value,
                    printed=row.printed,
                    low=section.low,
                    high=section.high,
                    rank=entry.rank,
                    of=section.size,
                    lower_is_better=row.lower_is_better,
                )
            )
    return points
