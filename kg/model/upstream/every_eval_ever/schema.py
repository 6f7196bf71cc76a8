"""Every Eval Ever's JSON Schemas, one per version claimgraph knows.

0.2.0 and 0.3.0 are vendored in ``schemas/every-eval-ever/`` as published. 0.2.2, whose
schema is not here, is derived from 0.2.0 in code (:func:`_derive_0_2_2`): 0.2.0 plus the
fields 0.2.2 is known to add (``eval_library``, ``source_metadata.additional_details``,
defined as 0.3.0 defines them). A file is held to the schema of its version (:func:`rule`):
a version older than 0.2.0 to 0.2.0; a version with a complete schema (0.2.0, 0.3.0)
strictly; any other (0.2.2, whose schema is known only in part, and versions between or
after the known ones) to the newest known schema at or below it with every
``additionalProperties: false`` lifted: what that schema knows must still be right, what it
does not know is allowed, kept in the file and in the records' upstream remainder, and
counted (:func:`unknown_fields`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import fastjsonschema

from ....resources import resource_dir
from ..jsondoc import child, pointer

Version = tuple[int, ...]
#: The versions whose schemas claimgraph knows, oldest first, and the vendored files.
VENDORED: dict[Version, str] = {(0, 2, 0): "eval.schema.json", (0, 3, 0): "eval.schema-0.3.0.json"}
DERIVED: Version = (0, 2, 2)
KNOWN: tuple[Version, ...] = tuple(sorted((*VENDORED, DERIVED)))
#: The oldest known version (older files are held to it, strictly) and the newest.
OLDEST, NEWEST = KNOWN[0], KNOWN[-1]
#: Objects whose keys are free by design (0.2.0's ``details``, ``additional_details``):
#: their keys are never unknown fields. 0.3.0 says the same by a schema for the values.
_FREE = "#/$defs/additional_properties_object"


@dataclass(frozen=True)
class Rule:
    """The schema a file is held to: a known version's, strictly or leniently."""

    version: Version
    lenient: bool

    @property
    def name(self) -> str:
        return ".".join(map(str, self.version))


def rule(version: Version | None) -> Rule:
    """The schema a file of ``version`` (None: it gives none) is held to."""
    if version is None or version <= OLDEST:
        return Rule(OLDEST, False)
    held = max(k for k in KNOWN if k <= version)
    return Rule(held, not (version == held and held in VENDORED))


@cache
def schema(version: Version = OLDEST) -> dict[str, Any]:
    """The schema of a known version, parsed (or derived) once."""
    if version == DERIVED:
        return _derive_0_2_2()
    path = resource_dir("schemas") / "every-eval-ever" / VENDORED[version]
    return json.loads(path.read_text(encoding="utf-8"))


def _derive_0_2_2() -> dict[str, Any]:
    """0.2.0 with the two fields 0.2.2 is known to add, as 0.3.0 defines them (optional:
    0.3.0 makes ``eval_library`` required, 0.2.2 is not known to)."""
    derived = copy.deepcopy(schema(OLDEST))
    newer = schema((0, 3, 0))["properties"]
    derived["version"] = ".".join(map(str, DERIVED))
    derived["properties"]["eval_library"] = copy.deepcopy(newer["eval_library"])
    derived["properties"]["source_metadata"]["properties"]["additional_details"] = copy.deepcopy(
        newer["source_metadata"]["properties"]["additional_details"]
    )
    return derived


@cache
def _validator(version: Version, lenient: bool) -> Any:
    """A schema compiled to Python, once per version and leniency (fastjsonschema: about
    ten times faster than an interpreting validator, which cost 9 ms per file of the
    snapshot)."""
    document = schema(version)
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


def parse_version(text: str) -> Version | None:
    """``"0.2.0"`` -> ``(0, 2, 0)``; None for what is not dotted numbers."""
    parts = text.split(".")
    if not all(part.isdigit() for part in parts) or not text:
        return None
    return tuple(int(part) for part in parts)


def violations(plain_doc: Any, held: Rule) -> list[tuple[str, str]]:
    """(JSON Pointer, message) for the first way a document breaks the schema it is held
    to, if any. ``plain_doc`` is the document as Python's own reader makes it (numbers as
    int and float, which the compiled validator types)."""
    try:
        _validator(held.version, held.lenient)(plain_doc)
    except fastjsonschema.JsonSchemaValueException as exc:
        where = pointer(*exc.path[1:])  # the path starts at the document, named "data"
        if exc.rule == "required" and isinstance(exc.value, dict):
            # the place of what is missing, not the object's ("must contain [...]")
            return [
                (child(where, key), f"missing (required by the schema ({held.name}))")
                for key in exc.rule_definition
                if key not in exc.value
            ]
        message = exc.message.removeprefix(f"{exc.name} ")
        if len(message) > 200:  # it may quote the offending value, a whole object
            message = message[:197] + "..."
        return [(where, f"does not conform to the schema ({held.name}): {message}")]
    return []


def allows_unbounded(version: Version) -> bool:
    """Whether a version's ``min_score``/``max_score`` may be ``"Infinity"``, ``"-Infinity"``
    or null (0.3.0: unbounded, not provided), read from its schema."""
    results = schema(version)["properties"]["evaluation_results"]["items"]
    return "oneOf" in results["properties"]["metric_config"]["properties"]["min_score"]


def unknown_fields(doc: Any, version: Version = OLDEST) -> list[str]:
    """The places ``doc`` has keys the schema of ``version`` does not describe, as pointer
    patterns with ``*`` for array indices (``/evaluation_results/*/cost``), each once."""
    root = schema(version)
    found: dict[str, None] = {}
    for where in _unknown(doc, root, "", root):
        found.setdefault(where)
    return list(found)


def _unknown(value: Any, node: dict[str, Any], where: str, root: dict[str, Any]) -> Iterator[str]:
    if node.get("$ref") == _FREE:
        return
    node = _resolve(node, root)
    if isinstance(node.get("additionalProperties"), dict):
        return  # keys free, values typed (0.3.0's string maps)
    if "oneOf" in node and isinstance(value, dict):
        node = _branch(node["oneOf"], value, root)
    if isinstance(value, dict) and "properties" in node:
        known = node["properties"]
        for key, item in value.items():
            if key in known:
                yield from _unknown(item, known[key], child(where, key), root)
            else:
                yield child(where, key)
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for item in value:
            yield from _unknown(item, node["items"], child(where, "*"), root)


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return node
    return root["$defs"][ref.removeprefix("#/$defs/")]


def _branch(choices: list[dict[str, Any]], value: dict[str, Any], root) -> dict[str, Any]:
    """The ``oneOf`` choice a value takes: the one whose ``source_type`` constant it has."""
    resolved = [_resolve(c, root) for c in choices]
    for choice in resolved:
        const = choice.get("properties", {}).get("source_type", {}).get("const")
        if const is not None and value.get("source_type") == const:
            return choice
    return resolved[0]


__all__ = [
    "KNOWN",
    "NEWEST",
    "OLDEST",
    "Rule",
    "allows_unbounded",
    "parse_version",
    "rule",
    "schema",
    "unknown_fields",
    "violations",
]
