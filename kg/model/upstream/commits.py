"""Which commit of the origin repository each kept file was taken at, as its import record
says it (docs/records.md, ``kind: import``).

The record's ``origin.commit`` is the commit most of its kept files are taken at (where
as many are at another, the one of the sources of the import that wrote it); a kept file
taken at another commit (kept from an earlier import, merged from another snapshot, or of
a commit not stated) is listed under ``kept_at_other_commits``, grouped by commit, so the
list is as short as it can be: a folder imported beside a whole snapshot lists the
folder's files. A record written before files had commits of their own lists none: its
one commit is every file's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

#: The import record's key of the files kept at another commit than ``origin.commit``.
OTHER_COMMITS = "kept_at_other_commits"
#: How a group of files whose commit is not known says so (a missing value, its reason).
UNKNOWN_COMMIT = {
    "missing": "unreported",
    "note": "the import that kept these files named no commit (--origin without @COMMIT)",
}


def kept_paths(record: Mapping[str, Any]) -> list[str]:
    """The paths of the kept files an import record lists (its ``kept`` lines)."""
    kept = record.get("kept")
    if not isinstance(kept, list):
        return []
    return [line.partition("  ")[2] for line in kept if isinstance(line, str) and "  " in line]


def origin_commit(record: Mapping[str, Any]) -> str:
    """The commit of the sources of the import that wrote ``record`` ("" not stated)."""
    origin = record.get("origin")
    commit = origin.get("commit") if isinstance(origin, Mapping) else None
    return commit if isinstance(commit, str) else ""


def kept_commits(record: Mapping[str, Any]) -> dict[str, str]:
    """Each kept file's commit ("" where it is not known), by its path in the origin.

    Entries that are not what the record's shape says are passed over: mapping the record
    reports them.
    """
    default = origin_commit(record)
    commits = dict.fromkeys(kept_paths(record), default)
    groups = record.get(OTHER_COMMITS)
    for group in groups if isinstance(groups, list) else []:
        if not isinstance(group, Mapping):
            continue
        commit = group.get("commit")
        files = group.get("files")
        for path in files if isinstance(files, list) else []:
            if path in commits:
                commits[path] = commit if isinstance(commit, str) else ""
    return commits


def usual_commit(commits: Mapping[str, str], preferred: str) -> str:
    """The commit most files of ``commits`` are at ("" not known), ``preferred`` where
    another is as common: the record's ``origin.commit``."""
    counts = Counter(commits.values())
    if not counts:
        return preferred
    return max(counts, key=lambda c: (counts[c], c == preferred, c))


def other_commits(commits: Mapping[str, str], default: str) -> list[dict[str, Any]]:
    """The ``kept_at_other_commits`` section for files at ``commits`` when the record's
    commit is ``default``: a group per other commit, sorted, the unknown one last."""
    groups: dict[str, list[str]] = {}
    for path, commit in commits.items():
        if commit != default:
            groups.setdefault(commit, []).append(path)
    return [
        {"commit": commit or dict(UNKNOWN_COMMIT), "files": sorted(groups[commit])}
        for commit in sorted(groups, key=lambda c: (not c, c))
    ]


__all__ = [
    "OTHER_COMMITS",
    "UNKNOWN_COMMIT",
    "kept_commits",
    "kept_paths",
    "origin_commit",
    "other_commits",
    "usual_commit",
]
