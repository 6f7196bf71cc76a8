"""Records written back as Every Eval Ever files, each at the schema version it came from.

An imported record is written from the statements its graph holds (value, metric, data
set, model, source, times), then what its upstream file said beyond them (the records'
and the evaluation's ``kg:upstreamRemainder``) is laid over: the file comes back equal to
the original on every field, numbers as written. Any other record (the seed) is written
where its fields fit the schema; what does not fit (unit, hardware, locator, its IRI) is
said in the result's ``score_details.details``, at 0.2.0. Every file written is validated
against the schema of its version, as an import holds a file of that version
(:func:`.schema.rule`); one that is not valid is refused (:class:`InvalidDataError`).

>>> merge({"a": {"b": 1}}, {"a": {"c": 2}, "d": 3})
{'a': {'b': 1, 'c': 2}, 'd': 3}
"""

from __future__ import annotations

import calendar
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import pyoxigraph as ox

from ....errors import InvalidDataError, Problem
from ....rdf.facts import Facts, Term
from ....rdf.namespaces import DCTERMS, KG, KGV, OA, RDF, RDFS, SCHEMA
from ...fields import FIELDS, field_text, field_value
from ...standing import Standing
from ..jsondoc import JsonNumber, JsonSyntaxError, dumps, loads
from . import added_fields as added
from .schema import parse_version, rule, violations

#: Evidence kinds -> evaluator_relationship.
RELATIONSHIPS = {
    "self-reported": "first_party",
    "independent-external-evaluation": "third_party",
    "collaborative-evaluation": "collaborative",
    "unstated-relationship": "other",
}
SCHEMA_VERSION = "0.2.0"


def eee_file(
    facts: Facts, records: list[ox.NamedNode], standings: Mapping[str, Standing] | None = None
) -> dict[str, Any]:
    """One Every Eval Ever document of ``records`` (those of one evaluation, or one record),
    read from ``facts`` (their graphs, their evaluation's, their source's, their import's).

    A record whose standing (``standings``, by IRI) is not current says so in its result's
    ``score_details.details.claimgraph_standing``: a retraction travels with the number."""
    first = records[0]
    evaluation = field_value(facts, first, "evaluation")
    imported = field_value(facts, first, "importedBy") is not None
    doc = _file_fields(facts, first, evaluation, imported)
    records = sorted(records, key=lambda r: _position(facts, r))
    doc["evaluation_results"] = [_result(facts, r, imported) for r in records]
    if imported:
        doc = merge(doc, _json(facts.one(evaluation, KG.upstreamRemainder)))
        # The remainder's results are the evaluation's own: laid over result by result.
        doc["evaluation_results"] = [
            merge(result, _json(facts.one(r, KG.upstreamRemainder)))
            for result, r in zip(doc["evaluation_results"], records, strict=True)
        ]
    for result, record in zip(doc["evaluation_results"], records, strict=True):
        found = (standings or {}).get(record.value)
        if found is not None and found.standing != "current":
            details = result["score_details"].setdefault("details", {})
            details["claimgraph_standing"] = found.summary()
    _validate(doc)
    return doc


def text(doc: dict[str, Any]) -> str:
    """The document as JSON, indented, numbers as written."""
    return dumps(doc, indent=2) + "\n"


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``over`` laid over it, object by object (``over`` wins elsewhere)."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


#: The nodes a record links to that the file's parts are read from (the fields declare
#: the record's values: kg/model/fields.py).
DATASET, CONFIGURATION = FIELDS["dataset"].steps[0][0], FIELDS["model"].steps[0][0]


