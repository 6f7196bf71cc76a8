"""``kind: standing``: a change of records' standing, a prov:Activity of its own.

The commands ``kg retract``, ``withdraw``, ``supersede``, ``dispute``, ``correct`` and
``reinstate`` write these files; docs/standing.md fixes their keys. What a record said
is never edited: the change stands beside it, and the standing readers see is derived
from every change, review and run (kg.model.standing).
"""

from __future__ import annotations

from rdflib import Literal, URIRef

from ...rdf.namespaces import KG, KGV, PROV, XSD
from ..standing import INVALIDATING
from .context import Node, is_web_url

#: An evidence item names one of these (the registry's nodes by id, or a web address).
EVIDENCE_KINDS = ("run", "review", "record", "source")


def map_standing(node: Node) -> None:
    """One change of standing: what, of which records, by whom, when, why, on what."""
    ctx = node.ctx
    change = node.subject
    node.type(PROV.Activity, KG.StandingChange)
    ctx.add(change, KG.origin, KGV.claimgraph)
    what = node.concept("change", KG.standingChange)

    records = []
    one = node.ref("record", KG.standingOf, "record")
    if one is not None:
        records.append(one)
    for path, ident in node.scalars("records", KG.standingOf):
        record = ctx.iri("record", ident)
        node.emit("records", KG.standingOf, record, ident, path)
        records.append(record)
    for record in records:
        ctx.add(change, PROV.used, record)
        if what in INVALIDATING:
            ctx.add_implied(record, PROV.wasInvalidatedBy, change, (change, KG.standingOf, record))
    # A source retracted as a whole: the change holds for every record quoted from it,
    # those loaded later too (the standing rule finds them by prov:wasQuotedFrom).
    source = node.ref("source", KG.retractedSource, "source")
    if source is not None:
        ctx.add(change, PROV.used, source)
        if what in INVALIDATING:
            ctx.add_implied(
                source, PROV.wasInvalidatedBy, change, (change, KG.retractedSource, source)
            )

    node.ref("agent", PROV.wasAssociatedWith, "agent")
    association = node.facet(ctx.bnode())
    association.type(PROV.Association)
    ctx.add(change, PROV.qualifiedAssociation, association.subject)
    association.ref("agent", PROV.agent, "agent")
    ctx.add(association.subject, PROV.hadRole, KGV.curator)

    node.literal("at", PROV.endedAtTime, XSD.dateTime)
    node.literal("reason", KG.standingReason)
    node.url("notice", KG.notice)
    newer = node.ref("superseded_by", KG.supersededBy, "record")
    if newer is not None:
        for record in records:
            ctx.add_implied(newer, KG.supersedes, record, (change, KG.supersededBy, newer))
    node.literal("value", KG.correctedValue, XSD.decimal)
    _evidence(node)


def _evidence(node: Node) -> None:
    """``evidence``: a list of one-key mappings, ``{run: ID}`` ... or ``{url: URL}``."""
    raw = node.declare("evidence", KG.evidence)
    if raw is None:
        return
    if not isinstance(raw, list):
        node.ctx.problem(
            node._path("evidence"), "expected a list of {run|review|record|source|url: ...} items"
        )
        return
    for i, item in enumerate(raw):
        path = f"{node._path('evidence')}[{i}]"
        if not (isinstance(item, dict) and len(item) == 1):
            node.ctx.problem(
                path, "expected one of run, review, record, source or url, with its id or address"
            )
            continue
        [(key, value)] = item.items()
        if not isinstance(value, str) or not value.strip():
            node.ctx.problem(f"{path}.{key}", "expected an id or a web address")
        elif key == "url":
            # Not a web address: a literal, which the shapes reject as one.
            page = URIRef(value) if is_web_url(value) else Literal(value)
            node.emit("evidence", KG.evidencePage, page, value, f"{path}.url")
        elif key in EVIDENCE_KINDS:
            segment = "activity" if key in ("run", "review") else key
            node.emit("evidence", KG.evidence, node.ctx.iri(segment, value), value, f"{path}.{key}")
        else:
            node.ctx.problem(
                f"{path}.{key}", "unknown kind of evidence (run, review, record, source or url)"
            )
