"""``kg import``: keep another registry's files as evidence, and load their results.

1. Read the sources (:mod:`.sources`) and check every file as every load will (JSON, the
   format's schema, the fields claimgraph maps; :mod:`.checking`): one problem and nothing
   is written, unless ``skip_invalid`` leaves such files out (listed in the import record).
2. Compare with what the import kept before: new, changed, unchanged files, and files
   the sources do not hold: kept with their records (a folder beside what is there),
   removed only when asked (``prune``: the sources are a whole newer snapshot). Each
   kept file keeps the commit it was taken at (:mod:`kg.model.upstream.commits`).
3. Write the kept files byte for byte, the licence, the import record and the importer's
   agent file, through a journal (:mod:`.journal`); then load them through the same
   validation and atomic write as every other data file. If the load fails, the journal
   puts the data directory back: data and store are as they were. With ``skip_invalid``,
   the kept files the load refused are left out and the import runs again.

A value that does not fit the typed field it maps to is kept as written, with a warning
(``ImportReport.kept_as_written``): in a kept file by the load, in a source file the
import writes here.

Importing the same bytes again writes nothing: the import record keeps its times.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import InvalidDataError, KeptAsWritten, Problem, UsageError
from ..malloc import give_back_free_pages
from ..model.datafiles import display_name
from ..model.upstream import formats
from ..model.upstream.commits import kept_commits
from ..model.upstream.format import UpstreamFormat
from ..model.upstream.kept import IMPORTS, UPSTREAM
from ..model.upstream.sources import Incoming, read_sources
from ..model.yamltext import dump_yaml, parse_yaml
from ..registry import Registry
from ..store.load import LoadReport, load_paths
from .checking import (
    FileCheck,
    Progress,
    check_all,
    kept_file_problems,
    problems_of,
    unfit_model_problems,
)
from .journal import Journal
from .plan import FileChange, Plan, compare, file_commits, kept_files
from .record import (
    IMPORTER,
    Contents,
    Origin,
    agent_document,
    fit_model_entries,
    fitted_source_document,
    import_document,
    licence_of,
    same_import,
)
from .shared_facts import model_registries


@dataclass
class ImportReport:
    """What an import did (or, with ``dry_run``, would do): the same lists either way."""

    name: str
    files: int = 0
    results: int = 0
    unchanged: int = 0  # records of files kept as they were
    added: list[FileChange] = field(default_factory=list)
    replaced: list[FileChange] = field(default_factory=list)
    removed_files: list[FileChange] = field(default_factory=list)  # --prune only
    #: Files kept before that the sources do not hold, kept (what --prune would remove).
    not_in_sources: list[FileChange] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unknown: dict[str, int] = field(default_factory=dict)
    #: results whose score lies outside its metric's declared range (kept, ranked)
    out_of_range: int = 0
    dry_run: bool = False
    load: LoadReport | None = None
    seconds: float = 0.0
    #: Values that do not fit their typed fields, kept as written (in the files loaded, and
    #: in the source files written).
    kept_as_written: list[KeptAsWritten] = field(default_factory=list)

    @property
    def written(self) -> int:
        """Records of new and changed files."""
        return sum(c.records for c in self.added + self.replaced)

    @property
    def removed(self) -> int:
        """Records of the files removed."""
        return sum(c.records for c in self.removed_files)

    def rows(self) -> list[tuple[str, str]]:
        """The summary, as (what, how many) rows."""
        rows = [
            ("files", f"{self.files:,}"),
            ("results", f"{self.results:,}"),
            ("records written", f"{self.written:,}"),
            ("records unchanged", f"{self.unchanged:,}"),
            ("records removed", f"{self.removed:,}"),
            (
                "files new / changed / removed",
                f"{len(self.added):,} / {len(self.replaced):,} / {len(self.removed_files):,}",
            ),
            ("files not in the sources, kept", f"{len(self.not_in_sources):,}"),
            ("files skipped", f"{len(self.skipped):,}"),
            ("unknown fields", f"{len(self.unknown):,}"),
            ("results outside the declared range", f"{self.out_of_range:,}"),
            ("values kept as written", f"{len(self.kept_as_written):,}"),
        ]
        # The warnings by kind: the field each value was meant for.
        kinds = Counter(k.field for k in self.kept_as_written)
        rows += [(f"  of {field}", f"{n:,}") for field, n in sorted(kinds.items())]
        rows.append(("seconds", f"{self.seconds:.1f}"))
        return rows


def import_files(
    registry: Registry,
    fmt: str,
    sources: list[Path],
    *,
    origin: str = "",
    name: str = "",
    licence: str = "",
    skip_invalid: bool = False,
    dry_run: bool = False,
    prune: bool = False,
    progress: Progress | None = None,
    refused: dict[str, Problem] | None = None,
) -> ImportReport:
    """Import the files of ``sources`` (an origin repository's, in format ``fmt``): add and
    replace; with ``prune``, also remove the kept files the sources do not hold.
    ``refused``: the first problem of each file a load refused before (left out).

    :raises InvalidDataError: naming every problem (file, record, JSON Pointer); nothing
        was written.
    :raises UsageError: for sources that cannot be read, or options that do not fit.
    """
    started, began_at = time.perf_counter(), datetime.now(UTC)
    if fmt not in formats.names():
        raise UsageError(f"unknown format {fmt!r} (known: {', '.join(formats.names())})")
    plugin = formats.get(fmt)
    try:
        where = Origin.parse(origin, plugin.home)
    except ValueError as exc:
        raise UsageError(f"--origin: {exc}") from None
    name = name or fmt
    data = registry.settings.data
    journal = Journal(data, name)
    if journal.leftover() and not dry_run:
        journal.undo()  # a killed import's changes go first; the store never saw them
    snapshot = read_sources(sources, plugin.results_root)
    report = ImportReport(name, dry_run=dry_run)
    checked = check_all({p: f.raw for p, f in snapshot.files.items()}, plugin, name, progress)
    problems = problems_of(snapshot, checked)
    record_path = data / IMPORTS / f"{name}.yaml"
    problems += unfit_model_problems(record_path, registry.base, name, plugin, snapshot, checked)
    problems += [
        Problem(snapshot.files[path].shown, p.label, p.field, p.message)
        for path, p in (refused or {}).items()
        if path in snapshot.files
    ]
    if problems and not skip_invalid:
        raise InvalidDataError(
            problems,
            consequence="nothing was imported; the data directory and the store are unchanged",
        )
    first_problem: dict[str, Problem] = {}
    for each in problems:
        first_problem.setdefault(each.file, each)
    good: dict[str, Incoming] = {}
    for path, item in snapshot.files.items():
        problem = first_problem.get(item.shown)
        if problem is None:
            good[path] = item
        else:
            at = f"{problem.field}: " if problem.field else ""
            report.skipped.append((path, at + problem.message))

    kept_dir = data / UPSTREAM / name
    old_record = _read_record(record_path)
    _same_origin(old_record, record_path, name, fmt, where)
    kept = kept_files(kept_dir)
    plan = compare(good, kept, prune)
    final = {path: item.sha256 for path, item in good.items()}
    if plan.kept:  # the files kept before and not in the sources stay, checked too
        final.update({path: kept[path] for path in plan.kept})
        checked.update(
            check_all({p: (kept_dir / p).read_bytes() for p in plan.kept}, plugin, name, None)
        )
    contents = _contents(final, checked, report.skipped)
    contents.registries = model_registries(data / "sources", sorted(contents.sources))
    fit_model_entries(name, contents, record_path, registry.base)
    contents.commits = file_commits(plan, where.commit, kept_commits(old_record or {}))
    report.files, report.results, report.unknown = len(final), contents.results, contents.unknown
    report.out_of_range = sum(checked[p].out_of_range for p in final)
    _report_plan(report, plan, checked, kept_dir, plugin)

    spdx = licence or licence_of(snapshot.licence) or (old_record or {}).get("licence", "")
    if not spdx:
        raise UsageError(
            "cannot tell the files' licence: the sources hold no LICENSE file "
            "claimgraph recognizes; give --licence with its SPDX id (MIT, ...)"
        )
    licence_file = snapshot.licence is not None or (kept_dir / "LICENSE").is_file()
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    began = began_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    old_times = ((old_record or {}).get("started_at", now), (old_record or {}).get("ended_at", now))
    document = import_document(
        name, plugin, where, snapshot.archive, spdx, licence_file, contents, *old_times
    )
    rewrite = bool(plan.new or plan.changed or plan.removed) or not same_import(
        old_record, document
    )
    if rewrite:  # the record's times are those of the import that changed something
        document = import_document(
            name, plugin, where, snapshot.archive, spdx, licence_file, contents, began, now
        )
    if dry_run:
        report.seconds = time.perf_counter() - started
        return report

    journal.begin()
    try:
        for path in plan.new + plan.changed:
            journal.write(f"{UPSTREAM}/{name}/{path}", good[path].raw)
        for path in plan.removed:
            journal.remove(f"{UPSTREAM}/{name}/{path}")
        if snapshot.licence is not None and _differs(kept_dir / "LICENSE", snapshot.licence):
            journal.write(f"{UPSTREAM}/{name}/LICENSE", snapshot.licence)
        if rewrite:
            journal.write(f"{IMPORTS}/{name}.yaml", _yaml(document))
        agent = data / "agents" / f"{IMPORTER}.yaml"
        if not agent.exists():
            journal.write(f"agents/{IMPORTER}.yaml", _yaml(agent_document()))
        for ident, source in sorted(contents.sources.items()):
            target = data / "sources" / f"{ident}.yaml"
            if not target.exists():  # never a curator's file
                shown = display_name(kept_dir / source["file"])
                doc, odd = fitted_source_document(source, target, registry.base, shown)
                report.kept_as_written += odd
                journal.write(f"sources/{ident}.yaml", _yaml(doc))
        # Written: the load reads the files, so their bytes and checks go before it starts
        # (1.3 GB at a million results, which its workers would otherwise inherit).
        snapshot.files.clear()
        good.clear()
        checked.clear()
        give_back_free_pages()  # freed, they would stay resident in the heap
        # The whole data directory: an id the import would take from another file is
        # refused (a load of some paths would take it over, as a move does).
        report.load = load_paths(registry.store, [data], registry.base, progress=progress)
        report.kept_as_written += report.load.kept_as_written
    except InvalidDataError as exc:
        journal.undo()
        again = kept_file_problems(exc.problems, kept_dir) if skip_invalid and not refused else {}
        if not again:
            raise
        # Files the shapes find cannot be mapped: left out, and the import runs again.
        return import_files(
            registry,
            fmt,
            sources,
            origin=origin,
            name=name,
            licence=licence,
            skip_invalid=True,
            prune=prune,
            progress=progress,
            refused=again,
        )
    except BaseException:
        journal.undo()
        raise
    journal.done()
    for path in plan.removed:
        _prune_empty((kept_dir / path).parent, kept_dir)
    report.seconds = time.perf_counter() - started
    return report


def _same_origin(
    old: dict[str, Any] | None, path: Path, name: str, fmt: str, where: Origin
) -> None:
    """An import keeps the files of one origin in one format: another needs another name.

    :raises UsageError: when ``old`` (the import's record) says another.
    """
    if old is None:
        return
    if old.get("format") != fmt:
        raise UsageError(
            f"{path}: the import {name!r} reads {old.get('format')!r}, not "
            f"{fmt!r}; use --name to import beside it"
        )
    repository = (old.get("origin") or {}).get("repository")
    if repository not in (None, where.repository):
        raise UsageError(
            f"{path}: the import {name!r} keeps files of {repository}, not "
            f"{where.repository}; use --name to import another origin beside it"
        )


# -- planning -------------------------------------------------------------------------------
def _report_plan(
    report: ImportReport,
    plan: Plan,
    checked: dict[str, FileCheck],
    kept_dir: Path,
    fmt: UpstreamFormat,
) -> None:
    """The plan's files and their records in ``report``: what a dry run lists is what the
    import does."""
    report.added = [FileChange(p, checked[p].results) for p in plan.new]
    report.replaced = [
        FileChange(p, checked[p].results, _result_count(kept_dir / p, fmt)) for p in plan.changed
    ]
    report.removed_files = [FileChange(p, _result_count(kept_dir / p, fmt)) for p in plan.removed]
    report.not_in_sources = [FileChange(p, checked[p].results) for p in plan.kept]
    report.unchanged = sum(checked[p].results for p in plan.unchanged + plan.kept)


def _contents(
    good: dict[str, str], checked: dict[str, FileCheck], skipped: list[tuple[str, str]]
) -> Contents:
    """The kept files once the import is done, from their checks."""
    contents = Contents(skipped=list(skipped))
    unknown: Counter[str] = Counter()
    for path, sha in good.items():
        result = checked[path]
        contents.files[path] = (sha, result.results)
        unknown.update(result.unknown)
        if result.shared is not None:
            contents.models.add(result.shared["model"])
            contents.facts.add(result.shared)
            for bench in result.shared["benchmarks"]:
                contents.benchmarks.setdefault(bench["id"], bench)
            source = result.shared["source"]
            contents.sources.setdefault(source["id"], {**source, "file": path})
    contents.unknown = dict(unknown)
    return contents


def _result_count(path: Path, fmt: UpstreamFormat) -> int:
    try:
        return fmt.results(json.loads(path.read_bytes()))
    except (OSError, ValueError):
        return 0


# -- files ----------------------------------------------------------------------------------
def _read_record(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    content = parse_yaml(path.read_text(encoding="utf-8"))
    return content if isinstance(content, dict) else None


def _differs(path: Path, content: bytes) -> bool:
    return not path.is_file() or path.read_bytes() != content


def _yaml(document: dict[str, Any]) -> bytes:
    text = dump_yaml(document)
    assert text is not None  # no stream given: the text is returned
    return text.encode()


def _prune_empty(folder: Path, stop: Path) -> None:
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
