"""An upstream file's JSON as a reader sees it on a record page: nested lists of names and
values, not raw JSON. Numbers keep the lexeme the file writes (``1e-05`` stays ``1e-05``),
strings are shown as text, and ``null``, ``true`` and ``false`` as JSON writes them.

>>> from kg.model.upstream.jsondoc import loads
>>> [(i.name, i.text) for i in outline(loads(b'{"a": 1e-05, "b": [true, null]}'))]
[('a', '1e-05'), ('b', '')]
>>> [(i.name, i.text) for i in outline(loads(b'{"b": [true, null]}'))[0].items]
[('1', 'true'), ('2', 'null')]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model.upstream.jsondoc import JsonNumber, JsonSyntaxError, loads


@dataclass(frozen=True)
class OutlineItem:
    """One name (an object's key, or an array's place from 1) and its value: ``text`` for a
    single value, else ``items`` (an object's or an array's, ``kind`` saying which)."""

    name: str
    text: str = ""
    kind: str = "value"  # "value", "object" or "array"
    items: list[OutlineItem] = field(default_factory=list)
    #: a value that is not a string (a number, true, false, null): shown as code
    literal: bool = False


def outline(value: Any) -> list[OutlineItem]:
    """The items of a JSON object or array (a single value: one item named "")."""
    if isinstance(value, dict):
        return [_item(str(k), v) for k, v in value.items()]
    if isinstance(value, list):
        return [_item(str(n), v) for n, v in enumerate(value, start=1)]
    return [_item("", value)]


def outline_text(raw: str) -> list[OutlineItem]:
    """The outline of JSON text (none where it is empty; the text itself as one value where
    it is not JSON)."""
    if not raw:
        return []
    try:
        return outline(loads(raw.encode()))
    except JsonSyntaxError:
        return [OutlineItem("", raw)]


def _item(name: str, value: Any) -> OutlineItem:
    if isinstance(value, dict):
        return OutlineItem(name, kind="object", items=outline(value))
    if isinstance(value, list):
        return OutlineItem(name, kind="array", items=outline(value))
    if isinstance(value, str):
        return OutlineItem(name, value)
    if isinstance(value, JsonNumber):
        return OutlineItem(name, value.lexeme, literal=True)
    if value is None:
        return OutlineItem(name, "null", literal=True)
    if isinstance(value, bool):
        return OutlineItem(name, "true" if value else "false", literal=True)
    return OutlineItem(name, str(value), literal=True)
