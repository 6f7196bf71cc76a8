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
@click.option("--pdf", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              help="The PDF to check record ID against.")
@click.option("--all", "every", is_flag=True,
              help="Verify every record whose source has a PDF in --pdf-dir.")
@click.option("--pdf-dir", type=click.Path(path_type=Path, exists=True, file_okay=False),
              help="With --all: the PDFs, matched to sources by the SHA-256 each source pins.")
@click.option("--name-map", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              help="With --all: a YAML file mapping PDF file names (relative to --pdf-dir) to "
                   "source ids, for PDFs no pinned hash matches.")
@click.option("--agent", metavar="ID",
              help="The id of the agent file of whoever verifies [default: "
                   "claimgraph-verify-<version>, whose agent file is written when missing].")
@click.option("--data", "data_dir", metavar="DIR", type=click.Path(path_type=Path),
              help="The data directory: records are read from it and reviews written to "
                   "DIR/reviews/ [default: kg's --data, ./data].")
@click.pass_obj
def verify(settings: Settings, record: str | None, pdf: Path | None, every: bool,
           pdf_dir: Path | None, name_map: Path | None, agent: str | None,
           data_dir: Path | None) -> None:
    """Check records against PDFs of their sources; record the checks as reviews.

    Checks: the file's SHA-256 against the source's pinned artifact hash (hash); the
    page the locator names (page); the quoted sentence in the page's text, after
    normalizing ligatures, hyphenation, white space and arrows (quote); the printed
    value inside the quote (value). Each is passed, failed, or could not be checked,
    with the reason. The review is written to DIR/reviews/ and loaded like any data
    file. One line per check goes to standard output (a table with --all). Exits 0
    when every check passed, 1 when any failed or could not be made (the review is
    recorded either way).

    \b
    Example:
      kg verify saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-\
flashattention-checkpointing-zero2 --pdf paper.pdf
      kg verify --all --pdf-dir pdfs/ --name-map pdfs/names.yaml
    """
    from ..verify.reviewfile import VERIFIER
    from ..verify.service import verify_records

    if every == bool(record) or (record and not pdf) or (every and not pdf_dir):
        raise UsageError("give a record ID with --pdf FILE, or --all with --pdf-dir DIR")
    if (pdf and every) or ((pdf_dir or name_map) and not every):
        raise UsageError("--pdf goes with a record ID; --pdf-dir and --name-map with --all")
    data = data_dir or settings.data

    def loaded(report) -> None:
        if report.changed:
            click.echo(f"kg: {report.summary()}", err=True)

    with Registry(settings) as registry:
        batch = verify_records(registry, data, record=record, pdf=pdf,
                               pdf_dir=pdf_dir, name_map=name_map, agent=agent or VERIFIER,
                               progress=progress, on_loaded=loaded)
    done, matching = batch.done, batch.matching
    if matching is None:
        for check in done[0].result.checks:
            click.echo(f"{check.check:<12} {_OUTCOME[check.outcome]:<12} {check.detail}")
        click.echo(f"kg: wrote {done[0].review} and loaded it", err=True)
    else:
        _verify_summary(done, matching)
        click.echo(f"kg: wrote {len(done)} review(s) to {data / 'reviews'} and loaded them",
                   err=True)
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
        rows.append([v.job.target.record, v.job.pdf.name,
                     *(outcomes.get(kind, "") for kind in (HASH, PAGE, QUOTE, VALUE))])
    click.echo(text_table(["record", "pdf", "hash", "page", "quote", "value"], rows), nl=False)
    counts = Counter(v.result.outcome for v in done)
    click.echo(f"kg: verified {len(done)} record(s): {counts['passed']} passed every check, "
               f"{counts['failed']} with a failed check, {counts['not-checked']} with a check "
               "that could not be made", err=True)
    for source in matching.sources_without_pdf:
        click.echo(f"kg: no PDF for source {source}", err=True)
    for pdf in matching.unmatched_pdfs:
        click.echo(f"kg: {pdf} matches no source (by hash or name map)", err=True)
