"""The activities about a record, as its page shows them: reviews with their checks, and
reproduction runs."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..model.fields import FIELDS
from ..model.outcomes import worst_outcome
from ..rdf.facts import Term
from ..rdf.namespaces import DCTERMS, KG, QUDT, RDF, RDFS
from .closure import ClosureReader, Link, fragment, local_name

#: What points from a run to the records it reproduces, from a review to the record it
#: reviews.
REPRODUCES, REVIEW_OF = FIELDS["reproduces"].predicate, FIELDS["reviewOf"].predicate


@dataclass
class CheckView:
    """One check of a review, as the page shows it."""

    anchor: str
    check: str  # "quote"
    method: str
    outcome: str  # "could not be checked"
    outcome_id: str  # "not-checked"
    detail: str
    expected: str
    found: str
    page: str
    found_on_page: str


@dataclass
class ReviewView:
    node: str
    href: str
    agent: Link
    role: str
    reviewer_note: str
    reviewed_at: str
    status: str
    methods: list[str]
    method_note: str
    note: str
    sha256: str
    retrieval_url: str
    hash_scope: str
    origin: str
    checks: list[CheckView] = field(default_factory=list)
    file_name: str = ""
    file_sha256: str = ""

    @property
    def outcome(self) -> str:
        """The worst outcome of its checks ("" without checks)."""
        return worst_outcome(c.outcome_id for c in self.checks) if self.checks else ""

    @property
    def flagged(self) -> list[CheckView]:
        """Its failed checks."""
        return [c for c in self.checks if c.outcome_id == "failed"]

    @property
    def methods_json(self) -> str:
        """The methods as the registry prints them: a compact JSON list."""
        return json.dumps(self.methods, separators=(",", ":"))


def reviews_of(view: ClosureReader, record: Term) -> list[ReviewView]:
    """The reviews of ``record``, oldest first."""
    f = view.f
    found = sorted(
        set(f.subjects(REVIEW_OF, record)), key=lambda r: (view.field_text(r, "reviewedAt"), str(r))
    )
    return [_review(view, node, record) for node in found]


def _review(view: ClosureReader, node: Term, record: Term) -> ReviewView:
    f = view.f
    artifact = view.field(node, "usedArtifact")
    methods = sorted(FIELDS["reviewMethod"].values(f, node), key=f.order)
    # A review of a JSON file checks all its records: the page shows the file's checks and
    # the record's own.
    checks = sorted(
        (
            c
            for c in FIELDS["check"].values(f, node)
            if f.one(c, KG.checkedRecord) in (None, record)
        ),
        key=lambda c: int(f.text(c, KG.position) or 0),
    )
    return ReviewView(
        node=node.value,
        href=view.href(node),
        agent=view.link(view.field(node, "reviewer"), RDFS.label) or Link(""),
        role=f.concept(view.field(node, "role")),
        reviewer_note=view.field_text(node, "reviewerNote"),
        reviewed_at=view.field_text(node, "reviewedAt"),
        status=f.concept(view.field(node, "reviewStatus")),
        methods=[local_name(m) for m in methods],
        method_note=view.field_text(node, "methodNote"),
        note=view.field_text(node, "outcomeNote"),
        sha256=view.field_text(node, "usedSha256"),
        retrieval_url=view.field_text(node, "usedUrl"),
        hash_scope=view.value_or_reason(view.field(node, "usedHashScope")) if artifact else "",
        origin=f.concept(view.field(node, "origin")),
        checks=[_check(view, c) for c in checks],
        file_name=view.field_text(node, "fileName"),
        file_sha256=view.field_text(node, "fileSha256"),
    )


def _check(view: ClosureReader, node: Term) -> CheckView:
    f = view.f
    outcome = f.one(node, KG.outcome)
    kind = f.one(node, DCTERMS.type)
    return CheckView(
        anchor=fragment(node),
        check=f.concept(kind) or "check",
        method=f.concept(f.one(node, KG.method)),
        outcome=f.concept(outcome),
        outcome_id=local_name(outcome),
        detail=f.text(node, RDFS.comment),
        expected=f.text(node, KG.expected),
        found=f.text(node, KG.found),
        page=f.text(node, KG.page),
        found_on_page=f.text(node, KG.foundOnPage),
    )


@dataclass(frozen=True)
class VerdictFacts:
    """One verdict of a run, as the Reproduction section shows it."""

    on: Term | None
    quantity: str
    unit: Term | None
    unit_label: str
    stage: str
    #: the outcome's label ("reproduced", ...) and its id
    outcome: str
    outcome_id: str
    claimed: str
    measured: str
    difference: str
    tolerance: str
    note: str


@dataclass(frozen=True)
class RunFacts:
    """What a record page shows of one run, whichever claim's page it is: read from the
    run's own graph, so that the pages of every claim the run judged (a recipe declares
    several) share one reading of it per store version (kg.web.pages.record)."""

    node: Term
    href: str
    id: str
    ended_at: str
    status: str
    gpu: str
    gpu_memory: str
    precision: str
    #: (quantity, unit, stage, value) of each measurement it generated, in the graph's order
    measurements: tuple[tuple[str, Term | None, str, str], ...]
    #: (stage, status) of each stage, in their order
    stages: tuple[tuple[str, str], ...]
    verdicts: tuple[VerdictFacts, ...]


@dataclass
class StageView:
    """One stage of a run: its status, and the claim's quantity measured at it."""

    stage: str
    status: str
    value: str
    claim: bool  # the stage the claim is about


