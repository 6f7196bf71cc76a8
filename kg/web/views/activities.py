"""The activities about a record, as its page shows them: reviews with their checks, and
reproduction runs."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ...rdf.facts import Term
from ...rdf.namespaces import DCAT, DCTERMS, KG, PROV, QUDT, RDF, RDFS, SPDX
from ...verify.checks import worst_outcome
from .base import Link, ViewBase, fragment, local_name


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


def reviews_of(view: ViewBase, record: Term) -> list[ReviewView]:
    """The reviews of ``record``, oldest first."""
    f = view.f
    found = sorted(set(f.subjects(KG.reviewOf, record)),
                   key=lambda r: (f.text(r, PROV.endedAtTime), str(r)))
    return [_review(view, node, record) for node in found]


def _review(view: ViewBase, node: Term, record: Term) -> ReviewView:
    f = view.f
    association = f.one(node, PROV.qualifiedAssociation)
    agent = f.one(node, PROV.wasAssociatedWith)
    artifact = f.one(node, KG.usedArtifact)
    checksum = f.one(artifact, SPDX.checksum)
    methods = sorted(f.all(node, KG.method), key=f.order)
    # A review of a JSON file checks all its records: the page shows the file's checks and
    # the record's own.
    checks = sorted((c for c in f.all(node, KG.check)
                     if f.one(c, KG.checkedRecord) in (None, record)),
                    key=lambda c: int(f.text(c, KG.position) or 0))
    file = f.one(node, KG.checkedFile)
    return ReviewView(
        node=node.value, href=view.href(node),
        agent=view.link(agent, RDFS.label) or Link(""),
        role=f.concept(f.one(association, PROV.hadRole)),
        reviewer_note=f.text(association, RDFS.comment),
        reviewed_at=f.text(node, PROV.endedAtTime),
        status=f.concept(f.one(node, KG.reviewStatus)),
        methods=[local_name(m) for m in methods],
        method_note=f.text(node, KG.methodNote),
        note=f.text(node, KG.outcomeNote),
        sha256=f.text(checksum, SPDX.checksumValue),
        retrieval_url=f.text(artifact, DCAT.downloadURL),
        hash_scope=view.value_or_reason(f.one(artifact, KG.hashScope)) if artifact else "",
        origin=f.concept(f.one(node, KG.origin)),
        checks=[_check(view, c) for c in checks],
        file_name=f.text(file, KG.fileName),
        file_sha256=f.text(f.one(file, SPDX.checksum), SPDX.checksumValue),
    )


def _check(view: ViewBase, node: Term) -> CheckView:
    f = view.f
    outcome = f.one(node, KG.outcome)
    kind = f.one(node, DCTERMS.type)
    return CheckView(
        anchor=fragment(node), check=f.concept(kind) or "check",
        method=f.concept(f.one(node, KG.method)),
        outcome=f.concept(outcome), outcome_id=local_name(outcome),
        detail=f.text(node, RDFS.comment), expected=f.text(node, KG.expected),
        found=f.text(node, KG.found), page=f.text(node, KG.page),
        found_on_page=f.text(node, KG.foundOnPage),
    )


def runs_of(view: ViewBase, record: Term) -> list[dict[str, Any]]:
    """The reproduction runs of ``record``, in the order they ended, each with its verdict
    on ``record``."""
    return sorted((_run(view, r, record) for r in view.f.subjects(KG.reproduces, record)),
                  key=lambda run: (run["ended_at"], run["id"]))


def _run(view: ViewBase, node: Term, record: Term) -> dict[str, Any]:
    """A run as the Reproduction section shows it: hardware, the claim's quantity at each
    stage, and the verdict on ``record`` (a run may judge other claims of its recipe too:
    ``also`` names them)."""
    f = view.f
    env = f.one(node, KG.environment)
    verdicts = f.all(node, KG.verdict)
    verdict = next((v for v in verdicts if f.one(v, KG.verdictOn) == record), None)
    others = [f.one(v, KG.verdictOn) for v in verdicts if v != verdict]
    quantity = f.text(verdict, KG.quantity)
    unit = f.one(verdict, QUDT.unit)
    measured = {}
    for m in f.all(node, PROV.generated):
        if f.text(m, KG.quantity) == quantity and f.one(m, QUDT.unit) == unit:
            measured[f.text(m, KG.stage)] = f.text(m, QUDT.numericValue)
    stages = []
    for s_ in sorted(f.all(node, KG.stageResult), key=lambda x: int(f.text(x, KG.position) or 0)):
        name = f.text(s_, KG.stage)
        stages.append({"stage": name, "status": f.concept(f.one(s_, KG.runStatus)),
                       "value": measured.get(name, ""),
                       "claim": name == f.text(verdict, KG.stage)})
    params = {f.text(p, RDFS.label): f.text(p, RDF.value) for p in f.all(node, KG.parameter)}
    difference = f.text(verdict, KG.relativeDifference)
    return {
        "href": view.href(node), "id": local_name(node),
        "ended_at": f.text(node, PROV.endedAtTime),
        "status": f.concept(f.one(node, KG.runStatus)),
        "gpu": " x ".join(p for p in (f.text(env, KG.gpuCount), f.text(env, KG.gpuModel)) if p),
        "gpu_memory": f.text(env, KG.gpuMemory),
        "precision": params.get("precision", ""),
        "quantity": quantity, "unit": f.concept(unit, RDFS.label),
        "stages": stages,
        "verdict": f.concept(f.one(verdict, KG.outcome)),
        "claimed": f.text(verdict, KG.claimedValue),
        "measured": f.text(verdict, KG.measuredValue),
        "difference": f"{float(difference) * 100:+.1f} %" if difference else "",
        "tolerance": f"{float(f.text(verdict, KG.tolerance) or 0) * 100:.0f} %",
        "note": f.text(verdict, RDFS.comment),
        "stage": f.text(verdict, KG.stage),
        "outcome_id": local_name(f.one(verdict, KG.outcome)),
        "also": [view.link(o, DCTERMS.identifier) for o in others if o is not None],
    }
