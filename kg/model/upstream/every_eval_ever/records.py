"""The record of one result of an Every Eval Ever file: the value as written, the metric,
the data set, the locator (an RFC 6901 JSON Pointer into the kept file, as a Web Annotation
fragment selector) and the evidence row; the rest of the result as JSON.
"""

from __future__ import annotations

from typing import Any

from rdflib import Literal, URIRef

from ....rdf.namespaces import CITO, DCTERMS, KG, KGV, OA, PROV, QUDT, RDF, RDFS, SCHEMA, XSD
from ...mapping.json_triples import JSON_POINTER, TripleBuilder, literal, remainder
from ..jsondoc import JsonNumber, child
from . import added_fields as added
from . import identity as ids
from .meanings import placeholder

#: evaluator_relationship -> the evidence kind of the file's records.
EVIDENCE_KIND = {
    "first_party": "self-reported",
    "third_party": "independent-external-evaluation",
    "collaborative": "collaborative-evaluation",
    "other": "unstated-relationship",
}


class RecordContext:
    """What every record of one file shares."""

    def __init__(
        self,
        source,
        evaluation,
        model,
        imported,
        artifact,
        model_id,
        source_name,
        relationship,
        model_info,
        upstream_path,
    ):
        self.source, self.evaluation, self.model = source, evaluation, model
        self.imported, self.artifact, self.upstream_path = imported, artifact, upstream_path
        self.model_id, self.source_name = model_id, source_name
        self.relationship, self.model_info = relationship, model_info


def map_result(
    out: TripleBuilder,
    record: URIRef,
    ident: str,
    result: dict[str, Any],
    at: str,
    bench: URIRef,
    c: RecordContext,
) -> None:
    """The record ``record`` of the result ``result`` (at ``at`` in the file)."""
    out.node(record, at, PROV.Entity, KG.Claim)
    name = result.get("evaluation_name", "")
    out.add(record, DCTERMS.identifier, literal(ident))
    out.add(record, DCTERMS.title, Literal(f"{name} of {c.model_id} ({c.source_name})"))
    out.add(record, PROV.wasQuotedFrom, c.source)
    out.add(record, KG.evaluation, c.evaluation)
    out.add(record, KG.evaluatedModel, c.model)
    out.add(record, KG.benchmark, bench)
    out.add(record, KG.importedBy, c.imported)

    score_at = f"{at}/score_details/score"
    score = result["score_details"]["score"]
    value = out.node(URIRef(f"{record}#value"), score_at, QUDT.QuantityValue, KG.ReportedValue)
    out.add(record, KG.reportedValue, value)
    out.add(value, KG.printedValue, literal(score.lexeme), score_at, score.lexeme)
    out.add(
        value,
        QUDT.numericValue,
        literal(score.decimal_lexeme(), XSD.decimal),
        score_at,
        score.lexeme,
    )
    out.add(value, QUDT.unit, added.unit(result))
    rule = placeholder(c.source_name, result)
    if rule is not None:  # the printed value stands for none (meanings.yaml): say why
        out.node(value, score_at, KG.MissingValue)
        out.add(value, KG.reason, KGV[rule.reason])
        out.add(value, RDFS.comment, literal(f"rule {rule.id} (docs/imports.md)"))

    out.add(record, KG.metric, literal(ids.slug(name, 80)))
    out.text(record, KG.metricLabel, name, f"{at}/evaluation_name")
    metric = result.get("metric_config") or {}
    mat = f"{at}/metric_config"
    out.text(
        record,
        KG.metricDescription,
        metric.get("evaluation_description"),
        f"{mat}/evaluation_description",
    )
    lower = metric.get("lower_is_better")
    out.add(
        record,
        KG.metricDirection,
        KGV.lower if lower else KGV.higher,
        f"{mat}/lower_is_better",
        "true" if lower else "false",
    )
    out.text(record, KG.scoreType, metric.get("score_type"), f"{mat}/score_type")
    out.number(record, KG.minScore, metric.get("min_score"), f"{mat}/min_score")
    out.number(record, KG.maxScore, metric.get("max_score"), f"{mat}/max_score")

    configuration = out.node(
        URIRef(f"{record}#configuration"), "/model_info", KG.TestedConfiguration
    )
    out.add(record, KG.testedConfiguration, configuration)
    out.add(configuration, KG.model, literal(c.model_id))
    precision = (c.model_info.get("additional_details") or {}).get("precision")
    if isinstance(precision, str):
        out.add(configuration, KG.configuration, literal(f"precision {precision}"))
    _dataset(out, record, result.get("source_data") or {}, f"{at}/source_data")

    kind = EVIDENCE_KIND.get(c.relationship, "unstated-relationship")
    out.add(record, KG.evidenceKind, KGV[kind])
    out.add(record, KG.reviewStatus, KGV.unreviewed)
    locator = _locator(out, URIRef(f"{record}#locator"), score_at, c)
    out.add(record, KG.locator, locator)
    _row(out, record, 1, "reported-result", score.lexeme, locator, c)
    added.map_result_fields(out, record, value, result, at)
    remainder(out, record, result, at)


