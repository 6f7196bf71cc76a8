"""``kind: import``: the activity that kept another registry's files and made records of them.

An import record is three graphs: the import itself; the models its files evaluate
(``<import>#models``); the benchmarks their results belong to (``<import>#benchmarks``).
Each model and benchmark is so stated once per import, however many files name it: the
files' own graphs only refer to them (the store's default graph is the union of the
graphs, where a statement made in every file would be found once per file).
"""

from __future__ import annotations

import hashlib
from urllib.parse import quote

from rdflib import Literal, URIRef

from ...kinds import minted_iri
from ...rdf.namespaces import DCTERMS, KG, PROV, RDF, RDFS, XSD
from ..upstream.commits import OTHER_COMMITS, UNKNOWN_COMMIT, origin_commit
from .context import Node, build_package, concept_iri
from .links import HUGGING_FACE, HUGGING_FACE_DATASETS, typed_page

SPDX_LICENSES = "http://spdx.org/licenses/"


def map_import(node: Node) -> None:
    """An import record (written by ``kg import``; docs/records.md gives its keys)."""
    from ..upstream.formats import names  # the formats build on the model: found when used

    node.type(PROV.Activity, KG.Import)
    node.literal("title", DCTERMS.title)
    fmt = node.literal("format", KG.format)
    if fmt is not None and fmt not in names():
        node.ctx.problem(
            "format", f"not a format kg import reads ({fmt!r}; one of: " + ", ".join(names()) + ")"
        )
    origin = node.declare("origin")
    if origin is not None:  # its keys are statements about the import itself
        inner = node.ctx.node(node.subject, origin, "origin")
        if inner is not None:
            _origin(inner)
            inner.done()
    licence = node.scalar("licence", DCTERMS.license)
    if licence is not None:
        # An SPDX licence id (MIT, Apache-2.0): its IRI in the SPDX licence list.
        node.emit(
            "licence",
            DCTERMS.license,
            URIRef(SPDX_LICENSES + licence) if _spdx_id(licence) else Literal(licence),
            licence,
        )
    node.literal("licence_file", KG.licenceFile)
    node.ref("agent", PROV.wasAssociatedWith, "agent")
    node.literal("started_at", PROV.startedAtTime, XSD.dateTime)
    node.literal("ended_at", PROV.endedAtTime, XSD.dateTime)
    node.literal("files", KG.fileCount, XSD.nonNegativeInteger)
    node.literal("results", KG.resultCount, XSD.nonNegativeInteger)
    digest = node.literal("manifest_sha256", KG.manifestSha256)
    kept = node.scalars("kept")
    if kept and digest is not None:  # the list that the one hash pins must be that list
        lines = "".join(line + "\n" for _, line in kept)
        if hashlib.sha256(lines.encode()).hexdigest() != digest:
            node.ctx.problem(
                "kept",
                "the kept files' list does not agree with manifest_sha256 "
                "(kg import writes both; run it again)",
            )
    _kept_commits(node, {line.partition("  ")[2] for _, line in kept})
    node.children("unknown_fields", KG.unknownField, _unknown_field)
    node.children("skipped", KG.skippedFile, _skipped)
    node.children("software", KG.softwarePackage, build_package)
    node.literal("note", RDFS.comment)
    ident = node.data.get("id", "")
    node.ctx.start_graph(URIRef(f"{node.subject}#models"), f"import {ident} models")
    models = node.data.get("models")
    described = isinstance(models, list) and any(isinstance(m, dict) for m in models)
    if described:
        # each model with what its files say of it (docs/links.md); older records: ids only
        node.children("models", None, _model, subject=lambda i: _listed_iri(node, "models", i))
    for path, key in [] if described else node.scalars("models"):
        model = URIRef(minted_iri(node.ctx.base, "model", key))
        node.ctx.origins.nodes.setdefault(model, path)
        node.ctx.add(model, RDF.type, PROV.Entity)
        node.ctx.add(model, RDF.type, KG.Model)
        node.facet(model).emit("models", DCTERMS.identifier, Literal(key), key, path)
    node.ctx.start_graph(URIRef(f"{node.subject}#benchmarks"), f"import {ident} benchmarks")
    node.children("benchmarks", None, _benchmark, subject=lambda i: _benchmark_iri(node, i))


def _benchmark_iri(node: Node, position: int) -> URIRef:
    return _listed_iri(node, "benchmarks", position)


