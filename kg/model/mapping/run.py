"""``kind: run``: a reproduction run, a prov:Activity of its own, separate from reviews.

Run files are written by the runner (``kg reproduce``); docs/runs.md fixes their keys.
"""

from __future__ import annotations

from rdflib import Literal, URIRef
from rdflib.term import Node as Term

from ...rdf.namespaces import KG, KGV, PROV, QUDT, RDF, RDFS, SCHEMA, XSD
from .context import Node, build_checksum, build_package


def map_run(node: Node) -> None:
    """A run re-measures one record's claim with a recipe, in a captured environment."""
    ctx = node.ctx
    run = node.subject
    node.type(PROV.Activity, KG.ReproductionRun, SCHEMA.CreateAction)
    ctx.add(run, KG.origin, KGV.claimgraph)
    claim = node.ref("record", KG.reproduces, "record")
    if claim is not None:
        ctx.add(run, PROV.used, claim)
        ctx.add(run, SCHEMA.object, claim)

    node.ref("agent", PROV.wasAssociatedWith, "agent")
    association = node.facet(node.ctx.bnode())
    association.type(PROV.Association)
    ctx.add(run, PROV.qualifiedAssociation, association.subject)
    association.ref("agent", PROV.agent, "agent")
    ctx.add(association.subject, PROV.hadRole, KGV.runner)
    node.declare("recipe", SCHEMA.instrument)
    recipe = URIRef(f"{run}#recipe")
    if association.child("recipe", PROV.hadPlan, _recipe, subject=recipe) is not None:
        ctx.add(run, PROV.used, recipe)
        ctx.add(run, SCHEMA.instrument, recipe)

    node.children("parameters", KG.parameter, _parameter)
    node.literal("seed", KG.seed)
    node.concept("status", KG.runStatus)
    node.literal("started_at", PROV.startedAtTime, XSD.dateTime)
    node.literal("ended_at", PROV.endedAtTime, XSD.dateTime)
    node.children("stages", KG.stageResult, _stage, subject=lambda i: URIRef(f"{run}#stage-{i}"))
    node.children(
        "measurements",
        PROV.generated,
        _measurement,
        subject=lambda i: URIRef(f"{run}#measurement-{i}"),
    )
    node.child("environment", KG.environment, _environment, subject=URIRef(f"{run}#environment"))
    node.literal("log_sha256", KG.logSha256)
    # One claim (older runs): `verdict`, on the run's record. A recipe of several claims:
    # `verdicts`, each naming its record, which the run then reproduces too.
    one = node.child("verdict", KG.verdict, _verdict, subject=URIRef(f"{run}#verdict"))
    if one is not None and claim is not None:
        ctx.add_implied(one.subject, KG.verdictOn, claim, (run, KG.reproduces, claim))
    node.children(
        "verdicts",
        KG.verdict,
        _listed_verdict(run, claim),
        subject=lambda i: URIRef(f"{run}#verdict-{i}"),
    )
    node.literal("note", RDFS.comment)


def _recipe(node: Node) -> None:
    node.type(PROV.Plan, PROV.Entity, KG.Recipe, SCHEMA.SoftwareApplication)
    node.literal("name", RDFS.label)
    node.literal("path", KG.recipePath)
    build_checksum(node, "sha256")


def _parameter(node: Node, _position: int) -> None:
    node.type(KG.Parameter)
    node.literal("name", RDFS.label)
    node.literal("value", RDF.value)
    node.literal("note", RDFS.comment)


def _stage(node: Node, position: int) -> None:
    node.type(KG.StageResult)
    node.ctx.add(node.subject, KG.position, Literal(position))
    node.literal("stage", KG.stage)
    node.concept("status", KG.runStatus)
    node.literal("seconds", KG.seconds, XSD.decimal)
    node.literal("reason", RDFS.comment)
    node.literal("skipped_measurements", KG.skippedMeasurements)


def _measurement(node: Node, _position: int) -> None:
    node.type(PROV.Entity, KG.Measurement, QUDT.QuantityValue)
    node.literal("stage", KG.stage)
    node.literal("quantity", KG.quantity)
    node.literal("value", QUDT.numericValue, XSD.decimal)
    node.unit("unit", QUDT.unit)
    node.literal("note", RDFS.comment)


def _environment(node: Node) -> None:
    node.type(KG.Environment)
    for key, predicate in (
        ("gpu_model", KG.gpuModel),
        ("gpu_memory", KG.gpuMemory),
        ("driver", KG.driverVersion),
        ("cuda", KG.cudaVersion),
        ("cpu", KG.cpuModel),
        ("ram", KG.ram),
        ("python", KG.pythonVersion),
        ("platform", KG.platform),
        ("host_sha256", KG.hostSha256),
    ):
        node.literal(key, predicate)
    node.literal("gpu_count", KG.gpuCount, XSD.nonNegativeInteger)
    node.literal("cpu_count", KG.cpuCount, XSD.nonNegativeInteger)
    node.children("packages", KG.softwarePackage, build_package)


def _listed_verdict(run: Term, claim: URIRef | None):
    def build(node: Node, _position: int) -> None:
        _verdict(node)
        judged = node.ref("record", KG.verdictOn, "record")
        if judged is not None and judged != claim:
            for predicate in (KG.reproduces, PROV.used, SCHEMA.object):
                # a record no file defines is reported once, where it was written
                node.ctx.add_implied(run, predicate, judged, (node.subject, KG.verdictOn, judged))

    return build


def _verdict(node: Node) -> None:
    node.type(KG.Verdict)
    node.concept("outcome", KG.outcome)
    node.literal("stage", KG.stage)
    node.literal("quantity", KG.quantity)
    node.unit("unit", QUDT.unit)
    node.literal("claimed", KG.claimedValue, XSD.decimal)
    node.literal("measured", KG.measuredValue, XSD.decimal)
    node.literal("relative_difference", KG.relativeDifference, XSD.decimal)
    node.literal("tolerance", KG.tolerance, XSD.decimal)
    node.literal("note", RDFS.comment)