def _dataset(out: TripleBuilder, record: URIRef, data: dict[str, Any], at: str) -> None:
    dataset = out.node(URIRef(f"{record}#dataset"), at, KG.CitedText)
    out.add(record, KG.dataset, dataset)
    out.text(dataset, RDF.value, data.get("dataset_name"), f"{at}/dataset_name")
    out.text(dataset, KG.datasetSourceType, data.get("source_type"), f"{at}/source_type")
    out.text(dataset, KG.hfRepo, data.get("hf_repo"), f"{at}/hf_repo")
    out.text(dataset, KG.hfSplit, data.get("hf_split"), f"{at}/hf_split")
    samples = data.get("samples_number")
    if isinstance(samples, JsonNumber):  # an integer or not: the shapes say
        out.add(
            dataset,
            KG.samplesNumber,
            literal(samples.lexeme, XSD.integer),
            f"{at}/samples_number",
            samples.lexeme,
        )
    else:
        out.number(dataset, KG.samplesNumber, samples, f"{at}/samples_number")
    urls = data.get("url")
    if isinstance(urls, list):
        for j, url in enumerate(urls):
            out.link(dataset, SCHEMA.url, url, child(f"{at}/url", j))
        # The graph holds no order: a list of several URLs stays in the remainder too, as
        # does one whose URL is kept as written.
        if len(urls) == 1 and f"{at}/url/0" not in out.kept_as_written:
            out.used.add(f"{at}/url")


def _locator(out: TripleBuilder, locator: URIRef, where: str, c: RecordContext) -> URIRef:
    """A JSON Pointer into the kept file, as a Web Annotation specific resource."""
    out.node(locator, where, KG.Locator, OA.SpecificResource)
    out.add(locator, RDFS.label, literal(f"{where} in {c.upstream_path}"))
    selector = out.node(URIRef(f"{locator}-selector"), where, OA.FragmentSelector)
    out.add(locator, OA.hasSelector, selector)
    out.add(selector, DCTERMS.conformsTo, JSON_POINTER)
    out.add(selector, RDF.value, literal(where))
    out.add(locator, OA.hasSource, c.artifact)
    return locator


def _row(
    out: TripleBuilder,
    record: URIRef,
    position: int,
    prop: str,
    statement: str,
    locator: URIRef,
    c: RecordContext,
) -> None:
    row = out.node(URIRef(f"{record}#evidence-{position}"), "", KG.EvidenceRow)
    out.add(record, KG.evidenceRow, row)
    out.add(row, KG.position, literal(position))
    out.add(row, KG.statementProperty, KGV[prop])
    out.add(row, RDF.value, literal(statement))
    out.add(row, KG.citationType, KGV["individual-claim"])
    out.add(row, CITO.citesAsEvidence, c.source)
    out.add(row, KG.locator, locator)
    out.add(row, KG.sharedLocator, literal(False))
