"""A record's HTML page, each piece read once: its graphs but the runs', each run once per
store version, what bears on it (the graphs about it, its runs), its standing and whether
it has claims of one sentence from the catalogue, of each of those claims only what the
table shows.

What the page costs is mostly reading quads back from the store (each term decoded) and
turning them into views. A run judges every claim its recipe declares, and a GPU sweep
gives a record tens of runs of hundreds of statements each, which the pages of all those
claims (and the "claims of one sentence" table beside each) read again on every request.
So a page reads the record's closure without the run graphs, and each run as
:class:`RunFacts`, read from its graph on the first page that shows it and then kept for
the store version (a snapshot: what it read stays true; :meth:`AppState.derived` drops it
with the version). The standing of every claim is read with the catalogue's rows
(:attr:`Catalog.standings`), so the live page runs none of the standing rule's queries;
and the catalogue knows which records share a quoted sentence (:attr:`Row.shares_quote`),
so the others do not look for one. Which graphs bear on a record, and which runs reproduce
it, the catalogue reads for every record at once (:attr:`Catalog.about`,
``queries/internal/record-page.rq``): one query a version instead of one a page (about a
quarter of what a page at 100k records reads). A page of a past release (``?release=``)
reads everything from that release's store, keeping nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import quote

import pyoxigraph as ox
from flask import Response, request
from markupsafe import Markup

from ...errors import NotFoundError
from ...export.citations import citation_items
from ...model.licences import Licence, record_licence
from ...model.standing import Standing
from ...rdf.facts import Facts
from ...read.activities import RunFacts, run_facts
from ...read.citation import citation_meta, schema_org
from ...read.closure import ClosureReader, path_of
from ...read.quote import QuoteView
from ...read.record import RecordView
from ...read.standing import StandingView, standing_view
from ...registry import Registry
from ...release.history import HistoryEntry
from ...store import GraphStore
from ...store.archive import ReleaseInfo
from ...store.records import page_closure, quote_column, quote_siblings, record_runs
from ...store.standing import CURRENT, standing
from ..http.request_rules import params
from ..state import AppState
from .answers import HTML, NodeRequest, render_page

#: The most of each kind kept per store version (a run's facts, a sentence's other claims,
#: a column of its table: each a few hundred bytes); past it the kept ones are dropped and
#: read again.
KEPT_MOST = 20_000
#: The names of what is kept in a store version's derived figures: each run's facts by
#: (graph, run); the other claims of each record's sentence by record id; what the
#: sentence's table shows of each claim (its column's statements) by record id.
KEPT_RUNS, KEPT_SIBLINGS, KEPT_COLUMNS = (
    "record-page-runs",
    "record-page-siblings",
    "record-page-columns",
)


class RecordPage:
    """What a record's page reads of the store, before anything is shown."""

    def __init__(self, app: AppState, registry: Registry, ident: str, release: str | None):
        """:raises NotFoundError: when no record has the id."""
        self.app, self.registry, self.ident, self.release = app, registry, ident, release
        self.store: GraphStore = registry.store
        self.iri = ox.NamedNode(registry.iri("record", ident))
        # a live page finds what bears on its record in the catalogue, read with its rows
        self.about = app.catalog.about if release is None else None
        quads, runs = page_closure(self.store, registry.base, ident, self.about)
        self.facts = Facts(quads, app.terms.graph)
        self.runs = self._runs(runs)
        self.standing = self._standing()

    def _standing(self) -> Standing:
        if self.release is None:
            known = self.app.catalog.standings
            if known is not None:  # read with the rows of this store version
                return known.get(self.iri.value, CURRENT)
        return standing(self.store, self.iri.value)

    def _kept(self, name: str) -> dict[Any, Any]:
        """What the live version keeps under ``name`` (a page of a release keeps nothing)."""
        if self.release is not None:
            return {}
        return cast(dict[Any, Any], self.app.derived(name, lambda _: {}))

    def _runs(self, pairs: list[tuple[str, str]]) -> list[RunFacts]:
        """The runs named by (graph, run), each read from its graph unless kept."""
        kept = self._kept(KEPT_RUNS)

        def read(pair: tuple[str, str]) -> RunFacts:
            facts = Facts(self.store.quads([pair[0]]), self.facts.terms)
            return run_facts(
                ClosureReader(facts, self.registry.base, self.release), ox.NamedNode(pair[1])
            )

        return [_once(kept, pair, read) for pair in pairs]

    def quote_view(self) -> QuoteView | None:
        """The record and the other claims of its quoted sentence, side by side (None when
        the sentence gives no other record). Of each other claim the table shows its own
        graph's few values the table shows and its runs: only those are read."""
        base = self.registry.base
        if self.release is None:
            row = self.app.catalog.row_of(self.ident, self.iri.value)
            if row is not None and not row.shares_quote:  # no other claim of its sentence
                return None
        # kept for the version: the pages of one sentence's claims read each other's
        siblings = _once(
            self._kept(KEPT_SIBLINGS),
            self.ident,
            lambda ident: quote_siblings(self.store, base, ident),
        )
        if not siblings:
            return None
        closures = [(self.iri, self.facts)]
        runs = {self.iri.value: self.runs}
        columns = self._kept(KEPT_COLUMNS)
        # A sentence prints a few numbers; a page reads at most MAX_SIBLINGS of them.
        for other in siblings[: QuoteView.MAX_SIBLINGS]:
            iri = ox.NamedNode(self.registry.iri("record", other))
            column = _once(columns, other, lambda ident: quote_column(self.store, base, ident))
            closures.append((iri, Facts(column, self.facts.terms)))
            runs[iri.value] = self._runs(record_runs(self.store, base, other, self.about))
        return QuoteView(
            self.iri,
            closures,
            base,
            self.release,
            left_out=max(0, len(siblings) - QuoteView.MAX_SIBLINGS),
            runs=runs,
        )

    def context(self, asked: NodeRequest) -> RecordContext:
        """What the page shows, for the request ``asked``."""
        base, release = self.registry.base, self.release
        view = RecordView(self.facts, self.iri, base, release, self.runs)
        # what its citations say, and the licence derived for it (kg.model.licences)
        operator = self.app.settings.licence
        items = citation_items(self.facts, self.iri, operator, dt.datetime.now(dt.UTC).date(), None)
        licence = record_licence(self.facts, self.iri, operator)
        source = view.quoted_from
        pdf_url = source.pdf_url if source is not None and view.imported is None else ""
        return RecordContext(
            r=view,
            alternates=asked.alternates(),
            citations=asked.citations(),
            meta=citation_meta(items[0] if len(items) > 1 else None, licence, pdf_url),
            schema=schema_org(view, request.url_root, items, licence, asked.alternates()),
            licence=licence,
            evidence_filters=_evidence_filters(view),
            history=self.app.history(self.iri.value),
            standing=standing_view(self.standing, base, release),
            at_release=asked.at,
            quote=self.quote_view(),
            placement=None if release else _placement(self.app, self.iri.value),
            annotation=asked.path("wa.jsonld"),
            nanopub=asked.path("np.trig"),
        )


