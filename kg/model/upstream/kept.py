"""Kept upstream files: where they lie, which import kept them, and reading one.

``kg import`` keeps the files of an origin repository byte for byte at their paths in it::

    data/imports/<import>.yaml                       the import record (kind: import)
    data/upstream/<import>/<path in the origin>      each kept file (data/.../x.json)
    data/upstream/<import>/LICENSE                   the origin's licence text

A kept file's format is its import's (the record says it), so reading one reads the
import record too (once per process and version of the record).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import Problem
from ..yamltext import parse_yaml
from .format import Checked

#: The folder of a data directory that holds the kept files, and the one of import records.
UPSTREAM, IMPORTS = "upstream", "imports"


@dataclass(frozen=True)
class KeptFile:
    """One kept upstream file, read and checked."""

    #: The import that kept it (its record: ``imports/<import>.yaml``).
    import_name: str
    format: str
    #: Its path in the origin repository (``data/hfopenllm_v2/.../x.json``).
    upstream_path: str
    #: Its path relative to the data directory (``upstream/<import>/<upstream path>``).
    kept_path: str
    sha256: str
    size: int
    checked: Checked
    #: The SHA-256 its import record pins for it ("" where the record pins none).
    pinned: str = ""
    #: The agent of its import, as the import record names it ("" where it names none):
    #: its records are attributed to it (docs/links.md).
    agent: str = ""

    def problems(self, name: str) -> list[Problem]:
        """The file's problems as the file ``name``'s, each labelled with the record (or
        evaluation) it belongs to."""
        from .formats import get  # the formats build on the model: found when used

        doc, label = self.checked.doc, get(self.format).label
        problems = [
            Problem(
                name,
                label(self.import_name, self.upstream_path, doc, where) if doc is not None else "",
                where,
                message,
            )
            for where, message in self.checked.problems
        ]
        if self.pinned != self.sha256:
            problems.append(
                Problem(
                    name,
                    "",
                    "",
                    (
                        f"not the file the import kept: its SHA-256 is {self.sha256}, the import "
                        f"record {IMPORTS}/{self.import_name}.yaml pins {self.pinned}"
                        if self.pinned
                        else f"the import record {IMPORTS}/{self.import_name}.yaml does not "
                        "list this file"
                    )
                    + " (run kg import again, or put the kept file back)",
                )
            )
        return problems

    @property
    def ok(self) -> bool:
        """Valid, and the very bytes its import kept."""
        return self.checked.ok and self.pinned == self.sha256


class NotKept(ValueError):
    """A JSON file that is not where an import keeps files (or whose import has no record)."""


def locate(path: Path) -> tuple[Path, str, str]:
    """(data directory, import name, path in the origin) of a file under ``upstream/``:
    the data directory is the nearest folder above it holding ``upstream/`` and
    ``imports/``.

    :raises NotKept: naming what is missing.
    """
    absolute = Path(os.path.abspath(path))
    parts = absolute.parts
    for i in range(len(parts) - 3, 0, -1):
        if parts[i] == UPSTREAM and Path(*parts[:i], IMPORTS).is_dir():
            return Path(*parts[:i]), parts[i + 1], "/".join(parts[i + 2 :])
    raise NotKept(
        "not a kept upstream file (kg import keeps them under "
        "<data>/upstream/<import>/, beside <data>/imports/<import>.yaml)"
    )


def import_record(data: Path, name: str) -> tuple[str, dict[str, str] | None, str]:
    """The format of the import ``name`` of the data directory ``data``, the SHA-256 it
    pins for each kept file (None for a record that pins none) and its agent ("" if none).

    :raises NotKept: when the import has no record, or the record names no known format.
    """
    record = data / IMPORTS / f"{name}.yaml"
    try:
        stat = record.stat()
    except OSError:
        raise NotKept(
            f"no import record {IMPORTS}/{name}.yaml for the files kept under "
            f"{UPSTREAM}/{name}/ (kg import writes both)"
        ) from None
    from .formats import names  # the formats build on the model: found when used

    fmt, pins, agent = _read_record(str(record), stat.st_mtime_ns, stat.st_size)
    if fmt not in names():
        raise NotKept(
            f"the import record {IMPORTS}/{name}.yaml names no known format "
            f"({fmt!r}; known: {', '.join(names())})"
        )
    return fmt, pins, agent


@lru_cache(maxsize=8)
def _read_record(record: str, _mtime_ns: int, _size: int) -> tuple[Any, dict[str, str] | None, str]:
    """An import record's format, pins and agent, read once per version of the file."""
    try:
        content = parse_yaml(Path(record).read_text(encoding="utf-8"))
    except Exception:  # the record's own problems are reported when it is read as data
        return None, None, ""
    if not isinstance(content, dict):
        return None, None, ""
    kept = content.get("kept")
    pins = None
    if isinstance(kept, list):
        pins = {}
        for line in kept:
            sha, _, path = line.partition("  ") if isinstance(line, str) else ("", "", "")
            pins[path] = sha
    agent = content.get("agent")
    return content.get("format"), pins, agent if isinstance(agent, str) else ""


def read_kept(path: Path, raw: bytes) -> KeptFile:
    """Read and check one kept file whose bytes are ``raw``.

    :raises NotKept: when it is not a kept file of a known import.
    """
    from .formats import get  # the formats build on the model: found when used

    data, name, upstream_path = locate(path)
    fmt, pins, agent = import_record(data, name)
    sha = hashlib.sha256(raw).hexdigest()
    pinned = sha if pins is None else pins.get(upstream_path, "")
    return KeptFile(
        name,
        fmt,
        upstream_path,
        f"{UPSTREAM}/{name}/{upstream_path}",
        sha,
        len(raw),
        get(fmt).check(raw),
        pinned,
        agent,
    )
