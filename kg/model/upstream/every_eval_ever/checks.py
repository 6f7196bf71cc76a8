"""Reading one Every Eval Ever file and checking it before anything is made of it.

Every problem is a JSON Pointer and a message (``/evaluation_results/3/score_details/score:
not a number ('abc')``). The fields claimgraph maps are checked here in its own words, the
rest by the file's JSON Schema (:mod:`.schema`); a place already reported is not reported
again by the schema.
"""

from __future__ import annotations

import json
from typing import Any

from ..format import Checked
from ..jsondoc import DuplicateKeys, JsonNumber, JsonSyntaxError, NonFinite, loads, walk
from . import schema

#: evaluator_relationship values, as the schema lists them.
RELATIONSHIPS = ("first_party", "third_party", "collaborative", "other")
_MISSING = object()
#: A bound 0.3.0 allows beside a number: unbounded (as the upstream library writes
#: infinities), or not provided. The mapping leaves such a bound in the remainder.
_UNBOUNDED = ("Infinity", "-Infinity", None)


def check(raw: bytes) -> Checked:
    """Read and check one upstream file's bytes."""
    odd: list = []
    try:
        doc = loads(raw, odd)
    except JsonSyntaxError as exc:
        return Checked(None, [("", str(exc))])
    if not isinstance(doc, dict):
        return Checked(doc, [("", "not a JSON object (an evaluation file is one object)")])
    problems = _unreadable_values(doc) if odd else []  # where they are: only if there are any
    if problems:
        return Checked(doc, problems)
    version = (
        schema.parse_version(doc["schema_version"])
        if isinstance(doc.get("schema_version"), str)
        else None
    )
    held = schema.rule(version)
    problems = _mapped_fields(doc, version, schema.allows_unbounded(held.version))
    reported = [where for where, _ in problems]
    for where, message in schema.violations(json.loads(raw), held):
        # What the schema says of a place reported already, or of the object holding it
        # ("must contain ['score']"), is said better above.
        if not any(
            where == r or where.startswith(r + "/") or r.startswith(where + "/") for r in reported
        ):
            problems.append((where, message))
    unknown = schema.unknown_fields(doc, held.version) if held.lenient else []
    return Checked(doc, sorted(problems), unknown, held.lenient)


def _unreadable_values(doc: Any) -> list[tuple[str, str]]:
    """NaN and infinities (JSON has neither), and keys given twice in one object."""
    problems = []
    for where, value in walk(doc):
        if isinstance(value, NonFinite):
            problems.append(
                (where, f"not a finite number ({value!s}): JSON has no NaN or infinities")
            )
        elif isinstance(value, DuplicateKeys):
            for key in value.duplicates:
                problems.append((where, f"the key {key!r} is given more than once"))
    return problems


def _mapped_fields(
    doc: dict[str, Any], version: tuple[int, ...] | None, unbounded: bool
) -> list[tuple[str, str]]:
    """``unbounded``: the version allows a bound of "Infinity", "-Infinity" or null."""
    problems: list[tuple[str, str]] = []

    def need(where: str, value: Any, what: str, test) -> None:
        if value is _MISSING:
            problems.append((where, "missing (required)"))
        elif not test(value):
            problems.append((where, f"not {what} ({_show(value)})"))

    if "schema_version" in doc and version is None:
        problems.append(
            (
                "/schema_version",
                f"not a version number such as 0.2.0 ({_show(doc['schema_version'])})",
            )
        )
    need(
        "/retrieved_timestamp",
        doc.get("retrieved_timestamp", _MISSING),
        "a string",  # one that is no Unix seconds is kept as written (the shapes say)
        lambda v: isinstance(v, str),
    )
    source = doc.get("source_metadata")
    if isinstance(source, dict):
        need(
            "/source_metadata/source_organization_name",
            source.get("source_organization_name", _MISSING),
            "a name",
            _text,
        )
        relationship = source.get("evaluator_relationship")
        if relationship is not None and relationship not in RELATIONSHIPS:
            problems.append(
                (
                    "/source_metadata/evaluator_relationship",
                    f"not an evaluator relationship ({_show(relationship)}; one of: "
                    + ", ".join(RELATIONSHIPS)
                    + ")",
                )
            )
        if "source_name" in source:
            need("/source_metadata/source_name", source["source_name"], "a name", _text)
    model = doc.get("model_info")
    if isinstance(model, dict):
        need("/model_info/id", model.get("id", _MISSING), "a model id", _text)
    results = doc.get("evaluation_results")
    for i, result in enumerate(results if isinstance(results, list) else []):
        if not isinstance(result, dict):
            continue  # the schema says what it should be
        at = f"/evaluation_results/{i}"
        need(f"{at}/evaluation_name", result.get("evaluation_name", _MISSING), "a name", _text)
        details = result.get("score_details")
        if isinstance(details, dict):
            need(
                f"{at}/score_details/score",
                details.get("score", _MISSING),
                "a number",
                lambda v: isinstance(v, JsonNumber),
            )
        metric = result.get("metric_config")
        if isinstance(metric, dict):
            need(
                f"{at}/metric_config/lower_is_better",
                metric.get("lower_is_better", _MISSING),
                "true or false",
                lambda v: isinstance(v, bool),
            )
            for key in ("min_score", "max_score"):
                if key in metric and not (unbounded and metric[key] in _UNBOUNDED):
                    need(
                        f"{at}/metric_config/{key}",
                        metric[key],
                        'a number, "Infinity", "-Infinity" or null' if unbounded else "a number",
                        lambda v: isinstance(v, JsonNumber),
                    )
        data = result.get("source_data")
        if isinstance(data, dict):
            need(
                f"{at}/source_data/dataset_name",
                data.get("dataset_name", _MISSING),
                "a name",
                _text,
            )
    return problems


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _show(value: Any) -> str:
    if isinstance(value, JsonNumber):
        return value.lexeme
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "an array"
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
