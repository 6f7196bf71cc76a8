"""A kept Every Eval Ever file as graphs: its evaluation, then one record per result.

The file's own graph (``evaluation/<file id>``) holds the evaluation, the kept file as the
source artifact (its SHA-256, its paths), and what the file says of the shared nodes it
names: the source (the leaderboard), the model, the benchmarks. Each result is a record
like the seed's in a graph of its own (``record/<id>``): the value as written, the metric,
the data set, the locator (an RFC 6901 JSON Pointer into the kept file, as a Web Annotation
fragment selector) and evidence rows (:mod:`.records`). Whatever the file
says beyond the mapped fields is kept as JSON with the numbers as written
(``kg:upstreamRemainder``), so nothing is dropped and the file can be written back
(``kg export --format every-eval-ever``).

Every triple remembers the JSON Pointer it came from, so a shape's complaint names the
place in the file (:mod:`kg.model.mapping.json_triples`). docs/imports.md describes the
mapping field by field.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rdflib import Literal, URIRef

from ....kinds import minted_iri
from ....rdf.namespaces import DCTERMS, KG, KGV, PROV, XSD
from ...mapping.context import Origins, Triple
from ...mapping.json_triples import TripleBuilder, kept_artifact, literal, remainder
from ..jsondoc import JsonNumber
from ..kept import KeptFile
from . import identity as ids
from .added_fields import map_eval_library
from .records import RecordContext, map_result

#: evaluator_relationship -> its concept (which implies the record's evidence kind,
#: records.EVIDENCE_KIND).
RELATIONSHIP = {
    "first_party": "first-party",
    "third_party": "third-party",
    "collaborative": "collaborative",
    "other": "other",
}
#: model_info.additional_details keys the graph holds as statements.
MODEL_DETAILS = {
    "precision": KG.precision,
    "architecture": KG.architecture,
    "model_type": KG.modelType,
}


def map_every_eval_ever(
    kept: KeptFile, base: str, as_written: frozenset[tuple[str, str, str]] = frozenset()
) -> tuple[list[Triple], Origins, list[tuple[URIRef, str, int]]]:
    """The triples of one kept file, their origins, and its graphs as (IRI, label, end);
    the values ``as_written`` names kept as written (:class:`TripleBuilder`)."""
    doc: dict[str, Any] = kept.checked.doc
    out = TripleBuilder(as_written)
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
    map_eval_library(out, evaluation, doc)
    artifact = kept_artifact(out, kept, source, imported)
    out.add(evaluation, KG.artifact, artifact)

    results = doc.get("evaluation_results") or []
    names = [r.get("evaluation_name", "") for r in results]
    records = ids.result_ids(evaluation_id, names)
    relationship = metadata.get("evaluator_relationship")
    benchmarks = [
        URIRef(minted_iri(base, "benchmark", benchmark_of(result)["id"])) for result in results
    ]
    remainder(out, evaluation, doc, "", skip={"evaluation_results"})
    agent = URIRef(minted_iri(base, "agent", kept.agent)) if kept.agent else None
    record_iris = [URIRef(minted_iri(base, "record", r)) for r in records]
    generated_by_import(out, record_iris, imported, agent)
    parts = [(evaluation, out.label, len(out.triples))]
    context = RecordContext(
        source,
        evaluation,
        model,
        imported,
        artifact,
        model_id,
        str(source_name),
        relationship,
        model_info,
        kept.upstream_path,
    )
    for i, (result, ident, record, bench) in enumerate(
        zip(results, records, record_iris, benchmarks, strict=True)
    ):
        out.label = f"record {ident}"
        map_result(out, record, ident, result, f"/evaluation_results/{i}", bench, context)
        parts.append((record, out.label, len(out.triples)))
    return out.triples, out.origins, parts


def generated_by_import(
    out: TripleBuilder, records: list[URIRef], imported: URIRef, agent: URIRef | None
) -> None:
    """Each record ``prov:wasGeneratedBy`` the import, as its kept file is, and
    ``prov:wasAttributedTo`` the import's agent (docs/links.md), stated in the file's graph:
    a statement in every record's graph would change every record's hash."""
    for record in records:
        out.add(record, PROV.wasGeneratedBy, imported)
        if agent is not None:
            out.add(record, PROV.wasAttributedTo, agent)


def source_reference(metadata: dict[str, Any], base: str) -> tuple[str, URIRef]:
    """The source (the leaderboard or harness) a file's ``source_metadata`` names: its id
    and IRI. Its file (``data/sources/<id>.yaml``) is written by ``kg import``."""
    ident = ids.source_id(
        metadata.get("source_organization_name", ""), metadata.get("source_name", "")
    )
    return ident, URIRef(minted_iri(base, "source", ident))


def _model(out: TripleBuilder, evaluation: URIRef, info: dict[str, Any], base: str) -> URIRef:
    """The shared model node (named by the case-folded id; the import record defines it)
    and how this file names the model."""
    raw = info.get("id", "")
    model = URIRef(minted_iri(base, "model", ids.model_key(raw)))
    out.add(evaluation, KG.evaluatedModel, model, "/model_info/id", raw)
    out.text(evaluation, KG.modelId, raw, "/model_info/id")
    out.text(evaluation, KG.modelName, info.get("name"), "/model_info/name")
    out.text(evaluation, KG.modelDeveloper, info.get("developer"), "/model_info/developer")
    out.text(
        evaluation,
        KG.inferencePlatform,
        info.get("inference_platform"),
        "/model_info/inference_platform",
    )
    details = info.get("additional_details")
    if isinstance(details, dict):
        for key_name, predicate in MODEL_DETAILS.items():
            out.text(
                evaluation,
                predicate,
                details.get(key_name),
                f"/model_info/additional_details/{key_name}",
            )
        out.number(
            evaluation,
            KG.parametersBillions,
            details.get("params_billions"),
            "/model_info/additional_details/params_billions",
        )
    return model


def _evaluation_facts(out: TripleBuilder, evaluation: URIRef, doc: dict[str, Any]) -> None:
    out.text(evaluation, KG.schemaVersion, doc.get("schema_version"), "/schema_version")
    out.text(evaluation, KG.upstreamEvaluationId, doc.get("evaluation_id"), "/evaluation_id")
    retrieved = doc.get("retrieved_timestamp")
    if isinstance(retrieved, str):
        out.text(evaluation, KG.retrievedTimestamp, retrieved, "/retrieved_timestamp")
        # What is not Unix seconds is given as written, for the shapes to judge (an ISO
        # date-time is one; "yesterday" is kept as written).
        out.add(
            evaluation,
            KG.retrievedAt,
            Literal(
                unix_to_datetime(retrieved) or retrieved, datatype=XSD.dateTime, normalize=False
            ),
            "/retrieved_timestamp",
            retrieved,
        )
    metadata = doc.get("source_metadata") or {}
    out.text(
        evaluation,
        KG.upstreamSourceType,
        metadata.get("source_type"),
        "/source_metadata/source_type",
    )
    relationship = metadata.get("evaluator_relationship")
    if relationship in RELATIONSHIP:
        out.add(
            evaluation,
            KG.evaluatorRelationship,
            KGV[RELATIONSHIP[relationship]],
            "/source_metadata/evaluator_relationship",
            relationship,
        )


def unix_to_datetime(seconds: str) -> str:
    """Unix seconds as written (``1770682486.623709``) as an ``xsd:dateTime`` in UTC, every
    digit of the fraction kept: ``2026-02-10T00:14:46.623709Z`` ("" for what is not Unix
    seconds)."""
    whole, _, fraction = seconds.partition(".")
    if not (whole.isascii() and whole.isdigit()) or not (
        (fraction.isascii() and fraction.isdigit()) or not fraction
    ):
        return ""
    try:
        moment = datetime.fromtimestamp(int(whole), tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
    except (OverflowError, OSError, ValueError):  # beyond the years a datetime holds
        return ""
    return f"{moment}.{fraction}Z" if fraction else f"{moment}Z"


def benchmark_of(result: dict[str, Any]) -> dict[str, str]:
    """The benchmark a result belongs to (docs/imports.md: data set, name, metric,
    direction), as the import record lists it."""
    dataset = (result.get("source_data") or {}).get("dataset_name", "")
    name = result.get("evaluation_name", "")
    metric = result.get("metric_config") or {}
    description = metric.get("evaluation_description") or ""
    lower = metric.get("lower_is_better") is True
    key = ids.benchmark_key(dataset, name, description, lower)
    entry = {
        "id": ids.benchmark_id(dataset, name, key),
        "label": name if name == dataset else f"{name} ({dataset})",
        "dataset": dataset,
        "name": name,
    }
    if description:
        entry["description"] = description
    entry["direction"] = "lower" if lower else "higher"
    return entry


def shared_nodes(doc: dict[str, Any]) -> dict[str, Any]:
    """The shared nodes a checked file names, as the import record and the source's file
    state them: the model's key, the benchmarks of its results, its source."""
    metadata = doc.get("source_metadata") or {}
    ident, _ = source_reference(metadata, "")
    organization = metadata.get("source_organization_name", "")
    source: dict[str, Any] = {
        "id": ident,
        "title": metadata.get("source_name") or organization,
        "publisher": organization,
    }
    if isinstance(metadata.get("source_organization_url"), str):
        source["url"] = metadata["source_organization_url"]
    # Where each field comes from in the file: a value that does not fit is named by it.
    source["pointers"] = {
        "title": "/source_metadata/source_name"
        if metadata.get("source_name")
        else "/source_metadata/source_organization_name",
        "publisher": "/source_metadata/source_organization_name",
        "url": "/source_metadata/source_organization_url",
    }
    return {
        "model": ids.model_key((doc.get("model_info") or {}).get("id", "")),
        "benchmarks": [benchmark_of(r) for r in doc.get("evaluation_results") or []],
        "source": source,
        "pointers": {"model": "/model_info/id"},
        **linked_facts(doc),
    }


def linked_facts(doc: dict[str, Any]) -> dict[str, Any]:
    """What a file says of its model and data sets that the import states once
    (docs/links.md): ``model_facts`` (the id as written, name, developer, parameters in
    billions as an ``xsd:decimal``) and ``datasets`` (each result's benchmark id and
    Hugging Face data set repository, None where it names none)."""
    info = doc.get("model_info") or {}
    details = info.get("additional_details")
    params = details.get("params_billions") if isinstance(details, dict) else None
    facts = {
        "id": info.get("id"),
        "name": info.get("name"),
        "developer": info.get("developer"),
        "params_billions": params.decimal_lexeme() if isinstance(params, JsonNumber) else None,
    }
    datasets = [
        (benchmark_of(r)["id"], (r.get("source_data") or {}).get("hf_repo"))
        for r in doc.get("evaluation_results") or []
    ]
    return {
        "model_facts": {k: v for k, v in facts.items() if isinstance(v, str) and v.strip()},
        "datasets": [(b, repo if isinstance(repo, str) else None) for b, repo in datasets],
    }
