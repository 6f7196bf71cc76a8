"""Reading the standing of claims: the rule's inputs from a store, and the rule applied.

Three internal queries give the inputs (``queries/internal/standing-*.rq``); the rule is
:func:`kg.model.standing.standing_of`. The same works on a release's store
(``Archive.release_store``), so a release shows the standing it had.
"""

from __future__ import annotations

from collections import defaultdict

import pyoxigraph as ox

from ..model.standing import Change, FailedCheck, Standing, Verdict, standing_of
from ..rdf.namespaces import KG, KGV
from . import GraphStore
from .queries import internal_query

#: The standing of a claim nothing has changed: what a record without rows gets.
CURRENT = standing_of([], [], [])


def _value(row, name: str) -> str | None:
    term = row[name]
    return None if term is None else term.value


def _rows(store: GraphStore, name: str, record: str | None):
    bindings = {"record": ox.NamedNode(record)} if record is not None else None
    return store.query(internal_query(name).text, bindings)


def standings(store: GraphStore, record: str | None = None) -> dict[str, Standing]:
    """The standing of every claim with anything that bears on it (or of the claim with
    IRI ``record`` only), by the claim's IRI; a claim not in the answer is current
    (:data:`CURRENT`)."""
    changes: dict[str, dict[str, dict]] = defaultdict(dict)
    for row in _rows(store, "standing-changes", record):
        claim, activity = row["record"].value, row["activity"].value
        seen = changes[claim].get(activity)
        if seen is None:
            seen = changes[claim][activity] = {
                "activity": activity, "ident": row["id"].value, "change": row["change"].value,
                "at": row["at"].value, "reason": row["reason"].value,
                "agent": row["agent"].value, "evidence": [], "value": _value(row, "value"),
                "superseded_by": _value(row, "newer"), "source": _value(row, "source"),
                "notice": _value(row, "notice")}
        evidence = _value(row, "evidence")
        if evidence is not None and evidence not in seen["evidence"]:
            seen["evidence"].append(evidence)
    failed: dict[str, set[FailedCheck]] = defaultdict(set)
    for row in _rows(store, "standing-failed-checks", record):
        failed[row["record"].value].add(FailedCheck(
            row["review"].value, row["at"].value, row["kind"].value, _value(row, "detail") or ""))
    runs: dict[str, dict[str, dict]] = defaultdict(dict)
    for row in _rows(store, "standing-verdicts", record):
        claim, run = row["record"].value, row["run"].value
        seen = runs[claim].setdefault(run, {
            "run": run, "at": row["at"].value, "outcome": row["outcome"].value,
            "measured": _value(row, "measured"), "claimed": _value(row, "claimed"),
            "setting": {}})
        name = _value(row, "name")
        if name is not None:
            seen["setting"][name] = row["setting"].value
    found = {}
    for claim in {*changes, *failed, *runs}:
        found[claim] = standing_of(
            [Change(**{**c, "evidence": tuple(c["evidence"])})
             for c in changes.get(claim, {}).values()],
            sorted(failed.get(claim, ()), key=lambda f: (f.at, f.review, f.check)),
            [Verdict(v["run"], v["at"], v["outcome"], tuple(sorted(v["setting"].items())),
                     v["measured"], v["claimed"])
             for v in sorted(runs.get(claim, {}).values(), key=lambda v: (v["at"], v["run"]))])
    return found


def standing(store: GraphStore, record: str) -> Standing:
    """The standing of the claim with IRI ``record``."""
    return standings(store, record).get(record, CURRENT)


def standing_quads(record: str, found: Standing) -> list[ox.Quad]:
    """The derived standing as statements about the claim (in the default graph: no data
    file states them), for the record's RDF and JSON-LD; none for a current claim."""
    if found.standing == "current":
        return []
    claim = ox.NamedNode(record)
    return [ox.Quad(claim, ox.NamedNode(KG.standing), ox.NamedNode(KGV[found.standing])),
            ox.Quad(claim, ox.NamedNode(KG.standingSummary), ox.Literal(found.summary()))]
