"""The claims of one quoted sentence, side by side: each record's value, stage and review
status, and the runs that measured them with their verdicts (a run of a recipe that
declares several of the claims has a verdict on each, in one row)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyoxigraph as ox

from ..rdf.facts import Facts
from ..rdf.namespaces import KG, OA, QUDT, RDFS
from .activities import RunFacts, RunView, runs_of
from .closure import ClosureReader, local_name


@dataclass
class ClaimColumn:
    """One claim of the sentence."""

    id: str
    href: str
    printed: str
    unit: str
    qualifier: str
    status: str
    this: bool  # the record whose page this is


@dataclass
class RunRow:
    """One run, and its verdict on each claim (None where it gave none)."""

    run: RunFacts
    cells: list[RunView | None] = field(default_factory=list)


class QuoteView:
    """The claims quoted from one sentence: the page's record and its siblings."""

    #: The most other claims of one sentence a page shows side by side.
    MAX_SIBLINGS = 12

    def __init__(
        self,
        this: ox.NamedNode,
        closures: list[tuple[ox.NamedNode, Facts]],
        base: str,
        release: str | None = None,
        left_out: int = 0,
        runs: dict[str, list[RunFacts]] | None = None,
    ):
        """``closures``: each claim's facts, this one's first; ``runs``: each claim's runs
        by its IRI where the caller read them apart (kg.web.pages.record), else they are
        read from its facts."""
        #: How many more records quote the sentence than the page shows.
        self.left_out = left_out
        views = [(record, ClosureReader(facts, base, release)) for record, facts in closures]
        first = views[0][1].f
        locator = first.one(this, KG.locator)
        selectors = first.all(locator, OA.hasSelector)
        self.quote = next(
            (first.text(s, OA.exact) for s in selectors if first.has_type(s, OA.TextQuoteSelector)),
            "",
        )
        self.locator = first.text(locator, RDFS.label)
        # In the order the sentence prints them, then by id.
        views.sort(key=lambda rv: (self._place(rv[1], rv[0]), rv[0].value))
        self.claims = [self._column(view, record, record == this) for record, view in views]
        rows: dict[str, RunRow] = {}
        for i, (record, view) in enumerate(views):
            for shown in runs_of(view, record, (runs or {}).get(record.value)):
                row = rows.setdefault(shown.run.id, RunRow(shown.run, [None] * len(views)))
                row.cells[i] = shown
        self.runs = sorted(rows.values(), key=lambda r: (r.run.ended_at, r.run.id))

    @property
    def gaps(self) -> bool:
        """Whether some run gave no verdict on some claim."""
        return any(cell is None for run in self.runs for cell in run.cells)

    @property
    def others(self) -> list[ClaimColumn]:
        return [c for c in self.claims if not c.this]

    def _place(self, view: ClosureReader, record: ox.NamedNode) -> int:
        printed = view.field_text(record, "printed")
        at = self.quote.find(printed) if printed else -1
        return at if at >= 0 else len(self.quote)

    @staticmethod
    def _column(view: ClosureReader, record: ox.NamedNode, this: bool) -> ClaimColumn:
        f = view.f
        unit = view.field(record, "unit")
        return ClaimColumn(
            id=view.field_text(record, "id") or local_name(record),
            href=view.href(record),
            printed=view.field_text(record, "printed"),
            unit=f.concept(unit, QUDT.symbol) or f.concept(unit, RDFS.label),
            qualifier=view.field_text(record, "qualifier"),
            status=f.concept(view.field(record, "status")),
            this=this,
        )
