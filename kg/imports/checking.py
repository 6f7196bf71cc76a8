"""What ``kg import`` refuses before it writes anything, and what a load refused.

Every file is checked as every load checks it (JSON, the format's schema, the fields
claimgraph maps), on every core for large snapshots. A file whose model id cannot be a
model's identifier cannot be mapped either (the shapes say which, on the import record's
``models``). A file the load refuses (the shapes find it cannot be mapped) is named by its
path in the origin, so that ``--skip-invalid`` can leave it out and import again.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import Problem
from ..model.ingest import PARALLEL_FROM, worker_count
from ..model.upstream.format import UpstreamFormat
from ..model.upstream.sources import Snapshot
from .record import unfit_models

Progress = Callable[[Iterable, int], Iterable]


@dataclass(frozen=True)
class FileCheck:
    """One file checked (plain data: it comes back from a checker process)."""

    path: str
    #: (label, JSON Pointer, message)
    problems: list[tuple[str, str, str]]
    results: int
    unknown: list[str]
    #: What it names of the shared nodes (model, benchmarks, source), when it is valid.
    shared: dict[str, Any] | None = None
    #: How many of its results lie outside their metric's declared range (kept, flagged).
    out_of_range: int = 0


_WORK: dict[str, Any] = {}  # what forked checkers read (the snapshot, the format)


def _check_one(path: str) -> FileCheck:
    raw = _WORK["files"][path]
    fmt: UpstreamFormat = _WORK["format"]
    result = fmt.check(raw)
    doc = result.doc if isinstance(result.doc, dict) else None
    problems = [
        (fmt.label(_WORK["name"], path, doc, where) if doc is not None else "", where, message)
        for where, message in result.problems
    ]
    shared = fmt.shared_nodes(doc) if doc is not None and not problems else None
    results = fmt.results(doc) if doc is not None else 0
    outside = len(fmt.out_of_range(doc)) if doc is not None and not problems else 0
    return FileCheck(path, problems, results, result.unknown, shared, outside)


def check_all(
    files: dict[str, bytes], fmt: UpstreamFormat, name: str, progress: Progress | None
) -> dict[str, FileCheck]:
    """Every file checked as a load checks it, on every core for large snapshots."""
    _WORK.update(format=fmt, files=files, name=name)
    paths = sorted(files)
    stream: Iterator[FileCheck]
    try:
        if len(paths) >= PARALLEL_FROM and worker_count() > 1:
            with multiprocessing.get_context("fork").Pool(worker_count()) as pool:
                stream = pool.imap(_check_one, paths, chunksize=32)
                return {c.path: c for c in (progress(stream, len(paths)) if progress else stream)}
        stream = map(_check_one, paths)
        return {c.path: c for c in (progress(stream, len(paths)) if progress else stream)}
    finally:
        _WORK.clear()


def problems_of(snapshot: Snapshot, checked: dict[str, FileCheck]) -> list[Problem]:
    """The problems of the sources and of every file checked."""
    problems = list(snapshot.problems)
    for path, result in checked.items():
        shown = snapshot.files[path].shown
        problems += [
            Problem(shown, label, where, message) for label, where, message in result.problems
        ]
    return problems


def unfit_model_problems(
    record: Path,
    base: str,
    name: str,
    fmt: UpstreamFormat,
    snapshot: Snapshot,
    checked: dict[str, FileCheck],
) -> list[Problem]:
    """The files whose model id cannot be a model's identifier (the import record
    ``record`` would state it, and the shapes refuse it): they cannot be mapped."""
    shared = {path: c.shared for path, c in checked.items() if c.shared is not None}
    refused = unfit_models(name, [s["model"] for s in shared.values()], record, base)
    problems = []
    for path, nodes in shared.items():
        if nodes["model"] in refused:
            where = nodes.get("pointers", {}).get("model", "")
            label = fmt.label(name, path, None, where)
            message = refused[nodes["model"]]
            problems.append(Problem(snapshot.files[path].shown, label, where, message))
    return problems


def kept_file_problems(problems: list[Problem], kept_dir: Path) -> dict[str, Problem]:
    """The first of ``problems`` (a load's) of each kept file under ``kept_dir``, by the
    file's path in the origin; {} where one is not a kept file's (leaving files out would
    not help)."""
    found: dict[str, Problem] = {}
    folder = kept_dir.resolve()
    for problem in problems:
        try:
            path = Path(problem.file).resolve().relative_to(folder).as_posix()
        except ValueError:
            return {}
        found.setdefault(path, problem)
    return found
