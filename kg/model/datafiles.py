"""Finding and reading data files: YAML, every scalar kept as the string it was written as.

YAML's implicit typing would turn ``11.50`` into ``11.5`` and ``no`` into ``False``;
here every scalar stays a string and the mapping types it.  The reader is also the
first line of defence against hostile files: it refuses aliases (no "billion
laughs"), explicit tags (no object construction), duplicate keys, several documents,
deep nesting, oversized files and bytes that are not UTF-8.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from ..errors import InvalidDataError, Problem, UsageError
from ..kinds import FILE_KINDS

SUFFIXES = (".yaml", ".yml")
MAX_FILE_BYTES = 1_000_000
MAX_DEPTH = 12


class ManifestEntry(NamedTuple):
    """Which file a data graph was loaded from, and what that file was then.

    A named tuple: a store of 100,000 records reads 100,000 of these on every reload.
    """

    file: str
    sha256: str
    size: int = -1
    mtime_ns: int = -1


@dataclass(frozen=True)
class DataFile:
    """One data file read into plain Python: dicts, lists and strings only."""

    path: Path
    name: str  # how messages name the file
    kind: str
    content: dict[str, Any]

    @property
    def label(self) -> str:
        """``record <id>`` (or just the kind while the id is missing)."""
        ident = self.content.get("id")
        return f"{self.kind} {ident}" if isinstance(ident, str) and ident else self.kind


def find_data_files(paths: Iterable[Path]) -> list[Path]:
    """Every data file at or under ``paths``, sorted, each once (hidden files and folders
    skipped).

    :raises UsageError: when a path does not exist or names a non-YAML file.
    """
    return [Path(found) for found in sorted(scan_data_files(paths))]


def scan_data_files(paths: Iterable[Path]) -> dict[str, tuple[int, int]]:
    """Like :func:`find_data_files`: each file's absolute path, with its size and
    modification time (nanoseconds) from the same directory scan, in no order. A reload
    compares them with the load manifest; at 100,000 files the stat calls are most of
    its time, so nothing else is done per file here.

    :raises UsageError: when a path does not exist or names a non-YAML file.
    """
    found: dict[str, tuple[int, int]] = {}
    for path in paths:
        if path.is_dir():
            _scan(os.path.abspath(path), found)
        elif path.is_file():
            if path.suffix not in SUFFIXES:
                raise UsageError(f"{path}: not a data file (expected .yaml or .yml)")
            stat = os.stat(path)
            found[os.path.abspath(path)] = (stat.st_size, stat.st_mtime_ns)
        else:
            raise UsageError(f"{path}: no such file or directory")
    return found


def _scan(folder: str, found: dict[str, tuple[int, int]]) -> None:
    with os.scandir(folder) as entries:
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                _scan(entry.path, found)
            elif name.endswith(SUFFIXES) and entry.is_file():
                stat = entry.stat()
                found[entry.path] = (stat.st_size, stat.st_mtime_ns)


def display_name(path: Path) -> str:
    """The path relative to the working directory where possible, as users typed it."""
    # Without resolving first: resolve() stats every component, and a load names 100k files.
    prefix = os.path.join(os.getcwd(), "")
    absolute = os.path.abspath(path)
    if absolute.startswith(prefix) and absolute != prefix and not os.path.islink(absolute):
        return absolute[len(prefix):]
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def read_data_file(path: Path, raw: bytes | None = None) -> DataFile:
    """Read one data file (``raw``: its bytes, when the caller has read them already).

    :raises InvalidDataError: naming the file, when it cannot be read as a data file.
    """
    name = display_name(path)

    def fail(message: str, field: str = "") -> InvalidDataError:
        return InvalidDataError([Problem(name, "", field, message)])

    try:
        size = len(raw) if raw is not None else path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise fail(
                f"file is too large ({size / 1e6:.1f} MB; a data file may hold at most "
                f"{MAX_FILE_BYTES / 1e6:.0f} MB)"
            )
        if raw is None:
            raw = path.read_bytes()
    except OSError as exc:
        raise fail(f"cannot read file ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(f"not UTF-8 text (undecodable byte at offset {exc.start})") from None
    if not text.strip():
        raise fail("file is empty")
    try:
        content = parse_yaml(text)
    except YamlError as exc:
        raise fail(exc.message, exc.field) from None
    if content is None:
        raise fail("file is empty (it holds only comments)")
    if not isinstance(content, dict):
        raise fail("the file must be a YAML mapping of keys to values")
    kind = content.get("kind")
    if kind is None:
        raise fail("missing 'kind' (one of: " + ", ".join(FILE_KINDS) + ")", "kind")
    if kind not in FILE_KINDS:
        raise fail(f"unknown kind {kind!r} (one of: " + ", ".join(FILE_KINDS) + ")", "kind")
    return DataFile(path=path, name=name, kind=kind, content=content)


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
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
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
    return yaml.MarkedYAMLError(problem=problem, problem_mark=event.start_mark)


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
                if tag != _SCALAR:
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
