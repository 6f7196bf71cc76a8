"""Reading the standing of claims: the rule's inputs from a store, and the rule applied.

Internal queries give the inputs (``queries/internal/standing-*.rq`` and
``run-open-parameters.rq``); the rule is
:func:`kg.model.standing.standing_of`. The same works on a release's store
(``Archive.release_store``), so a release shows the standing it had.
"""

from __future__ import annotations

from collections import defaultdict

import pyoxigraph as ox

from ..model.standing import Change, FailedCheck, Standing, Verdict, standing_of
from ..rdf.namespaces import KG, KGV
from .base import GraphStore, solutions
from .queries import internal_query

#: The standing of a claim nothing has changed: what a record without rows gets.
CURRENT = standing_of([], [], [])


def _value(row, name: str) -> str | None:
    term = row[name]
    return None if term is None else term.value


def _rows(store: GraphStore, name: str, record: str | None) -> ox.QuerySolutions:
    bindings = {"record": ox.NamedNode(record)} if record is not None else None
    return solutions(store.query(internal_query(name).text, bindings))


def standings(store: GraphStore, record: str | None = None) -> dict[str, Standing]:
    """The standing of every claim with anything that bears on it (or of the claim with
    IRI ``record`` only), by the claim's IRI; a claim not in the answer is current
    (:data:`CURRENT`)."""
    changes = _changes(store, record)
    failed: dict[str, set[FailedCheck]] = defaultdict(set)
    for row in _rows(store, "standing-failed-checks", record):
        failed[row["record"].value].add(
            FailedCheck(
                row["review"].value, row["at"].value, row["kind"].value, _value(row, "detail") or ""
            )
        )
    runs: dict[str, dict[str, dict]] = defaultdict(dict)
    for row in _rows(store, "standing-verdicts", record):
        claim, run = row["record"].value, row["run"].value
        runs[claim].setdefault(
            run,
            {
                "run": run,
                "at": row["at"].value,
                "outcome": row["outcome"].value,
                "measured": _value(row, "measured"),
                "claimed": _value(row, "claimed"),
            },
        )
    settings = _open_parameters(
        store, {run for judged in runs.values() for run in judged}, every=record is None
    )
    for judged in runs.values():
        for run, seen in judged.items():
            seen["setting"] = settings.get(run, {})
    found = {}
    for claim in {*changes, *failed, *runs}:
        found[claim] = standing_of(
            [
                Change(**{**c, "evidence": tuple(c["evidence"])})
                for c in changes.get(claim, {}).values()
            ],
            sorted(failed.get(claim, ()), key=lambda f: (f.at, f.review, f.check)),
            [
                Verdict(
                    v["run"],
                    v["at"],
                    v["outcome"],
                    tuple(sorted(v["setting"].items())),
                    v["measured"],
                    v["claimed"],
                )
                for v in sorted(runs.get(claim, {}).values(), key=lambda v: (v["at"], v["run"]))
            ],
        )
    return found


def _changes(store: GraphStore, record: str | None) -> dict[str, dict[str, dict]]:
    """record -> activity -> the change's fields: the changes that name the record, and
    the retractions of its source as a whole."""

    def pairs(name: str, key: str, value: str | None):
        bindings = {key: ox.NamedNode(value)} if value is not None else None
        return [
            (row[key].value, row["activity"].value)
            for row in solutions(store.query(internal_query(name).text, bindings))
        ]

    concerns = pairs("standing-of-records", "record", record)
    if record is not None:
        sources = store.query(
            internal_query("record-source").text, {"record": ox.NamedNode(record)}
        )
        for source in {row["source"].value for row in solutions(sources)}:
            concerns += [
                (record, activity) for _, activity in pairs("source-retractions", "source", source)
            ]
    else:
        for source, activity in pairs("source-retractions", "source", None):
            concerns += [(claim, activity) for claim in records_of_source(store, source)]
    query = internal_query("standing-changes").text
    activities = sorted({activity for _, activity in concerns})
    if record is not None:  # a few: each read by its IRI
        rows = [
            row
            for activity in activities
            for row in solutions(store.query(query, {"activity": ox.NamedNode(activity)}))
        ]
    else:
        wanted = set(activities)
        rows = [row for row in solutions(store.query(query)) if row["activity"].value in wanted]
    fields: dict[str, dict] = {}
    for row in rows:
        activity = row["activity"].value
        seen = fields.get(activity)
        if seen is None:
            seen = fields[activity] = {
                "activity": activity,
                "ident": row["id"].value,
                "change": row["change"].value,
                "at": row["at"].value,
                "reason": row["reason"].value,
                "agent": row["agent"].value,
                "evidence": [],
                "value": _value(row, "value"),
                "superseded_by": _value(row, "newer"),
                "source": _value(row, "source"),
                "notice": _value(row, "notice"),
            }
        evidence = _value(row, "evidence")
        if evidence is not None and evidence not in seen["evidence"]:
            seen["evidence"].append(evidence)
    found: dict[str, dict[str, dict]] = defaultdict(dict)
    for claim, activity in concerns:
        if activity in fields:
            found[claim][activity] = fields[activity]
    return found


def records_of_source(store: GraphStore, source: str) -> list[str]:
    """The records quoted from the source with IRI ``source``, in IRI order (what a
    retraction of the whole source changes)."""
    rows = store.query(internal_query("records-of-source").text, {"source": ox.NamedNode(source)})
    return sorted(row["record"].value for row in solutions(rows))


def _open_parameters(store: GraphStore, runs: set[str], every: bool) -> dict[str, dict[str, str]]:
    """run -> the open parameters it set: one query for every run, else one per run."""
    query = internal_query("run-open-parameters").text
    rows = (
        solutions(store.query(query))
        if every
        else (
            row
            for run in sorted(runs)
            for row in solutions(store.query(query, {"run": ox.NamedNode(run)}))
        )
    )
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for row in rows:
        found[row["run"].value][row["name"].value] = row["setting"].value
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
    return [
        ox.Quad(claim, ox.NamedNode(KG.standing), ox.NamedNode(KGV[found.standing])),
        ox.Quad(claim, ox.NamedNode(KG.standingSummary), ox.Literal(found.summary())),
    ]
