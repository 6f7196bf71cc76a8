"""Machine source checks of imported records: each kept JSON file against its records.

One review per file covers the file's records (``records:``), with one check of the file's
hash and, per record, one of its pointer and one of its value (:mod:`.jsonchecks`). The
data directory is loaded first, so the checks read the records as the store holds them;
the reviews are written to ``data/reviews/`` and loaded like every other data file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..errors import NotFoundError, UsageError
from ..kinds import UPSTREAM_DIRECTORIES
from ..model.upstream import formats
from ..model.upstream.sources import Snapshot, read_sources
from ..registry import Registry
from ..store.base import solutions
from ..store.load import LoadReport, load_paths
from ..store.queries import internal_query, to_term
from .jsonchecks import JsonOutcome, JsonTarget, check_json_file
from .reviewfile import VERIFIER, json_review_document, review_id
from .service import targets as pdf_targets
from .service import write_reviews

Progress = Callable[[Iterable, int], Iterable]


@dataclass
class JsonBatch:
    """What one ``kg verify`` of kept files did."""

    loaded: LoadReport
    done: list[tuple[JsonOutcome, Path]] = field(default_factory=list)
    #: With a directory: its files that are no import's, and evaluations it has no file of.
    unmatched_files: list[str] = field(default_factory=list)
    evaluations_without_file: list[str] = field(default_factory=list)


def json_targets(registry: Registry, record: str | None = None) -> dict[str, list[JsonTarget]]:
    """What can be checked of imported records (all, or the evaluation of ``record``), by
    evaluation."""
    bindings = {"record": to_term("record", record, registry.base)} if record else None
    rows = list(
        solutions(registry.store.query(internal_query("verify-json-targets").text, bindings))
    )
    if record and rows:  # the record's whole file: the review covers its records
        evaluation = rows[0]["evaluation"]
        rows = list(
            solutions(
                registry.store.query(
                    internal_query("verify-json-targets").text, {"evaluation": evaluation}
                )
            )
        )
    found: dict[str, list[JsonTarget]] = {}
    rows.sort(key=lambda r: (r["evaluationId"].value, r["id"].value))
    for row in rows:
        target = JsonTarget(
            row["id"].value,
            row["evaluationId"].value,
            row["sourceId"].value,
            row["printed"].value,
            row["pointer"].value,
            row["sha256"].value,
            row["kept"].value,
            row["path"].value,
            row["format"].value,
        )
        found.setdefault(target.evaluation, []).append(target)
    return found


def is_imported(registry: Registry, record: str) -> bool:
    """Whether ``record`` is an imported result (its check is a JSON file's)."""
    return bool(json_targets(registry, record))


def verify_json(
    registry: Registry,
    data: Path,
    *,
    record: str | None = None,
    file: Path | None = None,
    upstream_dir: Path | None = None,
    agent: str = VERIFIER,
    progress: Callable[[str, int], Progress] | None = None,
    on_loaded: Callable[[LoadReport], None] | None = None,
) -> JsonBatch:
    """Check the kept file of ``record`` (or ``file``, another copy of it), or every file of
    ``upstream_dir`` (an origin repository's folder, its ``data/``, or a kept folder).

    :raises NotFoundError: when no record has the id ``record``, or no file matches.
    :raises UsageError: when ``record`` was not imported (its check is a PDF's), a file
        cannot be read or a review not written.
    :raises InvalidDataError: when the data or a review does not validate.
    """
    step: Callable[[str, int], Progress | None] = (
        progress if progress else (lambda label, minimum: None)
    )
    if not data.is_dir():
        raise UsageError(f"{data}: no such data directory")
    # The data is loaded first (the checks read the records as the store holds them), but
    # not the kept files: they are what is checked, against the records made from them.
    folders = [
        p
        for p in sorted(data.iterdir())
        if p.is_dir() and not p.name.startswith(".") and p.name not in UPSTREAM_DIRECTORIES
    ]
    batch = JsonBatch(load_paths(registry.store, folders, registry.base, step("loading", 50)))
    if on_loaded:
        on_loaded(batch.loaded)
    jobs: list[tuple[str, bytes, list[JsonTarget]]] = []
    if record is not None:
        targets = json_targets(registry, record)
        if not targets:
            pdf_targets(registry, record)  # NotFoundError when there is no such record at all
            raise UsageError(
                f"record {record!r} was not imported: check it against its "
                "source's PDF with --pdf FILE"
            )
        [(_, group)] = targets.items()
        path = file or data / group[0].kept
        try:
            jobs.append((str(path), path.read_bytes(), group))
        except OSError as exc:
            raise UsageError(f"{path}: cannot be read ({exc.strerror})") from None
    else:
        assert upstream_dir is not None
        by_path = {g[0].upstream_path: g for g in json_targets(registry).values()}
        snapshot = _read_upstream(upstream_dir, {g[0].format for g in by_path.values()})
        for upstream_path, item in sorted(snapshot.files.items()):
            matched = by_path.pop(upstream_path, None)
            if matched is None:
                batch.unmatched_files.append(item.shown)
            else:
                jobs.append((item.shown, item.raw, matched))
        batch.evaluations_without_file = sorted(g[0].evaluation for g in by_path.values())
        if not jobs:
            raise NotFoundError(
                f"no file in {upstream_dir} is the kept file of an imported "
                "record (files are matched by their path in the origin)"
            )
    checked = []
    wrap = step("verifying", 50)
    for name, raw, group in wrap(jobs, len(jobs)) if wrap else jobs:
        started = datetime.now(UTC)
        outcome = check_json_file(name, raw, group, formats.get(group[0].format))
        checked.append((outcome, started, datetime.now(UTC)))
    paths = write_reviews(
        registry,
        data,
        agent,
        [
            (
                ident := review_id(outcome.evaluation, started),
                json_review_document(outcome, ident, agent, started, ended),
            )
            for outcome, started, ended in checked
        ],
        load=folders,
    )
    batch.done = [(outcome, path) for (outcome, _, _), path in zip(checked, paths, strict=True)]
    return batch


def _read_upstream(folder: Path, names: set[str]) -> Snapshot:
    """The files of ``folder``, read as an origin repository of each format the records
    to check come from (of every format, when there are none)."""
    results_roots = dict.fromkeys(
        f.results_root for f in formats.every() if f.name in names or not names
    )
    if len(results_roots) == 1:
        return read_sources([folder], *results_roots)
    snapshot, refused = Snapshot(), None
    for root in results_roots:  # several formats: the files of each that lies there
        try:
            snapshot.files.update(read_sources([folder], root).files)
        except UsageError as exc:
            refused = exc
    if not snapshot.files and refused is not None:
        raise refused
    return snapshot
