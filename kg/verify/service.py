"""Source verification: records checked against PDFs of their sources, recorded as reviews.

``kg verify`` loads the data directory (so it reads each record as the store holds it),
runs the checks of :mod:`kg.verify.checks` on each (record, PDF) pair, writes one ``kind:
review`` file per pair under ``DIR/reviews/`` and loads the directory again: the reviews
go through the same validation and load as every other data file. A check that fails
is recorded provenance, not an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import yaml

from ..errors import InvalidDataError, NotFoundError, UsageError
from ..kinds import data_directory
from ..model.yamltext import parse_yaml
from ..rdf.namespaces import PROV
from ..registry import Registry
from ..store.base import solutions
from ..store.load import LoadReport, load_paths
from ..store.queries import internal_query, to_term
from .checks import FileInfo, Outcome, Target, run_checks
from .reviewfile import VERIFIER, agent_document, review_document, review_id, write_new

Progress = Callable[[Iterable, int], Iterable]


@dataclass(frozen=True)
class Job:
    """One record to check against one PDF."""

    target: Target
    pdf: Path
    file: FileInfo | None = None  # when the PDF was hashed already (while matching)


@dataclass
class Verified:
    """A job done: its checks and the review file that records them."""

    job: Job
    result: Outcome
    review: Path


@dataclass
class Matching:
    """PDFs of a directory matched to the records whose sources they are."""

    jobs: list[Job] = field(default_factory=list)
    unmatched_pdfs: list[Path] = field(default_factory=list)
    sources_without_pdf: list[str] = field(default_factory=list)


def targets(registry: Registry, record: str | None = None) -> list[Target]:
    """What can be checked of every record (or of ``record``), as the store holds it.

    :raises NotFoundError: when ``record`` is given and no record has that id.
    """
    bindings = {"record": to_term("record", record, registry.base)} if record is not None else None
    found = []
    for row in solutions(registry.store.query(internal_query("verify-targets").text, bindings)):

        def text(name: str, row=row) -> str:
            return row[name].value if row[name] is not None else ""

        found.append(
            Target(
                record=text("id"),
                source=text("sourceId"),
                printed=text("printed"),
                page=int(text("page")) if text("page") else None,
                quote=text("quote"),
                sha256=text("sha256"),
            )
        )
    if record is not None and not found:
        raise NotFoundError(f"no record with id {record!r} (is its file in the data directory?)")
    return found


def check_agent(registry: Registry, agent: str, data: Path) -> None:
    """The reviewing agent must be defined (the default verifier's file is written later).

    :raises UsageError: naming the agent file to add.
    """
    if agent == VERIFIER:
        return
    node = to_term("agent", agent, registry.base)
    query = internal_query("types-of").text
    types = {row["type"].value for row in solutions(registry.store.query(query, {"node": node}))}
    if str(PROV.Agent) not in types:
        raise UsageError(
            f"no agent file defines agent {agent!r} (add {data}/agents/"
            f"{agent}.yaml, or leave --agent out to record {VERIFIER})"
        )


def load_data(registry: Registry, data: Path, progress: Progress | None = None) -> LoadReport:
    """Load the data directory (unchanged files are skipped), so the store holds what it says.

    :raises InvalidDataError: when a data file is invalid; nothing is verified then.
    """
    if not data.is_dir():
        raise UsageError(f"{data}: no such data directory")
    return load_paths(registry.store, [data], registry.base, progress)


def verify(
    registry: Registry,
    data: Path,
    jobs: list[Job],
    agent: str = VERIFIER,
    progress: Progress | None = None,
) -> list[Verified]:
    """Run the checks of every job, write a review file for each, and load them.

    :raises InvalidDataError: when a review does not validate (the files written are
        removed again and the store is unchanged).
    :raises UsageError: when a PDF cannot be read or the data directory not written.
    """
    done: list[tuple[Job, Outcome, datetime, datetime]] = []
    stream: Iterable[Job] = progress(jobs, len(jobs)) if progress else jobs
    for job in stream:
        started = datetime.now(UTC)
        result = run_checks(job.target, job.pdf, job.file)
        done.append((job, result, started, datetime.now(UTC)))
    paths = write_reviews(
        registry,
        data,
        agent,
        [
            (
                ident := review_id(job.target.record, started),
                review_document(result, ident, agent, started, ended),
            )
            for job, result, started, ended in done
        ],
    )
    return [
        Verified(job, result, path) for (job, result, _, _), path in zip(done, paths, strict=True)
    ]


def write_reviews(
    registry: Registry,
    data: Path,
    agent: str,
    documents: list[tuple[str, dict]],
    load: list[Path] | None = None,
) -> list[Path]:
    """Write each (id, review document) to ``data/reviews/`` (and the default verifier's
    agent file where it is missing), then load the data directory (or the folders of it in
    ``load``).

    :raises InvalidDataError: when a review does not validate (the files written are
        removed again and the store is unchanged).
    :raises UsageError: when the data directory cannot be written.
    """
    written: list[Path] = []
    reviews = []
    try:
        agent_file = data / data_directory("agent") / f"{agent}.yaml"
        if agent == VERIFIER and not agent_file.exists():
            written.append(write_new(agent_file, agent_document()))
        for ident, document in documents:
            path = write_new(data / data_directory("review") / f"{ident}.yaml", document)
            written.append(path)
            reviews.append(path)
        load_paths(registry.store, load or [data], registry.base)
    except (InvalidDataError, OSError) as exc:
        for path in written:
            path.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise UsageError(f"cannot write the review into {data}: {exc.strerror}") from None
        raise
    return reviews


@dataclass
class Batch:
    """What one ``kg verify`` did: the load before it, the jobs done, how PDFs matched."""

    loaded: LoadReport
    done: list[Verified]
    matching: Matching | None  # None for one record checked against one PDF


def verify_records(
    registry: Registry,
    data: Path,
    *,
    record: str | None = None,
    pdf: Path | None = None,
    pdf_dir: Path | None = None,
    name_map: Path | None = None,
    agent: str = VERIFIER,
    progress: Callable[[str, int], Progress] | None = None,
    on_loaded: Callable[[LoadReport], None] | None = None,
) -> Batch:
    """Verify ``record`` against ``pdf``, or every record whose source has a PDF in ``pdf_dir``.

    The data directory is loaded first (the checks read records as the store holds them);
    each review is written to ``data/reviews/`` and loaded. ``progress(label, minimum)``
    gives a progress wrapper for each step; ``on_loaded`` hears of the first load at once.

    :raises UsageError: for a wrong combination of arguments or an undefined agent.
    :raises NotFoundError: when ``record`` is unknown or no PDF matches any record.
    :raises InvalidDataError: when the data directory or a review does not validate.
    """
    if bool(record) == bool(pdf_dir) or bool(record) != bool(pdf):
        raise UsageError("give a record ID and a PDF, or a directory of PDFs")
    step: Callable[[str, int], Progress | None] = (
        progress if progress else (lambda label, minimum: None)
    )
    loaded = load_data(registry, data, step("loading", 50))
    if on_loaded:
        on_loaded(loaded)
    check_agent(registry, agent, data)
    matching = None
    if record:
        assert pdf is not None
        jobs = [Job(targets(registry, record)[0], pdf)]
    else:
        assert pdf_dir is not None
        matching = match_pdfs(pdf_dir, targets(registry), name_map, step("hashing PDFs", 2))
        jobs = matching.jobs
        if not jobs:
            raise NotFoundError(
                f"no PDF in {pdf_dir} is the file of a record's source "
                "(by the SHA-256 it pins, or by --name-map)"
            )
    done = verify(registry, data, jobs, agent, step("verifying", 2))
    return Batch(loaded, done, matching)


def match_pdfs(
    pdf_dir: Path,
    all_targets: list[Target],
    name_map: Path | None = None,
    progress: Progress | None = None,
) -> Matching:
    """Pair records with the PDFs of ``pdf_dir``: by the SHA-256 their sources pin, else by
    ``name_map`` (a YAML mapping of file names, relative to ``pdf_dir``, to source ids).

    :raises UsageError: when the name map cannot be read or names what is not there.
    """
    pdfs = sorted(p for p in pdf_dir.rglob("*") if p.suffix.lower() == ".pdf" and p.is_file())
    stream: Iterable[Path] = progress(pdfs, len(pdfs)) if progress else pdfs
    files = {pdf: FileInfo.of(pdf) for pdf in stream}
    by_hash = {info.sha256: pdf for pdf, info in files.items()}
    by_source = _read_name_map(name_map, pdf_dir, {t.source for t in all_targets})
    matching = Matching()
    used: set[Path] = set()
    for target in all_targets:
        # A hash match is proof; a name map is a claim that the hash check then tests.
        pdf = by_hash.get(target.sha256) if target.sha256 else None
        pdf = pdf or by_source.get(target.source)
        if pdf is None:
            if target.source not in matching.sources_without_pdf:
                matching.sources_without_pdf.append(target.source)
            continue
        used.add(pdf)
        matching.jobs.append(Job(target, pdf, files[pdf]))
    matching.unmatched_pdfs = [p for p in pdfs if p not in used]
    return matching


def _read_name_map(path: Path | None, pdf_dir: Path, sources: set[str]) -> dict[str, Path]:
    if path is None:
        return {}
    try:
        content = parse_yaml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise UsageError(f"{path}: cannot read the name map ({exc})") from None
    if not isinstance(content, dict) or not all(isinstance(v, str) for v in content.values()):
        raise UsageError(
            f"{path}: the name map must map PDF file names to source ids "
            "('paper.pdf: source-id', one a line)"
        )
    out = {}
    for name, source in content.items():
        pdf = pdf_dir / name
        if not pdf.is_file():
            raise UsageError(f"{path}: {name}: no such file in {pdf_dir}")
        if source not in sources:
            raise UsageError(f"{path}: {name}: no record quotes a source {source!r}")
        out[source] = pdf
    return out
