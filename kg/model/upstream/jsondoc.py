"""JSON as the registry keeps it: numbers as they were written, places named by JSON Pointer.

An upstream file is evidence: ``0.3303`` must stay "0.3303", ``1e-05`` must stay "1e-05"
and ``355`` must not become ``355.0``. Numbers are read as :class:`JsonNumber`, a
``Decimal`` (exact, comparable, a number to JSON Schema) that remembers its lexeme; NaN
and the infinities, which JSON does not have but Python's reader accepts, are read as
:class:`NonFinite` so that they can be refused by name. A place in a document is an RFC
6901 JSON Pointer (``/evaluation_results/2/score_details/score``).

>>> doc = loads(b'{"a": [0.3303, 1e-05, 355]}')
>>> [n.lexeme for n in doc["a"]]
['0.3303', '1e-05', '355']
>>> dumps(doc)
'{"a":[0.3303,1e-05,355]}'
>>> pointer("a", 2), resolve(doc, "/a/2").lexeme
('/a/2', '355')
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from json.encoder import encode_basestring  # the C encoder of one string, as json.dumps has
from typing import Any

#: The largest upstream file read (the largest of Every Eval Ever's snapshot is 110 kB).
MAX_JSON_BYTES = 16_000_000


class JsonNumber(Decimal):
    """A JSON number: its exact value, and its lexeme as written (``lexeme``)."""

    lexeme: str

    def __new__(cls, lexeme: str) -> JsonNumber:
        number = super().__new__(cls, lexeme)
        number.lexeme = lexeme
        return number

    @property
    def is_integral(self) -> bool:
        """Written without a fraction or an exponent (what JSON Schema's "integer" reads
        as written: ``355``, not ``355.0``)."""
        return not any(c in self.lexeme for c in ".eE")

    def decimal_lexeme(self) -> str:
        """The value as an ``xsd:decimal`` lexeme, without an exponent: ``1e-05`` ->
        ``0.00001``; a lexeme without an exponent stays as it was written."""
        if "e" not in self.lexeme and "E" not in self.lexeme:
            return self.lexeme
        return format(Decimal(self.lexeme), "f")


class NonFinite(str):
    """``NaN``, ``Infinity`` or ``-Infinity``, which Python's reader accepts and JSON does not."""


class DuplicateKeys(dict):
    """An object that names a key twice: the reader keeps the last value (as JSON readers do)
    and remembers the keys, so that the file can be refused for it."""

    duplicates: list[str]


class JsonSyntaxError(ValueError):
    """Bytes that are not one JSON document."""


def loads(raw: bytes, odd: list[Any] | None = None) -> Any:
    """One JSON document, numbers as :class:`JsonNumber`. ``odd``, where given, receives
    each :class:`NonFinite` and :class:`DuplicateKeys` read (none: no need to look for them).

    :raises JsonSyntaxError: for bytes that are not UTF-8 JSON (a message with the line
        and column).
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raise JsonSyntaxError("starts with a byte-order mark (JSON text is UTF-8 without one)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonSyntaxError(f"not UTF-8 (undecodable byte at offset {exc.start})") from None
    if not text.strip():
        raise JsonSyntaxError("the file is empty")

    def constant(name: str) -> NonFinite:
        value = NonFinite(name)
        if odd is not None:
            odd.append(value)
        return value

    def obj(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        value = _object(pairs)
        if odd is not None and type(value) is DuplicateKeys:
            odd.append(value)
        return value

    try:
        return json.loads(
            text,
            parse_float=JsonNumber,
            parse_int=JsonNumber,
            parse_constant=constant,
            object_pairs_hook=obj,
        )
    except json.JSONDecodeError as exc:
        where = "at the end" if exc.pos >= len(text) else (f"line {exc.lineno}, column {exc.colno}")
        raise JsonSyntaxError(f"not valid JSON ({where}: {exc.msg})") from None
    except RecursionError:
        raise JsonSyntaxError("not readable JSON: nested too deeply") from None


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) == len(pairs):
        return result
    seen: set[str] = set()
    twice = [key for key, _ in pairs if key in seen or seen.add(key)]  # type: ignore[func-returns-value]
    marked = DuplicateKeys(result)
    marked.duplicates = list(dict.fromkeys(twice))
    return marked


def escape(token: str | int) -> str:
    """One reference token of a JSON Pointer (RFC 6901: ``~`` as ``~0``, ``/`` as ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(*tokens: str | int) -> str:
    """The JSON Pointer of a place reached by ``tokens`` (keys and array indices)."""
    return "".join("/" + escape(token) for token in tokens)


def child(parent: str, token: str | int) -> str:
    """The pointer of ``token`` under the place ``parent`` points at."""
    return parent + "/" + escape(token)


def resolve(doc: Any, where: str) -> Any:
    """The value the JSON Pointer ``where`` points at in ``doc``.

    :raises KeyError: naming the first token that does not resolve.
    """
    if where == "":
        return doc
    if not where.startswith("/"):
        raise KeyError(f"{where!r} is not a JSON Pointer (it must start with '/')")
    value = doc
    for raw in where[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif (
            isinstance(value, list)
            and token.isdigit()
            and (token == "0" or token[0] != "0")
            and int(token) < len(value)
        ):
            value = value[int(token)]
        else:
            raise KeyError(f"nothing at {token!r}")
    return value


def walk(value: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    """Every value in a document with its pointer, parents before children."""
    stack = [(where, value)]
    while stack:
        here, item = stack.pop()
        yield here, item
        if isinstance(item, dict):
            stack.extend((child(here, k), v) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((child(here, i), v) for i, v in reversed(list(enumerate(item))))


def dumps(value: Any, indent: int | None = None) -> str:
    """JSON of ``value`` (compact, or indented by ``indent`` spaces), every
    :class:`JsonNumber` written as its lexeme."""
    parts: list[str] = []
    _write(value, parts.append, indent, 0)
    return "".join(parts)


def _write(value: Any, out, indent: int | None, depth: int) -> None:
    if isinstance(value, JsonNumber):
        out(value.lexeme)
    elif isinstance(value, (dict, list)) and value:
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        out("{" if isinstance(value, dict) else "[")
        inner = "" if indent is None else "\n" + " " * (indent * (depth + 1))
        for i, (key, item) in enumerate(items):
            out(("," if i else "") + inner)
            if isinstance(value, dict):
                out(encode_basestring(key) + (":" if indent is None else ": "))
            _write(item, out, indent, depth + 1)
        out(
            ("" if indent is None else "\n" + " " * (indent * depth))
            + ("}" if isinstance(value, dict) else "]")
        )
    elif isinstance(value, dict):
        out("{}")
    elif isinstance(value, list):
        out("[]")
    elif isinstance(value, str):
        out(encode_basestring(value))
    else:  # booleans, null, and plain Python numbers of documents we build
        out(json.dumps(value))


def plain(value: Any) -> Any:
    """The document with Python's own numbers (``int`` where written as an integer, else
    ``float``): what JSON readers elsewhere (and comparisons in tests) make of it."""
    if isinstance(value, JsonNumber):
        return int(value.lexeme) if value.is_integral else float(value.lexeme)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value
