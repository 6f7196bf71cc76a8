"""Finding and reading data files: YAML, every scalar kept as the string it was written as.

YAML's implicit typing would turn ``11.50`` into ``11.5`` and ``no`` into ``False``;
here every scalar stays a string and the mapping types it.  The reader is also the
first line of defence against hostile files: it refuses aliases (no "billion
laughs"), explicit tags (no object construction), duplicate keys, several documents,
deep nesting, oversized files and bytes that are not UTF-8.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import InvalidDataError, Problem, UsageError
from ..kinds import FILE_KINDS, UPSTREAM_DIRECTORIES
from .upstream.jsondoc import MAX_JSON_BYTES
from .upstream.kept import KeptFile, NotKept, read_kept
from .yamltext import YamlError, parse_yaml

SUFFIXES = (".yaml", ".yml")
#: Kept upstream files (under a data directory's upstream/ folder only).
UPSTREAM_SUFFIX = ".json"
MAX_FILE_BYTES = 1_000_000
#: An import record lists every model and benchmark of its files: it may be larger (a
#: million Every Eval Ever results name about 141,000 models: 19.3 MB).
MAX_IMPORT_BYTES = 64_000_000


def size_limit(path: Path) -> int:
    """The most a data file at ``path`` may hold (a larger one is refused unread): a kept
    upstream file's, an import record's (under ``imports/``), or any other's."""
    if path.suffix == UPSTREAM_SUFFIX:
        return MAX_JSON_BYTES
    return MAX_IMPORT_BYTES if path.parent.name == "imports" else MAX_FILE_BYTES


class ManifestEntry(NamedTuple):
    """Which file a data graph was loaded from, and what that file was then.

    A named tuple: a store of 100,000 records reads 100,000 of these on every reload.
    """

    file: str
    sha256: str
    size: int = -1
    mtime_ns: int = -1
    #: The triples the graph holds (-1: not recorded, in a manifest written before this
    #: was; the next load counts them): what the statistics of a version are summed from.
    triples: int = -1
    #: Whether the graph is named like the node it describes (it types its own name): a
    #: node's graph, not another graph of a file (an import record's lists).
    node: bool = True
    #: The graph's links to other sites, as kg.rdf.linksets counts them (None: not
    #: recorded, in a manifest written before this was; the next load counts them).
    links: str | None = None


@dataclass(frozen=True)
class DataFile:
    """One data file read into plain Python: dicts, lists and strings only."""

    path: Path
    name: str  # how messages name the file
    kind: str
    content: dict[str, Any]
    #: For a kept upstream file: what it is (its import, format, paths, hash) and its
    #: checked document (``content`` is then that document).
    upstream: KeptFile | None = None

    @property
    def label(self) -> str:
        """``record <id>`` (or just the kind while the id is missing); "" for a kept
        upstream file, whose problems are named by record or by JSON Pointer."""
        if self.upstream is not None:
            return ""
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
            absolute = os.path.abspath(path)
            _scan(absolute, found, _in_upstream(absolute))
        elif path.is_file():
            kept = _in_upstream(os.path.abspath(path))
            if path.suffix not in ((UPSTREAM_SUFFIX,) if kept else SUFFIXES):
                raise UsageError(
                    f"{path}: not a data file (expected .yaml or .yml; JSON "
                    "files are read where kg import keeps them, under "
                    "<data>/upstream/)"
                )
            stat = os.stat(path)
            found[os.path.abspath(path)] = (stat.st_size, stat.st_mtime_ns)
        else:
            raise UsageError(f"{path}: no such file or directory")
    return found


def _in_upstream(path: str) -> bool:
    """Whether ``path`` lies in an upstream folder (kept files: JSON, not YAML)."""
    return any(part in UPSTREAM_DIRECTORIES for part in Path(path).parts[1:])


def _scan(folder: str, found: dict[str, tuple[int, int]], upstream: bool) -> None:
    # In an upstream folder only the kept JSON files count (an origin's own YAML is
    # evidence, not data); elsewhere only YAML. Folders named like files (x.json/) are
    # folders: the scan descends into them.
    suffixes = (UPSTREAM_SUFFIX,) if upstream else SUFFIXES
    with os.scandir(folder) as entries:
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                _scan(entry.path, found, upstream or name in UPSTREAM_DIRECTORIES)
            elif name.endswith(suffixes) and entry.is_file():
                stat = entry.stat()
                found[entry.path] = (stat.st_size, stat.st_mtime_ns)


def display_name(path: Path) -> str:
    """The path relative to the working directory where possible, as users typed it."""
    # Without resolving first: resolve() stats every component, and a load names 100k files.
    prefix = os.path.join(os.getcwd(), "")
    absolute = os.path.abspath(path)
    if absolute.startswith(prefix) and absolute != prefix and not os.path.islink(absolute):
        return absolute[len(prefix) :]
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

    upstream = path.suffix == UPSTREAM_SUFFIX
    limit = size_limit(path)
    try:
        size = len(raw) if raw is not None else path.stat().st_size
        if size > limit:
            raise fail(
                f"file is too large ({size / 1e6:.1f} MB; a data file may hold at most "
                f"{limit / 1e6:.0f} MB)"
            )
        if raw is None:
            raw = path.read_bytes()
    except OSError as exc:
        raise fail(f"cannot read file ({exc.strerror})") from None
    if upstream:
        return _read_kept(path, name, raw, fail)
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


def _read_kept(path: Path, name: str, raw: bytes, fail) -> DataFile:
    """A kept upstream file: its document and every problem found in it, by JSON Pointer."""
    try:
        kept = read_kept(path, raw)
    except NotKept as exc:
        raise fail(str(exc)) from None
    if not kept.ok:
        raise InvalidDataError(kept.problems(name))
    return DataFile(path=path, name=name, kind="upstream", content=kept.checked.doc, upstream=kept)
