"""``kg verify``: records checked against PDFs of their sources."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click

from ..config import Settings
from ..errors import UsageError
from ..registry import Registry
from .common import progress


@click.command()
@click.argument("record", metavar="[ID]", required=False)
@click.option(
    "--pdf",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    help="The PDF to check record ID against.",
)
@click.option(
    "--json",
    "json_file",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    help="For an imported record: the JSON file to check it against [default: the "
    "kept file, DIR/upstream/...].",
)
@click.option(
    "--all", "every", is_flag=True, help="Verify every record whose source has a PDF in --pdf-dir."
)
@click.option(
    "--pdf-dir",
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    help="With --all: the PDFs, matched to sources by the SHA-256 each source pins.",
)
@click.option(
    "--upstream-dir",
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    help="With --all: upstream files (an origin repository's folder, its data/ "
    "folder, or a kept folder such as DIR/upstream/every-eval-ever), matched "
    "to imported records by their path in the origin.",
)
@click.option(
    "--name-map",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    help="With --all: a YAML file mapping PDF file names (relative to --pdf-dir) to "
    "source ids, for PDFs no pinned hash matches.",
)
@click.option(
    "--agent",
    metavar="ID",
    help="The id of the agent file of whoever verifies [default: "
    "claimgraph-verify-<version>, whose agent file is written when missing].",
)
@click.option(
    "--data",
    "data_dir",
    metavar="DIR",
    type=click.Path(path_type=Path),
    help="The data directory: records are read from it and reviews written to "
    "DIR/reviews/ [default: kg's --data, ./data].",
)
@click.pass_obj
def verify(
    settings: Settings,
    record: str | None,
    pdf: Path | None,
    json_file: Path | None,
    every: bool,
    pdf_dir: Path | None,
    upstream_dir: Path | None,
    name_map: Path | None,
    agent: str | None,
    data_dir: Path | None,
) -> None:
    """Check records against their sources' files (PDFs, or the JSON files they were
    imported from); record the checks as reviews.

    Checks: the file's SHA-256 against the source's pinned artifact hash (hash); the
    page the locator names (page); the quoted sentence in the page's text, after
    normalizing ligatures, hyphenation, white space and arrows (quote); the printed
    value inside the quote (value). Each is passed, failed, or could not be checked,
    with the reason. The review is written to DIR/reviews/ and loaded like any data
    file. One line per check goes to standard output (a table with --all). Exits 0
    when every check passed, 1 when any failed or could not be made (the review is
    recorded either way).

    An imported record (kg import) is checked against its kept JSON file: the file's
    SHA-256 against the hash of the bytes its records were made from (hash), each
    record's JSON Pointer resolved to a number (pointer), that number written exactly
    as the printed value (value). One review per file covers the file's records.

    \b
    Example:
      kg verify saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-\
