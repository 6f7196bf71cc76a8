"""``kind: run``: a reproduction run, a prov:Activity of its own, separate from reviews."""

from __future__ import annotations

from rdflib import BNode, Literal, URIRef

from ..namespaces import KG, KGV, PROV, QUDT, RDF, RDFS, SCHEMA, SPDX, XSD
from .context import Node
from .shared import SHA256


def map_run(node: Node) -> None:
    """A run re-measures one record's claim with a recipe, on stated hardware and software."""
    ctx = node.ctx
    run = node.subject
    node.type(PROV.Activity, KG.ReproductionRun, SCHEMA.CreateAction)
    claim = node.ref("record", KG.reproduces, "record")
    if claim is not None:
        ctx.add(run, PROV.used, claim)
        ctx.add(run, SCHEMA.object, claim)

    node.ref("agent", PROV.wasAssociatedWith, "agent")
    association = node.facet(BNode())
    association.type(PROV.Association)
    ctx.add(run, PROV.qualifiedAssociation, association.subject)
    association.ref("agent", PROV.agent, "agent")
    ctx.add(association.subject, PROV.hadRole, KGV.runner)
    node.declare("recipe", SCHEMA.instrument)
    recipe = URIRef(f"{run}#recipe")
    if association.child("recipe", PROV.hadPlan, _recipe, subject=recipe) is not None:
        ctx.add(run, PROV.used, recipe)
        ctx.add(run, SCHEMA.instrument, recipe)

    node.literal("started_at", PROV.startedAtTime, XSD.dateTime)
    node.literal("ended_at", PROV.endedAtTime, XSD.dateTime)
    node.child("hardware", KG.hardware, _hardware)
    node.children("software", KG.softwarePackage, _package)
    node.children("parameters", KG.parameter, _parameter)
    node.children(
        "measurements", PROV.generated, _measurement,
        subject=lambda i: URIRef(f"{run}#measurement-{i}"),
    )
    node.concept("verdict", KG.verdict)
    node.literal("tolerance", KG.tolerance)
    node.literal("note", RDFS.comment)


def _recipe(node: Node) -> None:
    node.type(PROV.Plan, PROV.Entity, KG.Recipe)
    node.literal("path", KG.recipePath)
    node.literal("version", KG.softwareVersion)
    sha = node.scalar("sha256", SPDX.checksumValue)
    if sha is not None:
        checksum = node.facet(BNode())
        node.ctx.add(node.subject, SPDX.checksum, checksum.subject)
        checksum.type(SPDX.Checksum)
        node.ctx.add(checksum.subject, SPDX.algorithm, SHA256)
        checksum.emit("sha256", SPDX.checksumValue, Literal(sha), sha)


def _hardware(node: Node) -> None:
    node.type(KG.HardwareSpec)
    node.literal("gpu_model", KG.gpuModel)
    node.literal("gpu_count", KG.gpuCount, XSD.positiveInteger)
    node.literal("gpu_memory", KG.gpuMemory)
    node.literal("cpu", KG.cpuModel)
    node.literal("driver", KG.driverVersion)
    node.literal("note", RDFS.comment)


def _package(node: Node, _position: int) -> None:
    node.type(KG.SoftwarePackage)
    node.literal("name", RDFS.label)
    node.literal("version", KG.softwareVersion)


def _parameter(node: Node, _position: int) -> None:
    node.type(KG.Parameter)
    node.literal("name", RDFS.label)
    node.literal("value", RDF.value)
    node.literal("note", RDFS.comment)


def _measurement(node: Node, _position: int) -> None:
    node.type(PROV.Entity, KG.Measurement, QUDT.QuantityValue)
    node.literal("name", RDFS.label)
    node.literal("value", QUDT.numericValue, XSD.decimal)
    node.unit("unit", QUDT.unit)
    node.literal("note", RDFS.comment)