def _file_fields(
    facts: Facts, record: ox.NamedNode, evaluation: Term | None, imported: bool
) -> dict[str, Any]:
    f = facts
    source = field_value(f, record, "source")
    kind = field_value(f, record, "evidenceKind")
    relationship = f.one(evaluation, KG.evaluatorRelationship)
    doc: dict[str, Any] = {
        "schema_version": f.text(evaluation, KG.schemaVersion) or SCHEMA_VERSION,
        "evaluation_id": f.text(evaluation, KG.upstreamEvaluationId)
        or f"claimgraph/{f.text(record, DCTERMS.identifier)}",
        "retrieved_timestamp": f.text(evaluation, KG.retrievedTimestamp)
        or _unix(_earliest_review(f, record)),
    }
    metadata: dict[str, Any] = {}
    if not imported:  # an imported file's own words for its source come with its remainder
        metadata["source_name"] = f.text(source, DCTERMS.title)
        metadata["source_type"] = "documentation"
        metadata["source_organization_name"] = (
            field_text(f, source, "publisher")
            or field_text(f, source, "venue")
            or f.text(source, DCTERMS.title)
        )
    else:
        metadata["source_type"] = f.text(evaluation, KG.upstreamSourceType) or "documentation"
    metadata["evaluator_relationship"] = (
        relationship.value.rsplit("#", 1)[1].replace("-", "_")
        if relationship is not None
        else RELATIONSHIPS.get(kind.value.rsplit("#", 1)[1] if kind else "", "other")
    )
    doc["source_metadata"] = metadata
    doc["model_info"] = _model_info(f, record, evaluation)
    if library := added.eval_library_back(f, evaluation):
        doc["eval_library"] = library
    return doc


def _model_info(f: Facts, record: ox.NamedNode, evaluation: Term | None) -> dict[str, Any]:
    model = f.text(evaluation, KG.modelId) or field_text(f, record, "model")
    info: dict[str, Any] = {"name": f.text(evaluation, KG.modelName) or model, "id": model}
    # an empty string is a value the file gives (six snapshot files give architecture "")
    for key, predicate in (
        ("developer", KG.modelDeveloper),
        ("inference_platform", KG.inferencePlatform),
    ):
        if (value := f.one(evaluation, predicate)) is not None:
            info[key] = value.value
    details: dict[str, Any] = {}
    for key, predicate in (
        ("precision", KG.precision),
        ("architecture", KG.architecture),
        ("model_type", KG.modelType),
    ):
        if (value := f.one(evaluation, predicate)) is not None:
            details[key] = value.value
    if f.text(evaluation, KG.parametersBillions):
        details["params_billions"] = JsonNumber(f.text(evaluation, KG.parametersBillions))
    if details:
        info["additional_details"] = details
    return info


def _result(f: Facts, record: ox.NamedNode, imported: bool) -> dict[str, Any]:
    printed = field_text(f, record, "printed")
    score = _number(printed)
    if score is None:  # printed as no JSON number ("< 0.1"): its typed value
        score = JsonNumber(field_text(f, record, "value"))
    metric: dict[str, Any] = {}
    description = f.text(record, KG.metricDescription) or field_text(f, record, "qualifier")
    if description:
        metric["evaluation_description"] = description
    metric["lower_is_better"] = field_value(f, record, "direction") == ox.NamedNode(KGV.lower)
    if f.text(record, KG.scoreType):
        metric["score_type"] = f.text(record, KG.scoreType)
    for key, name in (("min_score", "minScore"), ("max_score", "maxScore")):
        if field_text(f, record, name):
            metric[key] = JsonNumber(field_text(f, record, name))
    if not imported and "score_type" not in metric:
        # The schema wants a score type, and a continuous score's range; a source that gives
        # none gets the narrowest range that is true of what it reports: the value itself.
        metric.update(score_type="continuous", min_score=score, max_score=score)
    result: dict[str, Any] = {
        "evaluation_name": field_text(f, record, "metricLabel") or field_text(f, record, "metric"),
        "source_data": _source_data(f, f.one(record, DATASET)),
        "metric_config": metric,
        "score_details": {"score": score},
    }
    if imported:
        own, metric_fields = added.written_back(f, record)
        result.update(own)
        metric.update(metric_fields)
    else:
        result["score_details"]["details"] = _what_does_not_fit(f, record, printed)
    return result


