"""What a record page shows of an imported result: the model, the benchmark, the kept file
(its hash, its place in the origin repository), the import, and the upstream file's own
facts, read from the record's closure (the record, its evaluation, its import)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from urllib.parse import unquote

import pyoxigraph as ox

from ..rdf.facts import Facts, Term
from ..rdf.namespaces import DCAT, DCTERMS, KG, OA, PROV, RDF, RDFS, SCHEMA, SPDX
from ..store.index.rows import decimal_or_none
from .closure import ClosureReader, Link
from .json_outline import OutlineItem, outline_text


@dataclass
class ImportedView:
    """An imported result's provenance, as plain values for the template."""

    model: Link
    model_names: list[str]
    benchmark: Link
    source: Link | None
    pointer: str
    kept_file: str
    upstream_path: str
    upstream_url: str
    sha256: str
    size: str
    imported: Link | None
    licence: Link | None
    origin: Link | None
    commit: str
    #: (label, value) rows of what the upstream file says of the evaluation and the metric
    facts: list[tuple[str, str]] = field(default_factory=list)
    #: What else the upstream file says (its JSON as nested lists): the result's, the file's
    remainder: list[OutlineItem] = field(default_factory=list)
    evaluation_remainder: list[OutlineItem] = field(default_factory=list)
    #: The declared range ("0.0-1.0") where the value lies outside it, else ""
    outside_range: str = ""


def imported_view(view: ClosureReader, record: ox.NamedNode) -> ImportedView | None:
    """The imported result's provenance, or None for a record that was not imported."""
    f = view.f
    imported = f.one(record, KG.importedBy)
    if imported is None:
        return None
    evaluation = f.one(record, KG.evaluation)
    locator = f.one(record, KG.locator)
    selector = f.one(locator, OA.hasSelector)
    artifact = f.one(locator, OA.hasSource)
    checksum = f.one(artifact, SPDX.checksum)
    upstream_path = f.text(artifact, KG.upstreamPath)
    repository = f.one(imported, KG.originRepository)
    commit = _commit_of(f, imported, upstream_path)
    url = (
        f"{repository.value}/blob/{commit}/{upstream_path}"
        if isinstance(repository, ox.NamedNode) and commit and "github.com" in repository.value
        else ""
    )
    model = f.one(record, KG.evaluatedModel)
    names = [n for n in (f.text(evaluation, KG.modelId), f.text(evaluation, KG.modelName)) if n]
    licence = f.one(imported, DCTERMS.license)
    rows = [
        (view.label(name), f.text(node, KG[name]))
        for node, name in (
            (evaluation, "modelDeveloper"),
            (evaluation, "precision"),
            (evaluation, "parametersBillions"),
            (evaluation, "architecture"),
            (evaluation, "modelType"),
            (evaluation, "inferencePlatform"),
            (record, "metricDescription"),
            (record, "metricName"),
            (record, "metricKind"),
            (record, "upstreamMetricId"),
            (record, "scoreType"),
            (record, "minScore"),
            (record, "maxScore"),
            (evaluation, "upstreamEvaluationId"),
            (record, "upstreamResultId"),
            (evaluation, "retrievedAt"),
            (evaluation, "retrievedTimestamp"),
            (evaluation, "schemaVersion"),
            (evaluation, "upstreamSourceType"),
        )
    ]
    library = f.one(evaluation, KG.softwarePackage)  # the library it was run with
    if library is not None:
        words = (f.text(library, RDFS.label), f.text(library, KG.softwareVersion))
        rows.append((view.label("softwarePackage"), " ".join(words)))
    relationship = f.one(evaluation, KG.evaluatorRelationship)
    if relationship is not None:
        rows.append((view.label("evaluatorRelationship"), f.concept(relationship)))
    dataset = f.one(record, KG.dataset)
    rows += [
        (view.label("hfRepo"), f.text(dataset, KG.hfRepo)),
        ("data set URL", ", ".join(u.value for u in f.all(dataset, SCHEMA.url))),
    ]
    return ImportedView(
        model=Link(
            unquote(model.value.rsplit("/", 1)[-1]) if model is not None else "", view.href(model)
        ),
        model_names=list(dict.fromkeys(names)),
        benchmark=Link(_benchmark_label(f, record), view.href(f.one(record, KG.benchmark))),
        source=view.link(f.one(record, PROV.wasQuotedFrom), DCTERMS.title),
        pointer=f.text(selector, RDF.value),
        kept_file=f.text(artifact, KG.keptFile),
        upstream_path=upstream_path,
        upstream_url=url,
        sha256=f.text(checksum, SPDX.checksumValue),
        size=f.text(artifact, DCAT.byteSize),
        imported=view.link(imported, DCTERMS.title),
        licence=Link(licence.value.rsplit("/", 1)[-1], licence.value)
        if isinstance(licence, ox.NamedNode)
        else None,
        origin=Link(repository.value, repository.value)
        if isinstance(repository, ox.NamedNode)
        else None,
        commit=commit,
        facts=[(k, v) for k, v in rows if v],
        remainder=outline_text(f.text(record, KG.upstreamRemainder)),
        evaluation_remainder=outline_text(f.text(evaluation, KG.upstreamRemainder)),
        outside_range=_outside_range(view, record),
    )


def _outside_range(view: ClosureReader, record: ox.NamedNode) -> str:
    """The metric's declared range ("0.0-1.0") where the value lies outside it; "" where it
    lies within, no bound is declared, or the printed value stands for none (a placeholder
    is not a score out of range)."""
    value = decimal_or_none(view.field_text(record, "value"))
    if value is None or view.field(record, "valueReason") is not None:
        return ""
    low, high = view.field_text(record, "minScore"), view.field_text(record, "maxScore")
    below = low != "" and value < Decimal(low)
    above = high != "" and value > Decimal(high)
    return f"{low or '…'}-{high or '…'}" if below or above else ""


def _benchmark_label(f, record: ox.NamedNode) -> str:
    """What the record says its benchmark is (the benchmark's own graph is its import's)."""
    name = f.text(record, KG.metricLabel)
    dataset = f.text(f.one(record, KG.dataset), RDF.value)
    description = f.text(record, KG.metricDescription)
    label = name if not dataset or dataset == name else f"{name} ({dataset})"
    return f"{label}: {description}" if description else label


def _commit_of(f: Facts, imported: Term, path: str) -> str:
    """The origin commit the kept file at ``path`` was taken at ("" not stated): the
    import's, unless it lists the file under another (kg:keptFiles)."""
    stated = f.one(imported, KG.originCommit)
    for files in f.all(imported, KG.keptFiles):
        if any(p.value == path for p in f.all(files, KG.upstreamPath)):
            stated = f.one(files, KG.originCommit)
            break
    return stated.value if isinstance(stated, ox.Literal) else ""
