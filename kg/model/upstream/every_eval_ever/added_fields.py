"""The fields of Every Eval Ever files that claimgraph maps beyond the 0.2.0 mapping
(:mod:`.records`, :mod:`.mapping`), both ways: as statements, and written back by the export.

- ``score_details.uncertainty`` (0.2.0 has it; no file of the snapshot gives it): the
  record's ``kg:uncertainty``, a text in the registry's words, as a hand-made record states
  it (``standard error 0.012 (bootstrap); 95% confidence interval 0.71 to 0.76; 1000
  samples``). Its JSON stays in the record's remainder as the file writes it, numbers as
  written, so the export gives it back exactly.
- ``metric_config.metric_id``, ``metric_name``, ``metric_kind`` (0.3.0): the record's
  ``kg:upstreamMetricId``, ``kg:metricName``, ``kg:metricKind``; ``metric_unit``: the
  value's ``kg:unitDetail``, and its ``qudt:unit`` where the word is a unit name of
  ``ontology/units.ttl`` (``percent``, ``ms``; else unitless, as before).
- ``evaluation_result_id`` (0.3.0): the record's ``kg:upstreamResultId``.
- ``eval_library`` (0.2.2, 0.3.0): the evaluation's ``kg:softwarePackage``, a
  ``kg:SoftwarePackage`` with its name (``rdfs:label``) and version
  (``kg:softwareVersion``), as runs and reviews state their software.

>>> from .. jsondoc import loads
>>> uncertainty_text(loads(b'{"standard_error": {"value": 0.01, "method": "bootstrap"},'
...     b' "confidence_interval": {"lower": 0.7, "upper": 0.74, "confidence_level": 0.95},'
...     b' "num_samples": 1000}'))
'standard error 0.01 (bootstrap); 95% confidence interval 0.7 to 0.74; 1000 samples'
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pyoxigraph as ox
from rdflib import URIRef

from ....rdf.facts import Facts, Term
from ....rdf.namespaces import KG, RDFS, UNIT
from ....rdf.vocabulary import load_terms
from ...fields import field_value
from ...mapping.json_triples import TripleBuilder, literal
from ..jsondoc import JsonNumber

#: metric_config keys -> the record's predicate (text as written).
METRIC_TEXTS = {
    "metric_id": KG.upstreamMetricId,
    "metric_name": KG.metricName,
    "metric_kind": KG.metricKind,
}
RESULT_ID = "evaluation_result_id"


def unit(result: dict[str, Any]) -> URIRef:
    """The value's unit: the unit ``metric_config.metric_unit`` names, else unitless."""
    word = (result.get("metric_config") or {}).get("metric_unit")
    found = load_terms().units.get(word) if isinstance(word, str) else None
    return found if found is not None else UNIT.UNITLESS


def map_result_fields(
    out: TripleBuilder, record: URIRef, value: URIRef, result: dict[str, Any], at: str
) -> None:
    """The statements of a result's added fields (module docstring)."""
    out.text(record, KG.upstreamResultId, result.get(RESULT_ID), f"{at}/{RESULT_ID}")
    metric, mat = result.get("metric_config") or {}, f"{at}/metric_config"
    for key, predicate in METRIC_TEXTS.items():
        out.text(record, predicate, metric.get(key), f"{mat}/{key}")
    out.text(value, KG.unitDetail, metric.get("metric_unit"), f"{mat}/metric_unit")
    where = f"{at}/score_details/uncertainty"
    text = uncertainty_text((result.get("score_details") or {}).get("uncertainty"))
    if text:
        out.add(record, KG.uncertainty, literal(text), where)
        out.used.discard(where)  # its JSON stays in the remainder, numbers as written


def map_eval_library(out: TripleBuilder, evaluation: URIRef, doc: dict[str, Any]) -> None:
    """The evaluation's software: the library that ran it, with its version (both given)."""
    library = doc.get("eval_library")
    if not isinstance(library, dict):
        return
    name, version = library.get("name"), library.get("version")
    if not (isinstance(name, str) and isinstance(version, str)):
        return  # left in the remainder: a package states both
    package = out.node(URIRef(f"{evaluation}#eval-library"), "/eval_library", KG.SoftwarePackage)
    out.add(evaluation, KG.softwarePackage, package)
    out.text(package, RDFS.label, name, "/eval_library/name")
    out.text(package, KG.softwareVersion, version, "/eval_library/version")


def uncertainty_text(uncertainty: Any) -> str:
    """``score_details.uncertainty`` in words, numbers as written ("" when it says none)."""
    if not isinstance(uncertainty, dict):
        return ""
    parts = []
    error = uncertainty.get("standard_error")
    if isinstance(error, dict) and _number(error.get("value")):
        parts.append(f"standard error {error['value'].lexeme}{_how(error)}")
    interval = uncertainty.get("confidence_interval")
    if isinstance(interval, dict) and _number(interval.get("lower"), interval.get("upper")):
        level = interval.get("confidence_level")
        share = f"{_percent(level)} " if isinstance(level, JsonNumber) else ""
        parts.append(
            f"{share}confidence interval {interval['lower'].lexeme} to "
            f"{interval['upper'].lexeme}{_how(interval)}"
        )
    for key, words in (
        ("standard_deviation", "standard deviation {}"),
        ("num_samples", "{} samples"),
        ("num_bootstrap_samples", "{} bootstrap resamples"),
    ):
        if _number(uncertainty.get(key)):
            parts.append(words.format(uncertainty[key].lexeme))
    return "; ".join(parts)


def _number(*values: Any) -> bool:
    return all(isinstance(v, JsonNumber) for v in values)


def _how(part: dict[str, Any]) -> str:
    method = part.get("method")
    return f" ({method})" if isinstance(method, str) and method.strip() else ""


def _percent(level: JsonNumber) -> str:
    """0.95 -> "95%" (exact: the level's decimal times 100)."""
    share = Decimal(level.decimal_lexeme()) * 100
    return f"{share.normalize():f}%"


def written_back(f: Facts, record: ox.NamedNode) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the export writes of a record's added fields: the result's own (its id) and
    its ``metric_config``'s (an empty string a file gives comes back too). The uncertainty
    comes back with the remainder."""
    result = {RESULT_ID: f.one(record, KG.upstreamResultId)}
    metric = {key: f.one(record, predicate) for key, predicate in METRIC_TEXTS.items()}
    metric["metric_unit"] = field_value(f, record, "unitDetail")
    return _given(result), _given(metric)


def eval_library_back(f: Facts, evaluation: Term | None) -> dict[str, Any]:
    """The file's ``eval_library`` as the evaluation's software states it ({} for none)."""
    package = f.one(evaluation, KG.softwarePackage)
    if package is None:
        return {}
    return {"name": f.text(package, RDFS.label), "version": f.text(package, KG.softwareVersion)}


def _given(values: dict[str, Term | None]) -> dict[str, str]:
    return {k: v.value for k, v in values.items() if v is not None}


__all__ = [
    "eval_library_back",
    "map_eval_library",
    "map_result_fields",
    "uncertainty_text",
    "unit",
    "written_back",
]