flashattention-checkpointing-zero2 --pdf paper.pdf
      kg verify --all --pdf-dir pdfs/ --name-map pdfs/names.yaml
      kg verify eee-helm-lite-openai-gpt-4o-2024-08-06-29a3345a-gsm8k
      kg verify --all --upstream-dir data/upstream/every-eval-ever
    """
    from ..verify.reviewfile import VERIFIER
    from ..verify.service import verify_records

    if every == bool(record) or (every and not (pdf_dir or upstream_dir)):
        raise UsageError(
            "give a record ID (with --pdf FILE, or --json FILE for an imported "
            "record), or --all with --pdf-dir DIR or --upstream-dir DIR"
        )
    if ((pdf or json_file) and every) or ((pdf_dir or name_map or upstream_dir) and not every):
        raise UsageError(
            "--pdf and --json go with a record ID; --pdf-dir, --upstream-dir and "
            "--name-map with --all"
        )
    if (pdf and json_file) or (pdf_dir and upstream_dir):
        raise UsageError("check against a PDF or against a JSON file, not both")
    data = data_dir or settings.data
    if json_file or upstream_dir or (record and not pdf):
        _verify_json(settings, data, record, json_file, upstream_dir, agent or VERIFIER)
        return

    def loaded(report) -> None:
        if report.changed:
            click.echo(f"kg: {report.summary()}", err=True)

    with Registry(settings) as registry:
        batch = verify_records(
            registry,
            data,
            record=record,
            pdf=pdf,
            pdf_dir=pdf_dir,
            name_map=name_map,
            agent=agent or VERIFIER,
            progress=progress,
            on_loaded=loaded,
        )
        registry.write_timeline()
    done, matching = batch.done, batch.matching
    if matching is None:
        for check in done[0].result.checks:
            click.echo(f"{check.check:<12} {_OUTCOME[check.outcome]:<12} {check.detail}")
        click.echo(f"kg: wrote {done[0].review} and loaded it", err=True)
    else:
        _verify_summary(done, matching)
        click.echo(
            f"kg: wrote {len(done)} review(s) to {data / 'reviews'} and loaded them", err=True
        )
    if any(v.result.outcome != "passed" for v in done):
        raise click.exceptions.Exit(1)


_OUTCOME = {"passed": "passed", "failed": "FAILED", "not-checked": "not checked"}


def _verify_summary(done, matching) -> None:
    """The summary of a batch: a table of outcomes on stdout, counts on stderr."""
    from ..rdf.output import text_table
    from ..verify.checks import HASH, PAGE, QUOTE, VALUE

    rows = []
    for v in done:
        outcomes = {c.check: _OUTCOME[c.outcome] for c in v.result.checks}
        rows.append(
            [
                v.job.target.record,
                v.job.pdf.name,
                *(outcomes.get(kind, "") for kind in (HASH, PAGE, QUOTE, VALUE)),
            ]
        )
    click.echo(text_table(["record", "pdf", "hash", "page", "quote", "value"], rows), nl=False)
    counts = Counter(v.result.outcome for v in done)
    click.echo(
        f"kg: verified {len(done)} record(s): {counts['passed']} passed every check, "
        f"{counts['failed']} with a failed check, {counts['not-checked']} with a check "
        "that could not be made",
        err=True,
    )
    for source in matching.sources_without_pdf:
        click.echo(f"kg: no PDF for source {source}", err=True)
    for pdf in matching.unmatched_pdfs:
        click.echo(f"kg: {pdf} matches no source (by hash or name map)", err=True)


def _verify_json(
    settings: Settings,
    data: Path,
    record: str | None,
    json_file: Path | None,
    upstream_dir: Path | None,
    agent: str,
) -> None:
    """Imported records against their kept JSON files: a line per check, or a summary."""
    from ..verify.jsonservice import verify_json

    def loaded(report) -> None:
        if report.changed:
            click.echo(f"kg: {report.summary()}", err=True)

    with Registry(settings) as registry:
        batch = verify_json(
            registry,
            data,
            record=record,
            file=json_file,
            upstream_dir=upstream_dir,
            agent=agent,
            progress=progress,
            on_loaded=loaded,
        )
        registry.write_timeline()
    if record is not None:
        [(outcome, review)] = batch.done
        for check in outcome.checks:
            about = f" {check.record}" if check.record else ""
            click.echo(
                f"{check.check:<16} {_OUTCOME[check.outcome]:<12} {check.detail}"
                f"{about and ' (' + about.strip() + ')'}"
            )
        click.echo(f"kg: wrote {review} and loaded it", err=True)
    else:
        counts = Counter(outcome.outcome for outcome, _ in batch.done)
        records = sum(len(outcome.targets) for outcome, _ in batch.done)
        for outcome, _ in batch.done:
            if outcome.outcome != "passed":
                for check in outcome.checks:
                    if check.outcome != "passed":
                        click.echo(
                            f"{outcome.file.path}: {check.check}: "
                            f"{_OUTCOME[check.outcome]}: {check.detail}"
                            + (f" ({check.record})" if check.record else "")
                        )
        click.echo(
            f"kg: verified {len(batch.done)} file(s) of {records} record(s): "
            f"{counts['passed']} passed every check, {counts['failed']} with a failed "
            f"check, {counts['not-checked']} with a check that could not be made",
            err=True,
        )
        for name in batch.unmatched_files:
            click.echo(f"kg: {name} is the kept file of no imported record", err=True)
        for evaluation in batch.evaluations_without_file:
            click.echo(f"kg: no file for evaluation {evaluation}", err=True)
        click.echo(
            f"kg: wrote {len(batch.done)} review(s) to {data / 'reviews'} and loaded them", err=True
        )
    if any(outcome.outcome != "passed" for outcome, _ in batch.done):
        raise click.exceptions.Exit(1)
