"""Every Eval Ever's JSON Schema (0.2.0, vendored in ``schemas/every-eval-ever/``).

A file of version 0.2.0 (or older) is held to the schema as published. A file of a newer
version (0.2.2 adds ``eval_library``, paper links, costs) is held to it with every
``additionalProperties: false`` lifted: what 0.2.0 knows must still be right, what it does
not know is allowed, kept in the file and in the records' upstream remainder, and counted
(:func:`unknown_fields`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import fastjsonschema

from ....resources import resource_dir
from ..jsondoc import child, pointer

#: The schema version the vendored schema is.
KNOWN_VERSION = (0, 2, 0)
#: Objects whose keys are free by design (``details``, ``additional_details``): their keys
#: are never unknown fields.
_FREE = "#/$defs/additional_properties_object"


@cache
def schema() -> dict[str, Any]:
    """The vendored schema, parsed once."""
    path = resource_dir("schemas") / "every-eval-ever" / "eval.schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def _validator(lenient: bool) -> Any:
    """The schema compiled to Python (fastjsonschema: about ten times faster than an
    interpreting validator, which cost 9 ms per file of the snapshot)."""
    document = schema()
    if lenient:
        document = copy.deepcopy(document)
        _lift_closed(document)
    return fastjsonschema.compile(document)


def _lift_closed(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("additionalProperties") is False:
            del node["additionalProperties"]
        for value in node.values():
            _lift_closed(value)
    elif isinstance(node, list):
        for value in node:
            _lift_closed(value)


def parse_version(text: str) -> tuple[int, ...] | None:
    """``"0.2.0"`` -> ``(0, 2, 0)``; None for what is not dotted numbers."""
    parts = text.split(".")
    if not all(part.isdigit() for part in parts) or not text:
        return None
    return tuple(int(part) for part in parts)


def is_newer(version: tuple[int, ...]) -> bool:
    """Whether a file of ``version`` follows a schema newer than the vendored one."""
    return version > KNOWN_VERSION


def violations(plain_doc: Any, lenient: bool) -> list[tuple[str, str]]:
    """(JSON Pointer, message) for the first way a document breaks the schema, if any.
    ``plain_doc`` is the document as Python's own reader makes it (numbers as int and
    float, which the compiled validator types)."""
    try:
        _validator(lenient)(plain_doc)
    except fastjsonschema.JsonSchemaValueException as exc:
        where = pointer(*exc.path[1:])  # the path starts at the document, named "data"
        message = exc.message.removeprefix(f"{exc.name} ")
        if len(message) > 200:  # it may quote the offending value, a whole object
            message = message[:197] + "..."
        return [(where, f"does not conform to the schema: {message}")]
    return []


def unknown_fields(doc: Any) -> list[str]:
    """The places ``doc`` has keys the schema does not describe, as pointer patterns with
    ``*`` for array indices (``/evaluation_results/*/eval_library``), each once."""
    found: dict[str, None] = {}
    for where in _unknown(doc, schema(), ""):
        found.setdefault(where)
    return list(found)


def _unknown(value: Any, node: dict[str, Any], where: str) -> Iterator[str]:
    if node.get("$ref") == _FREE:
        return
    node = _resolve(node)
    if "oneOf" in node and isinstance(value, dict):
        node = _branch(node["oneOf"], value)
    if isinstance(value, dict) and "properties" in node:
        known = node["properties"]
        for key, item in value.items():
            if key in known:
                yield from _unknown(item, known[key], child(where, key))
            else:
                yield child(where, key)
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for item in value:
            yield from _unknown(item, node["items"], child(where, "*"))


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return node
    return schema()["$defs"][ref.removeprefix("#/$defs/")]


def _branch(choices: list[dict[str, Any]], value: dict[str, Any]) -> dict[str, Any]:
    """The ``oneOf`` choice a value takes: the one whose ``source_type`` constant it has."""
    resolved = [_resolve(c) for c in choices]
    for choice in resolved:
        const = choice.get("properties", {}).get("source_type", {}).get("const")
        if const is not None and value.get("source_type") == const:
            return choice
    return resolved[0]


__all__ = ["KNOWN_VERSION", "is_newer", "parse_version", "schema", "unknown_fields", "violations"]
