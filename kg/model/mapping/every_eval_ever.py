"""A kept Every Eval Ever file as graphs: its evaluation, then one record per result.

The file's own graph (``evaluation/<file id>``) holds the evaluation, the kept file as the
source artifact (its SHA-256, its paths), and what the file says of the shared nodes it
names: the source (the leaderboard), the model, the benchmarks. Each result is a record
like the seed's in a graph of its own (``record/<id>``): the value as written, the metric,
the data set, the locator (an RFC 6901 JSON Pointer into the kept file, as a Web Annotation
fragment selector) and evidence rows. Whatever the file says beyond the mapped fields is
kept as JSON with the numbers as written (``kg:upstreamRemainder``), so nothing is dropped
and the file can be written back (``kg export --format every-eval-ever``).

Every triple remembers the JSON Pointer it came from, so a shape's complaint names the
place in the file. docs/imports.md describes the mapping field by field.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rdflib import Literal, URIRef

from ...kinds import minted_iri
from ...rdf.namespaces import (
    CITO,
    DCAT,
    DCTERMS,
    KG,
    KGV,
    OA,
    PROV,
    QUDT,
    RDF,
    RDFS,
    SCHEMA,
    SPDX,
    UNIT,
    XSD,
)
from ..upstream.every_eval_ever import identity as ids
from ..upstream.jsondoc import JsonNumber, child, dumps
from ..upstream.kept import KeptFile
from .context import Origins, Triple, is_web_url
from .review import artifact_iri

JSON_POINTER = URIRef("http://tools.ietf.org/rfc/rfc6901")
JSON_TEXT = KG.JSONText
#: evaluator_relationship -> its concept (which implies the record's evidence kind).
RELATIONSHIP = {"first_party": "first-party", "third_party": "third-party",
                "collaborative": "collaborative", "other": "other"}
EVIDENCE_KIND = {"first_party": "self-reported", "third_party": "independent-external-evaluation",
                 "collaborative": "collaborative-evaluation", "other": "unstated-relationship"}
#: model_info.additional_details keys the graph holds as statements.
MODEL_DETAILS = {"precision": KG.precision, "architecture": KG.architecture,
                 "model_type": KG.modelType}


#: Literals made before, by (text, datatype): most values recur from file to file (metric
#: names, descriptions, data sets, bounds), and an rdflib Literal is slow to make (a fifth
#: of this mapping's time). Cleared when full.
_LITERALS: dict[tuple[object, URIRef | None], Literal] = {}
_MOST_LITERALS = 200_000


def literal(text: str | int | bool, datatype: URIRef | None = None) -> Literal:
    """The literal of ``text`` (with ``datatype``), its lexical form as given."""
    key = (text, datatype)
    found = _LITERALS.get(key)
    if found is None:
        if len(_LITERALS) >= _MOST_LITERALS:
            _LITERALS.clear()
        found = _LITERALS[key] = Literal(text, datatype=datatype, normalize=False)
    return found


class _Builder:
    """Triples with the JSON Pointer each came from, for messages in terms of the file."""

    def __init__(self) -> None:
        self.triples: list[Triple] = []
        self.origins = Origins()
        self.used: set[str] = set()  # the pointers of the values mapped to statements
        self.label = ""

    def node(self, subject: URIRef, where: str, *classes: URIRef) -> URIRef:
        self.origins.nodes.setdefault(subject, where)
        self.origins.labels.setdefault(subject, self.label)
        for cls in classes:
            self.triples.append((subject, RDF.type, cls))
        return subject

    def add(self, s: URIRef, p: URIRef, o: Any, where: str | None = None,
            raw: str | None = None) -> None:
        self.triples.append((s, p, o))
        if where is not None:
            self.origins.fields.setdefault((s, p), where)
            self.origins.values.setdefault((s, p, o), (where, raw if raw is not None
                                                       else str(o)))
            self.used.add(where)

    def text(self, s: URIRef, p: URIRef, value: Any, where: str) -> None:
        """A string the file gives (nothing when it gives none, or something else)."""
        if isinstance(value, str):
            self.add(s, p, literal(value), where, value)

    def number(self, s: URIRef, p: URIRef, value: Any, where: str) -> None:
        """A number the file gives, as an exact ``xsd:decimal``."""
        if isinstance(value, JsonNumber):
            self.add(s, p, literal(value.decimal_lexeme(), XSD.decimal), where, value.lexeme)

    def link(self, s: URIRef, p: URIRef, value: Any, where: str) -> None:
        """A web address as an IRI; a literal when it is none (the shapes say so)."""
        if isinstance(value, str):
            self.add(s, p, URIRef(value) if is_web_url(value) else literal(value), where, value)


def map_every_eval_ever(kept: KeptFile, base: str) -> tuple[
        list[Triple], Origins, list[tuple[URIRef, str, int]]]:
    """The triples of one kept file, their origins, and its graphs as (IRI, label, end)."""
    doc: dict[str, Any] = kept.checked.doc
    out = _Builder()
    evaluation_id = ids.file_id(kept.import_name, kept.upstream_path)
    evaluation = URIRef(minted_iri(base, "evaluation", evaluation_id))
    imported = URIRef(minted_iri(base, "import", kept.import_name))
    out.label = f"evaluation {evaluation_id}"
    out.node(evaluation, "", PROV.Entity, KG.Evaluation)
    out.add(evaluation, DCTERMS.identifier, literal(evaluation_id))
    out.add(evaluation, KG.importedBy, imported)

    metadata = doc.get("source_metadata") or {}
    _, source = source_reference(metadata, base)
    model_info = doc.get("model_info") or {}
    model = _model(out, evaluation, model_info, base)
    source_name = metadata.get("source_name") or metadata.get("source_organization_name")
    model_id = model_info.get("id", "")
    out.add(evaluation, DCTERMS.title, literal(f"{source_name} evaluation of {model_id}"))
    # The source's name and organization stay in the evaluation's remainder as the file
    # writes them; the source's own file (kind: source) states its title and publisher.
    out.add(evaluation, DCTERMS.source, source)
    _evaluation_facts(out, evaluation, doc)
    artifact = _artifact(out, kept, source, imported)
    out.add(evaluation, KG.artifact, artifact)

    results = doc.get("evaluation_results") or []
    names = [r.get("evaluation_name", "") for r in results]
    records = ids.result_ids(evaluation_id, names)
    relationship = metadata.get("evaluator_relationship")
    benchmarks = [URIRef(minted_iri(base, "benchmark", benchmark_of(result)["id"]))
                  for result in results]
    _remainder(out, evaluation, doc, "", skip={"evaluation_results"})
    parts = [(evaluation, out.label, len(out.triples))]
    context = _RecordContext(source, evaluation, model, imported, artifact, model_id,
                             str(source_name), relationship, model_info, kept.upstream_path)
    for i, (result, ident, bench) in enumerate(zip(results, records, benchmarks, strict=True)):
        record = URIRef(minted_iri(base, "record", ident))
        out.label = f"record {ident}"
        _record(out, record, ident, result, f"/evaluation_results/{i}", bench, context)
        parts.append((record, out.label, len(out.triples)))
    return out.triples, out.origins, parts


def source_reference(metadata: dict[str, Any], base: str) -> tuple[str, URIRef]:
    """The source (the leaderboard or harness) a file's ``source_metadata`` names: its id
    and IRI. Its file (``data/sources/<id>.yaml``) is written by ``kg import``."""
    ident = ids.source_id(metadata.get("source_organization_name", ""),
                          metadata.get("source_name", ""))
    return ident, URIRef(minted_iri(base, "source", ident))


def _model(out: _Builder, evaluation: URIRef, info: dict[str, Any], base: str) -> URIRef:
    """The shared model node (named by the case-folded id; the import record defines it)
    and how this file names the model."""
    raw = info.get("id", "")
    model = URIRef(minted_iri(base, "model", ids.model_key(raw)))
    out.add(evaluation, KG.evaluatedModel, model, "/model_info/id", raw)
    out.text(evaluation, KG.modelId, raw, "/model_info/id")
    out.text(evaluation, KG.modelName, info.get("name"), "/model_info/name")
    out.text(evaluation, KG.modelDeveloper, info.get("developer"), "/model_info/developer")
    out.text(evaluation, KG.inferencePlatform, info.get("inference_platform"),
             "/model_info/inference_platform")
    details = info.get("additional_details")
    if isinstance(details, dict):
        for key_name, predicate in MODEL_DETAILS.items():
            out.text(evaluation, predicate, details.get(key_name),
                     f"/model_info/additional_details/{key_name}")
        out.number(evaluation, KG.parametersBillions, details.get("params_billions"),
                   "/model_info/additional_details/params_billions")
    return model


def _evaluation_facts(out: _Builder, evaluation: URIRef, doc: dict[str, Any]) -> None:
    out.text(evaluation, KG.schemaVersion, doc.get("schema_version"), "/schema_version")
    out.text(evaluation, KG.upstreamEvaluationId, doc.get("evaluation_id"), "/evaluation_id")
    retrieved = doc.get("retrieved_timestamp")
    if isinstance(retrieved, str):
        out.text(evaluation, KG.retrievedTimestamp, retrieved, "/retrieved_timestamp")
        out.add(evaluation, KG.retrievedAt, Literal(unix_to_datetime(retrieved),
                                                    datatype=XSD.dateTime, normalize=False))
    metadata = doc.get("source_metadata") or {}
    out.text(evaluation, KG.upstreamSourceType, metadata.get("source_type"),
             "/source_metadata/source_type")
    relationship = metadata.get("evaluator_relationship")
    if relationship in RELATIONSHIP:
        out.add(evaluation, KG.evaluatorRelationship, KGV[RELATIONSHIP[relationship]],
                "/source_metadata/evaluator_relationship", relationship)


def unix_to_datetime(seconds: str) -> str:
    """Unix seconds as written (``1770682486.623709``) as an ``xsd:dateTime`` in UTC, every
    digit of the fraction kept: ``2026-02-10T00:14:46.623709Z``."""
    whole, _, fraction = seconds.partition(".")
    moment = datetime.fromtimestamp(int(whole), tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{moment}.{fraction}Z" if fraction else f"{moment}Z"


def _artifact(out: _Builder, kept: KeptFile, source: URIRef, imported: URIRef) -> URIRef:
    """The kept file: named by its source and hash, as a PDF artifact is."""
    artifact = out.node(artifact_iri(source, kept.sha256), "", PROV.Entity, KG.SourceArtifact)
    checksum = out.node(URIRef(f"{artifact}-checksum"), "", SPDX.Checksum)
    out.add(artifact, PROV.specializationOf, source)
    out.add(artifact, SPDX.checksum, checksum)
    out.add(checksum, SPDX.algorithm, SPDX.checksumAlgorithm_sha256)
    out.add(checksum, SPDX.checksumValue, literal(kept.sha256))
    out.add(artifact, DCAT.mediaType, literal("application/json"))
    out.add(artifact, DCAT.byteSize, literal(str(kept.size), XSD.nonNegativeInteger))
    out.add(artifact, KG.keptFile, literal(kept.kept_path))
    out.add(artifact, KG.upstreamPath, literal(kept.upstream_path))
    out.add(artifact, PROV.wasGeneratedBy, imported)
    return artifact


def benchmark_of(result: dict[str, Any]) -> dict[str, str]:
    """The benchmark a result belongs to (docs/imports.md: data set, name, metric,
    direction), as the import record lists it."""
    dataset = (result.get("source_data") or {}).get("dataset_name", "")
    name = result.get("evaluation_name", "")
    metric = result.get("metric_config") or {}
    description = metric.get("evaluation_description") or ""
    lower = metric.get("lower_is_better") is True
    key = ids.benchmark_key(dataset, name, description, lower)
    entry = {"id": ids.benchmark_id(dataset, name, key),
             "label": name if name == dataset else f"{name} ({dataset})",
             "dataset": dataset, "name": name}
    if description:
        entry["description"] = description
    entry["direction"] = "lower" if lower else "higher"
    return entry


class _RecordContext:
    """What every record of one file shares."""

    def __init__(self, source, evaluation, model, imported, artifact, model_id, source_name,
                 relationship, model_info, upstream_path):
        self.source, self.evaluation, self.model = source, evaluation, model
        self.imported, self.artifact, self.upstream_path = imported, artifact, upstream_path
        self.model_id, self.source_name = model_id, source_name
        self.relationship, self.model_info = relationship, model_info


def _record(out: _Builder, record: URIRef, ident: str, result: dict[str, Any], at: str,
            bench: URIRef, c: _RecordContext) -> None:
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
    out.add(value, QUDT.numericValue, literal(score.decimal_lexeme(), XSD.decimal), score_at,
            score.lexeme)
    out.add(value, QUDT.unit, UNIT.UNITLESS)

    out.add(record, KG.metric, literal(ids.slug(name, 80)))
    out.text(record, KG.metricLabel, name, f"{at}/evaluation_name")
    metric = result.get("metric_config") or {}
    mat = f"{at}/metric_config"
    out.text(record, KG.metricDescription, metric.get("evaluation_description"),
             f"{mat}/evaluation_description")
    lower = metric.get("lower_is_better")
    out.add(record, KG.metricDirection, KGV.lower if lower else KGV.higher,
            f"{mat}/lower_is_better", "true" if lower else "false")
    out.text(record, KG.scoreType, metric.get("score_type"), f"{mat}/score_type")
    out.number(record, KG.minScore, metric.get("min_score"), f"{mat}/min_score")
    out.number(record, KG.maxScore, metric.get("max_score"), f"{mat}/max_score")

    configuration = out.node(URIRef(f"{record}#configuration"), "/model_info",
                             KG.TestedConfiguration)
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
    _remainder(out, record, result, at)


def _dataset(out: _Builder, record: URIRef, data: dict[str, Any], at: str) -> None:
    dataset = out.node(URIRef(f"{record}#dataset"), at, KG.CitedText)
    out.add(record, KG.dataset, dataset)
    out.text(dataset, RDF.value, data.get("dataset_name"), f"{at}/dataset_name")
    out.text(dataset, KG.datasetSourceType, data.get("source_type"), f"{at}/source_type")
    out.text(dataset, KG.hfRepo, data.get("hf_repo"), f"{at}/hf_repo")
    out.text(dataset, KG.hfSplit, data.get("hf_split"), f"{at}/hf_split")
    samples = data.get("samples_number")
    if isinstance(samples, JsonNumber) and samples.is_integral:
        out.add(dataset, KG.samplesNumber, literal(samples.lexeme, XSD.integer),
                f"{at}/samples_number", samples.lexeme)
    urls = data.get("url")
    if isinstance(urls, list) and all(isinstance(u, str) for u in urls):
        for j, url in enumerate(urls):
            out.link(dataset, SCHEMA.url, url, child(f"{at}/url", j))
        out.used.add(f"{at}/url")


def _locator(out: _Builder, locator: URIRef, where: str, c: _RecordContext) -> URIRef:
    """A JSON Pointer into the kept file, as a Web Annotation specific resource."""
    out.node(locator, where, KG.Locator, OA.SpecificResource)
    out.add(locator, RDFS.label, literal(f"{where} in {c.upstream_path}"))
    selector = out.node(URIRef(f"{locator}-selector"), where, OA.FragmentSelector)
    out.add(locator, OA.hasSelector, selector)
    out.add(selector, DCTERMS.conformsTo, JSON_POINTER)
    out.add(selector, RDF.value, literal(where))
    out.add(locator, OA.hasSource, c.artifact)
    return locator


def _row(out: _Builder, record: URIRef, position: int, prop: str, statement: str,
         locator: URIRef, c: _RecordContext) -> None:
    row = out.node(URIRef(f"{record}#evidence-{position}"), "", KG.EvidenceRow)
    out.add(record, KG.evidenceRow, row)
    out.add(row, KG.position, literal(position))
    out.add(row, KG.statementProperty, KGV[prop])
    out.add(row, RDF.value, literal(statement))
    out.add(row, KG.citationType, KGV["individual-claim"])
    out.add(row, CITO.citesAsEvidence, c.source)
    out.add(row, KG.locator, locator)
    out.add(row, KG.sharedLocator, literal(False))


def _remainder(out: _Builder, subject: URIRef, value: dict[str, Any], at: str,
               skip: frozenset[str] | set[str] = frozenset()) -> None:
    """What ``value`` says beyond the statements made of it, as JSON."""
    rest = _without(value, at, out.used, skip)
    if rest:
        out.add(subject, KG.upstreamRemainder, Literal(dumps(rest), datatype=JSON_TEXT,
                                                        normalize=False))


def _without(value: dict[str, Any], at: str, used: set[str], skip) -> dict[str, Any]:
    """``value`` less the mapped places (and the keys in ``skip``); an object that held only
    mapped places goes too, one that was empty stays (it is part of what the file says)."""
    rest: dict[str, Any] = {}
    for key, item in value.items():
        where = child(at, key)
        if key in skip or where in used:
            continue
        if isinstance(item, dict) and item:
            inner = _without(item, where, used, ())
            if inner:
                rest[key] = inner
        else:
            rest[key] = item
    return rest


def shared_nodes(doc: dict[str, Any]) -> dict[str, Any]:
    """The shared nodes a checked file names, as the import record and the source's file
    state them: the model's key, the benchmarks of its results, its source."""
    metadata = doc.get("source_metadata") or {}
    ident, _ = source_reference(metadata, "")
    organization = metadata.get("source_organization_name", "")
    source = {"id": ident, "title": metadata.get("source_name") or organization,
              "publisher": organization}
    if isinstance(metadata.get("source_organization_url"), str):
        source["url"] = metadata["source_organization_url"]
    return {"model": ids.model_key((doc.get("model_info") or {}).get("id", "")),
            "benchmarks": [benchmark_of(r) for r in doc.get("evaluation_results") or []],
            "source": source}
