"""Ingest: data files to validated N-Quads, on every core.

Each file is read, parsed, mapped and validated on its own (in worker processes for
large batches): everything SHACL checks within one file is decided there, and the
results are turned into problems in terms of the file while its origins are at hand.
What needs other files is sent back as plain data and decided once all files are in:

- class checks on values defined elsewhere (a record's source, a review's agent) come
  back as *obligations*, each with the problem it would be, decided against the types
  every file declares (and, for a partial load, what the store holds);
- the SHACL-SPARQL constraints (which join across files) run once over the triples
  they name, collected from every file.

The content comes back as N-Quads, ready for a bulk load. One file's work is
:mod:`.file_ingest`; what is decided across files, and what the batch keeps of each file
meanwhile (little: :class:`kg.model.cross_file.Gathered`), is :mod:`.cross_file`.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Protocol

from ..errors import InvalidDataError, Problem
from .cross_file import Gathered, class_problems, sparql_problems
from .datafiles import display_name, find_data_files
from .file_ingest import FileOutcome, Obligation, ingest_file
from .validation import duplicate_ids, engine

__all__ = [
    "MAX_WORKERS",
    "PARALLEL_FROM",
    "FileOutcome",
    "Obligation",
    "Progress",
    "Sink",
    "ingest",
    "ingest_file",
    "validate_files",
    "worker_count",
]

#: Below this many files, starting worker processes costs more than it saves.
PARALLEL_FROM = 300
#: At most this many worker processes validate a batch.
MAX_WORKERS = 8


def worker_count() -> int:
    """How many processes validate a large batch: one per core, at most MAX_WORKERS."""
    return min(os.cpu_count() or 1, MAX_WORKERS)


class Sink(Protocol):
    """Where N-Quads go as files come in (an open binary file, or chunks of one)."""

    def write(self, data: bytes, /) -> int: ...


Progress = Callable[[Iterable[FileOutcome], int], Iterable[FileOutcome]]


def ingest(
    files: list[Path],
    base: str,
    external_types: Callable[[set[str]], dict[str, set[str]]] | None = None,
    progress: Progress | None = None,
    spool: Sink | None = None,
    keep_nodes: bool = True,
) -> tuple[list[FileOutcome], list[Problem]]:
    """Ingest ``files``; return the outcomes of those that mapped, and every problem.

    ``external_types`` gives the types of IRIs no file of the batch defines (what a
    store already holds); without it such references are unresolved. With ``spool``,
    each file's N-Quads are written there as it comes in (and not kept), so a large
    batch never holds all its content in memory. ``keep_nodes``: each outcome lists the
    IRIs its file types (:attr:`FileOutcome.nodes`), for a caller that needs them.
    """
    eng = engine()  # compiled before the workers fork, so they share it
    # A batch keeps millions of small objects alive; the cyclic garbage collector would
    # walk them all again and again (quadratic at 100k files). Nothing here makes cycles.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _ingest(files, base, eng, external_types, progress, spool, keep_nodes)
    finally:
        if collecting:
            gc.enable()


def _ingest(files, base, eng, external_types, progress, spool, keep_nodes):
    jobs = [(path, base) for path in files]
    workers = worker_count()
    with Gathered(len(jobs) >= PARALLEL_FROM, keep_nodes) as gathered:
        if len(jobs) >= PARALLEL_FROM and workers > 1:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                stream: Iterator[FileOutcome] = pool.imap(ingest_file, jobs, chunksize=64)
                taken = gathered.take(
                    _spooled(progress(stream, len(jobs)) if progress else stream, spool)
                )
                outcomes = list(taken)
        else:
            stream = (ingest_file(job) for job in jobs)
            outcomes = list(
                gathered.take(_spooled(progress(stream, len(jobs)) if progress else stream, spool))
            )
        problems = [p for o in outcomes for p in o.problems]
        good = [o for o in outcomes if o.ok]
        problems += duplicate_ids((graph, o.name, label) for o in good for graph, label in o.graphs)
        # A reference to what a failed file was meant to define is not reported again: the
        # file's own problem is the one to fix (and fails the batch already).
        failed_nodes = {iri for o in outcomes for iri in o.intended}
        needed = {value for o in good for value, _ in o.needs} - failed_nodes
        unknown = needed - gathered.typed(needed)
        external = external_types(unknown) if unknown and external_types is not None else {}
        gathered.add_types(external)
        problems += class_problems(good, gathered, failed_nodes, base, eng)
        problems += sparql_problems(good, gathered, base, external)
    return good, problems


def _spooled(outcomes: Iterable[FileOutcome], spool: Sink | None) -> Iterable[FileOutcome]:
    for outcome in outcomes:
        if spool is not None:
            spool.write(outcome.nquads)
            outcome.nquads = b""
        yield outcome


def validate_files(
    paths: Iterable[Path],
    base: str,
    context: Iterable[Path] = (),
    progress: Progress | None = None,
) -> list[FileOutcome]:
    """Validate the data files under ``paths``; references may also resolve against the
    files under ``context`` (whose own problems are not reported).

    :raises InvalidDataError: naming every problem, by file, record and field.
    :raises UsageError: when a path does not exist.
    """
    files = find_data_files(paths)
    chosen = {f.resolve() for f in files}
    extra = [f for f in find_data_files(context) if f.resolve() not in chosen] if context else []
    outcomes, problems = ingest(files + extra, base, progress=progress)
    names = {o.name for o in outcomes if Path(o.path).resolve() in chosen}
    mine = {display_name(f) for f in files}
    problems = [p for p in problems if p.file in mine or p.file in names]
    if problems:
        raise InvalidDataError(problems)
    return [o for o in outcomes if Path(o.path).resolve() in chosen]
