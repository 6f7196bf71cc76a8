"""YAML with every scalar kept as the string it was written as, read defensively.

YAML's implicit typing would turn ``11.50`` into ``11.5`` and ``no`` into ``False``;
here every scalar stays a string and the mapping types it. The reader refuses aliases
(no "billion laughs"), explicit tags (no object construction), duplicate keys, several
documents and deep nesting, as their events arrive.
"""

from __future__ import annotations

import re
from typing import IO, Any

import yaml

MAX_DEPTH = 12


class YamlError(yaml.YAMLError):
    """Why a text is not a YAML data file, and the field being read when it was refused
    (``reviews[0].methods``; empty at the top level), so that the message names it whether
    our reader refused the file or PyYAML's parser did."""

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.message, self.field = message, field


_SCALAR, _SEQUENCE, _MAPPING = (f"tag:yaml.org,2002:{t}" for t in ("str", "seq", "map"))
# What YAML allows as raw text; an escape in a double-quoted string ("\0", "\x1b") could
# bring in anything else, and nothing else belongs in a data value.
_NOT_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
# libyaml's parser when PyYAML was built with it (about ten times faster).
_Loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)


def parse_yaml(text: str) -> Any:
    """Parse one YAML document into dicts, lists and strings.

    Built from the parser's events with an explicit stack, never by PyYAML's composer:
    the composer recurses once per level of nesting (in C for libyaml), so a file of a
    few hundred kilobytes of ``[`` crashes the process. Aliases, explicit tags,
    duplicate or non-string keys and nesting deeper than ``MAX_DEPTH`` are refused as
    their events arrive, before anything behind them is read.

    :raises YamlError: on syntax errors and on anything refused (see module docs), with
        the field being read.
    """
    loader = _Loader(text)
    try:
        loader.get_event()  # stream start
        if loader.check_event(yaml.StreamEndEvent):
            return None
        loader.get_event()  # document start
        value = _document(loader)
        loader.get_event()  # document end
        event = loader.get_event()
        if not isinstance(event, yaml.StreamEndEvent):
            raise _refuse("a data file holds one YAML document (found another)", event)
        return value
    except YamlError:
        raise
    except yaml.YAMLError as exc:
        raise YamlError(_yaml_message(exc)) from None
    finally:
        loader.dispose()


def _refuse(problem: str, event: yaml.Event) -> yaml.MarkedYAMLError:
    # The stubs take only yaml.error.Mark; libyaml's events carry yaml._yaml.Mark, which
    # PyYAML's own C parser puts in its errors too (same fields).
    mark = event.start_mark
    return yaml.MarkedYAMLError(problem=problem, problem_mark=mark)  # type: ignore[arg-type]


def _document(loader: Any) -> Any:
    """The value of one document, from its events (the document start already read)."""
    root: list[Any] = []
    stack: list[Any] = [root]  # the containers being filled, innermost last
    keys: list[str | None] = [None]  # for a mapping: the key waiting for its value
    try:
        return _fill(loader, stack, keys)
    except yaml.YAMLError as exc:  # ours or the parser's, at the place being read
        raise YamlError(_yaml_message(exc), _field(stack, keys)) from None


def _fill(loader: Any, stack: list[Any], keys: list[str | None]) -> Any:
    root = stack[0]
    value: str | list[Any] | dict[str, Any]
    while True:
        event = loader.get_event()
        if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            stack.pop()
            keys.pop()
            if len(stack) == 1:
                return root[0]
            continue
        if isinstance(event, yaml.AliasEvent):
            raise _refuse("aliases (*name) are not allowed in data files", event)
        if isinstance(event, yaml.ScalarEvent):
            tag, value = _SCALAR, event.value
            if event.style == '"' and (bad := _NOT_PRINTABLE.search(value)):
                raise _refuse(f"control character U+{ord(bad.group()):04X} is not allowed", event)
        elif isinstance(event, yaml.SequenceStartEvent):
            tag, value = _SEQUENCE, []
        else:
            tag, value = _MAPPING, {}
        if event.tag not in (None, "!", tag):
            raise _refuse(f"YAML tags ({event.tag}) are not allowed in data files", event)
        container = stack[-1]
        if type(container) is dict:
            key = keys[-1]
            if key is None:  # this event is a key
                if not isinstance(value, str):  # a scalar's value is its text
                    raise _refuse("keys must be plain strings", event)
                if value in container:
                    raise _refuse(f"duplicate key {value!r}", event)
                keys[-1] = value
                continue
        if tag != _SCALAR and len(stack) > MAX_DEPTH + 1:
            raise _refuse(f"nested deeper than {MAX_DEPTH} levels", event)
        if type(container) is dict:
            container[key] = value
            keys[-1] = None
        else:
            container.append(value)
        if tag != _SCALAR:
            stack.append(value)
            keys.append(None)
        elif len(stack) == 1:
            return root[0]


def _field(stack: list[Any], keys: list[str | None]) -> str:
    """The YAML path of what was being read (``reviews[0].methods``), from the containers
    still open: each open one is the last value placed in the one around it."""
    steps: list[str | int] = []
    for outer in stack[1:-1]:
        steps.append(next(reversed(outer)) if type(outer) is dict else len(outer) - 1)
    if len(stack) > 1:
        inner = stack[-1]
        if type(inner) is not dict:
            steps.append(len(inner))
        elif keys[-1] is not None:
            steps.append(keys[-1])
    return "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps).lstrip(".")


def _yaml_message(exc: yaml.YAMLError) -> str:
    if isinstance(exc, yaml.reader.ReaderError):
        char = exc.character
        code = char if isinstance(char, int) else ord(char[:1] or "\0")
        return f"YAML error: character U+{code:04X} at position {exc.position} is not allowed"
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    return f"YAML error: {where}{problem}"


#: libyaml's emitter where PyYAML was built with it: the same text as the pure-Python one
#: (527 review and data files compared byte for byte) in a fifth of the time, which is most
#: of ``kg verify --all`` over thousands of files.
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump_yaml(document: Any, stream: IO[str] | None = None) -> str | None:
    """A data file's text: keys in the order given, Unicode as it is, every scalar as the
    caller made it (data files are written with strings, as they are read); written to
    ``stream`` when one is given."""
    return yaml.dump(
        document, stream, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=100
    )