@dataclass(frozen=True)
class RecordContext:
    """What ``record.html`` shows."""

    r: RecordView
    alternates: dict[str, str]
    citations: dict[str, str]
    meta: list[tuple[str, str]]
    schema: Markup
    licence: Licence
    evidence_filters: dict[str, Any]
    history: list[HistoryEntry]
    standing: StandingView
    at_release: ReleaseInfo | None
    quote: QuoteView | None
    placement: dict[str, Any] | None
    annotation: str
    #: the record as a trusty nanopublication (TriG; docs/nanopublications.md)
    nanopub: str = ""


def record(name: str) -> Response:
    """``/record/<id>``: the record's page, or the record in a data format."""
    asked = NodeRequest.read("record", name)
    if asked.media_type != HTML:
        return asked.data()
    try:
        reading = RecordPage(asked.app, asked.registry, asked.ident, asked.release)
    except NotFoundError as exc:
        asked.missing(exc)
    return asked.document(render_page("record.html", reading.context(asked)))


def _once(kept: dict[Any, Any], key: Any, read: Callable[[Any], Any]) -> Any:
    """``kept[key]``, read and kept first where it is not (all dropped when full)."""
    value = kept.get(key)
    if value is None:
        value = read(key)
        if len(kept) >= KEPT_MOST:
            kept.clear()
        kept[key] = value
    return value


def _placement(app: AppState, record: str) -> dict[str, Any] | None:
    """The record's place on its benchmark's leaderboard and the other records of the same
    quantity (its model on its benchmark), each with its difference from this one."""
    boards = app.catalog.boards
    entry = boards.entry(record)
    board = boards.info(entry.row.benchmark) if entry is not None else None
    if entry is None or board is None:
        return None
    row, base = entry.row, app.settings.base
    same = [
        (
            other,
            f"{other.value - row.value:+}"
            if other.value is not None and row.value is not None
            else "",
        )
        for other in boards.same_quantity(row)
    ]
    return {
        "entry": entry,
        "size": board.size,
        "same": same,
        "disagree": any(  # numbers only: a placeholder disagrees with nothing
            o.value is not None and row.value is not None and o.value != row.value for o, _ in same
        ),
        "board_href": f"{path_of(row.benchmark, base)}?record={quote(row.id, safe='')}"
        f"#{quote(row.id, safe='')}",
        "path": lambda iri: path_of(iri, base),
    }


def _evidence_filters(view: RecordView) -> dict[str, Any]:
    """The evidence table's filters (by property and by citation type), applied server-side."""
    prop = params().get("evidence_property", "")
    citation = params().get("evidence_citation", "")
    rows = [
        r
        for r in view.rows
        if (not prop or r.property_id == prop) and (not citation or r.citation_id == citation)
    ]
    return {
        "rows": rows,
        "property": prop,
        "citation": citation,
        "properties": sorted({(r.property_id, r.property) for r in view.rows}),
        "citations": sorted({(r.citation_id, r.citation) for r in view.rows}),
    }
