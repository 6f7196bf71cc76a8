"""What an import does to the files it kept before: add, replace, keep, and (only when
asked) remove; and the origin commit each kept file is at afterwards.

An import adds and replaces. A file kept before that the sources do not hold stays, with
its records and its commit (the sources may be one folder of the origin, beside what is
there); ``prune`` removes such files instead (the sources are a whole newer snapshot).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..model.upstream.sources import Incoming


@dataclass(frozen=True)
class FileChange:
    """One kept file an import adds, replaces, removes or keeps, and its records."""

    path: str  # in the origin
    records: int  # the records it makes (a removed file: made)
    before: int | None = None  # a replaced file: the records it made before


@dataclass
class Plan:
    """The kept files by what the import does to them (paths in the origin, sorted)."""

    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # prune only
    kept: list[str] = field(default_factory=list)  # not in the sources, kept (no prune)


def kept_files(folder: Path) -> dict[str, str]:
    """The files the import keeps now: upstream path -> SHA-256."""
    if not folder.is_dir():
        return {}
    found = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for filename in filenames:
            if filename.endswith(".json") and not filename.startswith("."):
                path = Path(dirpath, filename)
                found[path.relative_to(folder).as_posix()] = hashlib.sha256(
                    path.read_bytes()
                ).hexdigest()
    return found


def compare(good: dict[str, Incoming], kept: dict[str, str], prune: bool) -> Plan:
    """Compare the sources' valid files ``good`` with the ``kept`` ones (path -> SHA-256)."""
    planned = Plan()
    for path, item in sorted(good.items()):
        old = kept.get(path)
        (
            planned.new
            if old is None
            else planned.unchanged
            if old == item.sha256
            else planned.changed
        ).append(path)
    for path in sorted(kept):
        if path not in good:
            (planned.removed if prune else planned.kept).append(path)
    return planned


def file_commits(planned: Plan, commit: str, before: dict[str, str]) -> dict[str, str]:
    """Each kept file's origin commit once the import is done ("" not known), from the
    sources' ``commit`` and the commits the files had ``before``: a file of the sources is
    at theirs; an unchanged one, where the import was not told its commit, keeps the one
    its bytes had; a file kept from before and not in the sources keeps its own."""
    commits = dict.fromkeys(planned.new + planned.changed, commit)
    commits.update({p: commit or before.get(p, "") for p in planned.unchanged})
    commits.update({p: before.get(p, "") for p in planned.kept})
    return commits