def _listed_iri(node: Node, key: str, position: int) -> URIRef:
    """The minted IRI of the ``position``-th model or benchmark the record lists, by its id."""
    items = node.data.get(key)
    item = items[position - 1] if isinstance(items, list) else None
    ident = item.get("id") if isinstance(item, dict) else None
    segment = "model" if key == "models" else "benchmark"
    return URIRef(
        minted_iri(
            node.ctx.base, segment, ident if isinstance(ident, str) else f"unnamed-{position}"
        )
    )


def _model(node: Node, _position: int) -> None:
    """A model (docs/imports.md), labelled, with its developer, parameters and Hugging Face
    repository where its files agree on them (docs/links.md)."""
    node.type(PROV.Entity, KG.Model)
    node.literal("id", DCTERMS.identifier)
    node.literal("label", RDFS.label)
    node.literal("developer", KG.modelDeveloper)
    node.literal("params_billions", KG.parametersBillions, XSD.decimal)
    typed_page(node, "hf_repo", "hf", HUGGING_FACE)


def _benchmark(node: Node, _position: int) -> None:
    """A benchmark (docs/imports.md): its data set, the result's name, the metric and its
    direction, as the files give them."""
    node.type(PROV.Entity, KG.Benchmark)
    node.literal("id", DCTERMS.identifier)
    node.literal("label", RDFS.label)
    node.literal("dataset", KG.datasetName)
    node.literal("name", KG.metricLabel)
    node.literal("description", KG.metricDescription)
    node.concept("direction", KG.metricDirection)
    typed_page(node, "hf_repo", "hf", HUGGING_FACE_DATASETS)


def _origin(node: Node) -> None:
    node.url("repository", KG.originRepository)
    node.literal("commit", KG.originCommit)
    node.literal("archive", KG.originArchive)
    node.literal("archive_sha256", KG.originArchiveSha256)


def _kept_commits(node: Node, kept: set[str]) -> None:
    """Which commit each kept file was taken at, as the record lists it
    (kg.model.upstream.commits): the import's ``kg:originCommit`` is that of every file it
    does not list under another, in a ``kg:KeptFiles`` node per other commit; where the
    record states no commit, the import says it is not known."""
    listed: set[str] = set()

    def group(sub: Node, _position: int) -> None:
        sub.type(KG.KeptFiles)
        sub.value_or_missing("commit", KG.originCommit)
        for path, value in sub.scalars("files", KG.upstreamPath):
            if value not in kept or value in listed:
                sub.ctx.problem(
                    path,
                    f"{value!r} is "
                    + ("listed twice" if value in listed else "not a kept file (not in kept)"),
                )
                continue
            listed.add(value)
            sub.emit("files", KG.upstreamPath, Literal(value), value, path)

    groups = node.data.get(OTHER_COMMITS)

    def iri(position: int) -> URIRef:
        item = groups[position - 1] if isinstance(groups, list) else None
        commit = item.get("commit") if isinstance(item, dict) else None
        return _commit_iri(node, commit if isinstance(commit, str) else "")

    node.children(OTHER_COMMITS, KG.keptFiles, group, subject=iri)
    if not origin_commit(node.data):  # the import was given none: its files say so
        ctx = node.ctx
        missing = URIRef(f"{node.subject}#commit-not-stated")
        ctx.add(node.subject, KG.originCommit, missing)
        ctx.add(missing, RDF.type, KG.MissingValue)
        ctx.add(missing, KG.reason, concept_iri(UNKNOWN_COMMIT["missing"]))
        ctx.add(missing, RDFS.comment, Literal(UNKNOWN_COMMIT["note"]))


def _commit_iri(node: Node, commit: str) -> URIRef:
    return URIRef(f"{node.subject}#commit-{quote(commit, safe='') or 'unknown'}")


def _unknown_field(node: Node, _position: int) -> None:
    node.type(KG.UnknownField)
    node.literal("pointer", KG.pointer)
    node.literal("files", KG.fileCount, XSD.nonNegativeInteger)


def _skipped(node: Node, _position: int) -> None:
    node.type(KG.SkippedFile)
    node.literal("file", KG.upstreamPath)
    node.literal("reason", RDFS.comment)


def _spdx_id(text: str) -> bool:
    return bool(text) and all(c.isalnum() or c in "-.+" for c in text)
