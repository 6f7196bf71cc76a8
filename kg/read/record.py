"""What a record page shows, read from the record's closure: the seed page's sections, in order.

The headline, methods and evidence rows are read here; the shared readers (links, sources,
labels) are in :mod:`.base`, the reviews and runs in :mod:`.activities`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyoxigraph as ox

from ..model.fields import meant_text
from ..rdf.facts import Facts, Term
from ..rdf.namespaces import CITO, DCTERMS, KG, OA, QUDT, RDF, RDFS, SKOS
from .activities import CheckView, ReviewView, RunFacts, reviews_of, runs_of
from .closure import ClosureReader, Link, SourceView, fragment, local_name
from .imported import imported_view

#: The fields of a locator its page lists (project terms), most general first.
LOCATOR_FIELDS = ("section", "paragraph", "page", "figure", "figureElement", "table")


@dataclass
class RowView:
    anchor: str
    position: int
    property: str
    property_id: str
    statement: str
    citation: str
    citation_id: str
    shared: bool
    source: SourceView | None
    locator: str
    reviews: list[ReviewView]
    basis: str = ""  # "Transcriber's reading"
    basis_id: str = ""  # "transcriber-reading"
    note: str = ""


class RecordView(ClosureReader):
    """Every section of the record page, as plain values for the template."""

    def __init__(
        self,
        facts: Facts,
        record: ox.NamedNode,
        base: str,
        release: str | None = None,
        runs: list[RunFacts] | None = None,
    ):
        """``runs``: the record's runs where the caller read them apart from ``facts``
        (kg.web.pages.record), else they are read from ``facts``."""
        super().__init__(facts, base, release)
        self.record = record
        f = facts
        self.iri = record.value
        self.id = self.field_text(record, "id")
        self.title = self.field_text(record, "title")
        self.printed = self.field_text(record, "printed")
        self.numeric = self.field_text(record, "value")
        self.display = self.field_text(record, "display") or self.printed
        #: "not computed (printed -1.0)" where the printed value stands for none, else ""
        self.meant = meant_text(f, record)
        unit = self.field(record, "unit")
        self.unit = Link(
            f.concept(unit, RDFS.label) or local_name(unit),
            unit.value if isinstance(unit, ox.NamedNode) else "",
        )
        self.unit_symbol = f.concept(unit, QUDT.symbol)
        self.unit_detail = self.field_text(record, "unitDetail")
        self.metric = self.field_text(record, "metric")
        self.metric_label = self.field_text(record, "metricLabel") or self.metric
        direction = self.field(record, "direction")
        self.direction = f.concept(direction)
        self.qualifier = self.field_text(record, "qualifier")
        self.scope_note = f.text(record, KG.scopeNote)
        self.hardware = f.text(record, KG.hardwareAsReported)
        self.headline_label = (
            f"{self.metric_label} ({self.qualifier})" if self.qualifier else self.metric_label
        )

        self.quoted_from = self.source(self.field(record, "source"))
        self.evaluation = self.link(self.field(record, "evaluation"), DCTERMS.title)
        self.tested = self._cited(f.one(record, KG.testedConfiguration), model=True)
        self.protocol = self._cited(f.one(record, KG.protocol))
        self.dataset = self._cited(f.one(record, KG.dataset))
        self.procedure = self._cited(f.one(record, KG.procedure))
        coverage = f.one(record, KG.coverage)
        self.coverage = (
            f"{self.value_or_reason(f.one(coverage, KG.scored))} scored / "
            f"{self.value_or_reason(f.one(coverage, KG.eligible))} eligible"
            if coverage is not None
            else ""
        )
        self.uncertainty = self.value_or_reason(f.one(record, KG.uncertainty), said=True)

        kind = self.field(record, "evidenceKind")
        status = self.field(record, "status")
        self.evidence_kind = f.concept(kind)
        self.evidence_kind_short = f.concept(kind, SKOS.altLabel) or self.evidence_kind
        self.status = f.concept(status)
        self.status_id = local_name(status)
        self.status_scope = f.concept(status, SKOS.scopeNote)
        self.status_note = f.concept(status, SKOS.note)
        self.status_comment = f.concept(status, RDFS.comment)

        locator = self.field(record, "locator")
        self.locator = f.text(locator, RDFS.label)
        self.locator_anchor = fragment(locator)
        self.locator_parts = self._locator_parts(locator)

        repro = f.one(record, KG.reproduction)
        self.split = self.value_or_reason(f.one(repro, KG.split))
        self.adaptation = self.value_or_reason(f.one(repro, KG.adaptation))
        self.scoring = self.value_or_reason(f.one(repro, KG.scoringImplementation))
        self.upstream_recipe_note = f.text(repro, KG.upstreamRecipeNote)

        self.reviews = reviews_of(self, record)
        checked = [r for r in self.reviews if r.checks]
        #: The latest review with checks decides the flag; earlier ones stay as provenance.
        self.verification = checked[-1] if checked else None
        self.runs = runs_of(self, record, runs)
        self.rows = sorted(
            (self._row(r) for r in f.all(record, KG.evidenceRow)), key=lambda r: r.position
        )
        self.missing = [
            (
                f.concept(f.one(m, KG.field), RDFS.label) or local_name(f.one(m, KG.field)),
                local_name(f.one(m, KG.reason)),
                f.text(m, RDFS.comment),
            )
            for m in f.all(record, KG.missingMetadata)
        ]
        self.upstream_releases = [t.value for t in f.all(record, KG.upstreamRelease)]
        #: For a result imported from another registry: its model, benchmark, kept file.
        self.imported = imported_view(self, record)

    @property
    def all_sources(self) -> list[SourceView]:
        """The source the value is quoted from first, then any other source a row cites."""
        seen: dict[str, SourceView] = {}
        for source in [self.quoted_from, *(row.source for row in self.rows)]:
            if source is not None:
                seen.setdefault(source.node, source)
        return list(seen.values())

    # -- pieces -------------------------------------------------------------------------
    def _cited(self, node: Term | None, model: bool = False) -> dict[str, Any] | None:
        if node is None:
            return None
        f = self.f
        if model:
            parts = [f.text(node, KG.model), f.text(node, KG.configuration)]
            text = ", ".join(p for p in parts if p)
        else:
            text = f.text(node, RDF.value)
        source = self.source(f.one(node, DCTERMS.source))
        at = f.text(node, KG.citedAt)
        cite = " ".join(p for p in (source.short if source else "", at) if p)
        return {"text": text, "cite": cite, "href": source.href if source else ""}

    def _locator_parts(self, locator: Term | None) -> list[tuple[str, str]]:
        f = self.f
        parts = [(self.label(name), f.text(locator, KG[name])) for name in LOCATOR_FIELDS]
        for selector in f.all(locator, OA.hasSelector):
            if f.has_type(selector, OA.TextQuoteSelector):
                parts.append(("quote", f.text(selector, OA.exact)))
        return [(k, v) for k, v in parts if v]

    def _row(self, node: Term) -> RowView:
        f = self.f
        prop = f.one(node, KG.statementProperty)
        citation = f.one(node, KG.citationType)
        basis = f.one(node, KG.statementBasis)
        locator = f.one(node, KG.locator)
        reviews = [r for r in self.reviews if ox.NamedNode(r.node) in f.all(node, KG.reviewedBy)]
        return RowView(
            anchor=fragment(node),
            position=int(f.text(node, KG.position) or 0),
            property=f.concept(prop),
            property_id=local_name(prop),
            statement=f.text(node, RDF.value),
            citation=f.concept(citation),
            citation_id=local_name(citation),
            shared=f.text(node, KG.sharedLocator) == "true",
            source=self.source(f.one(node, CITO.citesAsEvidence)),
            locator=f.text(locator, RDFS.label),
            reviews=reviews,
            basis=f.concept(basis),
            basis_id=local_name(basis),
            note=f.text(node, RDFS.comment),
        )


__all__ = [
    "CheckView",
    "ClosureReader",
    "Link",
    "RecordView",
    "ReviewView",
    "RowView",
    "SourceView",
    "local_name",
]