def _source_data(f: Facts, dataset: Term | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "dataset_name": f.text(dataset, RDF.value) or "not reported",
        "source_type": f.text(dataset, KG.datasetSourceType) or "other",
    }
    for key, predicate in (("hf_repo", KG.hfRepo), ("hf_split", KG.hfSplit)):
        if f.text(dataset, predicate):
            data[key] = f.text(dataset, predicate)
    if f.text(dataset, KG.samplesNumber):
        data["samples_number"] = JsonNumber(f.text(dataset, KG.samplesNumber))
    urls = [u.value for u in f.all(dataset, SCHEMA.url)]
    if urls:
        data["url"] = urls
    return data


def _what_does_not_fit(f: Facts, record: ox.NamedNode, printed: str) -> dict[str, Any]:
    """A record's fields the schema has no place for, said in ``details`` (strings)."""
    unit = field_value(f, record, "unit")
    locator = field_value(f, record, "locator")
    configuration = f.one(record, CONFIGURATION)
    source = field_value(f, record, "source")
    uncertainty = f.one(record, KG.uncertainty)
    assert source is not None  # a record is quoted from one source (its shape requires it)
    extra = {
        "claimgraph_record": record.value,
        "printed_value": printed,
        "unit": f.concept(unit, RDFS.label) or (unit.value if unit is not None else ""),
        "metric": field_text(f, record, "metric"),
        "metric_qualifier": field_text(f, record, "qualifier"),
        "configuration": f.text(configuration, KG.configuration),
        "hardware_as_reported": f.text(record, KG.hardwareAsReported),
        "scope_note": f.text(record, KG.scopeNote),
        # a text; a missing value ({missing: unreported}) is said by missing_metadata
        "uncertainty": uncertainty.value if isinstance(uncertainty, ox.Literal) else "",
        "locator": f.text(locator, RDFS.label),
        "source": source.value,
        "review_status": f.concept(field_value(f, record, "status")),
    }
    if not field_text(f, record, "minScore"):
        extra["score_range"] = (
            "not reported by the source: min_score and max_score are the "
            "reported value itself, as the schema requires a range"
        )
    return {k: v for k, v in extra.items() if v}


def _position(f: Facts, record: ox.NamedNode) -> tuple[int, str]:
    """Where a result stands in its upstream file (its pointer's index), then its IRI."""
    pointer = f.text(f.one(field_value(f, record, "locator"), OA.hasSelector), RDF.value)
    parts = pointer.split("/")
    index = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else -1
    return index, record.value


def _validate(doc: dict[str, Any]) -> None:
    """Refuse a document its version's schema refuses (held as an import holds it)."""
    written = doc.get("schema_version")
    held = rule(parse_version(written) if isinstance(written, str) else None)
    problems = violations(json.loads(dumps(doc)), held)
    if problems:
        label = str(doc.get("evaluation_id", ""))
        raise InvalidDataError(
            [Problem("every-eval-ever export", label, where, msg) for where, msg in problems],
            "nothing was exported",
        )


def _json(term: Term | None) -> dict[str, Any]:
    if not isinstance(term, ox.Literal):
        return {}
    try:
        value = loads(term.value.encode())
    except JsonSyntaxError:
        return {}
    return value if isinstance(value, dict) else {}


def _number(printed: str) -> JsonNumber | None:
    """The printed value as a JSON number, where it is written as one."""
    try:
        value = loads(printed.encode())
    except JsonSyntaxError:
        return None
    return value if isinstance(value, JsonNumber) else None


def _earliest_review(f: Facts, record: ox.NamedNode) -> str:
    reviews = f.subjects(FIELDS["reviewOf"].predicate, record)
    times = sorted(field_text(f, r, "reviewedAt") for r in reviews)
    return times[0] if times else ""


def _unix(moment: str) -> str:
    """An ``xsd:dateTime`` in UTC as Unix seconds ("0" when there is none)."""
    if not moment:
        return "0"
    parsed = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    return str(calendar.timegm(parsed.utctimetuple()))