@dataclass
class RunView:
    """A run as a record's Reproduction section shows it, with its verdict on the record
    (attributes, not a dict: a template reads a dict's keys only after a failed attribute
    lookup, and a page of tens of runs reads hundreds)."""

    #: what every page of a claim the run judged shows of it
    run: RunFacts
    #: its verdict on this record (NO_VERDICT where it gave none)
    verdict: VerdictFacts
    #: each stage, with the claim's quantity measured at it
    stages: list[StageView]
    #: the other claims it gave a verdict on
    also: list[Link | None]


def runs_of(view: ClosureReader, record: Term, runs: list[RunFacts] | None = None) -> list[RunView]:
    """The reproduction runs of ``record``, in the order they ended, each with its verdict
    on ``record``: ``runs`` where the caller read them (:func:`run_facts`), else the runs
    in the view's facts."""
    if runs is None:
        runs = [run_facts(view, r) for r in view.f.subjects(REPRODUCES, record)]
    return sorted(
        (run_on(view, run, record) for run in runs),
        key=lambda shown: (shown.run.ended_at, shown.run.id),
    )


def run_facts(view: ClosureReader, node: Term) -> RunFacts:
    """The run ``node`` as every page of a claim it judged shows it."""
    f = view.f
    params = {
        f.text(p, RDFS.label): f.text(p, RDF.value) for p in FIELDS["parameter"].values(f, node)
    }
    gpus = (view.field_text(node, "gpuCount"), view.field_text(node, "gpuModel"))
    return RunFacts(
        node=node,
        href=view.href(node),
        id=local_name(node),
        ended_at=view.field_text(node, "ended"),
        status=f.concept(view.field(node, "runStatus")),
        gpu=" x ".join(p for p in gpus if p),
        gpu_memory=view.field_text(node, "gpuMemory"),
        precision=params.get("precision", ""),
        measurements=tuple(
            (
                f.text(m, KG.quantity),
                f.one(m, QUDT.unit),
                f.text(m, KG.stage),
                f.text(m, QUDT.numericValue),
            )
            for m in FIELDS["measurement"].values(f, node)
        ),
        stages=tuple(
            (f.text(s, KG.stage), f.concept(f.one(s, KG.runStatus)))
            for s in sorted(
                FIELDS["stageResult"].values(f, node),
                key=lambda x: int(f.text(x, KG.position) or 0),
            )
        ),
        verdicts=tuple(_verdict(view, v) for v in FIELDS["verdict"].values(f, node)),
    )


def _verdict(view: ClosureReader, node: Term) -> VerdictFacts:
    f = view.f
    unit = f.one(node, QUDT.unit)
    outcome = f.one(node, KG.outcome)
    difference = f.text(node, KG.relativeDifference)
    return VerdictFacts(
        on=f.one(node, KG.verdictOn),
        quantity=f.text(node, KG.quantity),
        unit=unit,
        unit_label=f.concept(unit, RDFS.label),
        stage=f.text(node, KG.stage),
        outcome=f.concept(outcome),
        outcome_id=local_name(outcome),
        claimed=f.text(node, KG.claimedValue),
        measured=f.text(node, KG.measuredValue),
        difference=f"{float(difference) * 100:+.1f} %" if difference else "",
        tolerance=f"{float(f.text(node, KG.tolerance) or 0) * 100:.0f} %",
        note=f.text(node, RDFS.comment),
    )


#: What a run without a verdict on the claim shows of one.
NO_VERDICT = VerdictFacts(None, "", None, "", "", "", "", "", "", "", "0 %", "")


def run_on(view: ClosureReader, run: RunFacts, record: Term) -> RunView:
    """A run as the Reproduction section shows it: hardware, the claim's quantity at each
    stage, and the verdict on ``record`` (a run may judge other claims of its recipe too:
    ``also`` names them, by the identifiers ``view`` knows)."""
    verdict = next((v for v in run.verdicts if v.on == record), None)
    others = [v.on for v in run.verdicts if v is not verdict]
    shown = verdict or NO_VERDICT
    measured = {
        stage: value
        for quantity, unit, stage, value in run.measurements
        if quantity == shown.quantity and unit == shown.unit
    }
    return RunView(
        run=run,
        verdict=shown,
        stages=[
            StageView(name, status, measured.get(name, ""), name == shown.stage)
            for name, status in run.stages
        ],
        also=[view.link(o, DCTERMS.identifier) for o in others if o is not None],
    )
