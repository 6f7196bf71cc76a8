"""``kg import``: another registry's published results, kept as evidence and loaded."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click

from ..config import Settings
from ..imports import import_files
from ..registry import Registry
from .common import progress


@click.group(name="import")
def import_group() -> None:
    """Import the results another registry publishes, one format per subcommand.

    The upstream files are kept byte for byte under DATA/upstream/<name>/ (they are the
    evidence each record points into), with an import record DATA/imports/<name>.yaml;
    then everything is validated and loaded like every other data file, all or nothing.
    See docs/imports.md.
    """


@import_group.command(name="every-eval-ever")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--data",
    "data",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="The data directory to keep the files in (default: the data setting).",
)
@click.option(
    "--origin",
    default="",
    metavar="REPOSITORY@COMMIT",
    help="Where the files come from: owner/name or a URL, with the commit they "
    "are taken at [default: github.com/evaleval/every_eval_ever, commit not "
    "stated].",
)
@click.option(
    "--name",
    default="",
    metavar="NAME",
    help="The import's name (its folder under upstream/ and its record) "
    "[default: every-eval-ever]; another origin needs another name.",
)
@click.option(
    "--licence",
    default="",
    metavar="SPDX",
    help="The files' licence as an SPDX id, where the sources hold no LICENSE "
    "file claimgraph recognizes.",
)
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="Import the valid files and list the others (default: one invalid file "
    "and nothing is imported).",
)
@click.option("--dry-run", is_flag=True, help="Check and compare, write nothing.")
@click.option(
    "--merge",
    is_flag=True,
    help="Keep files imported before that the sources do not hold (default: a "
    "file gone from the snapshot of the origin removes its records).",
)
@click.pass_obj
def every_eval_ever(
    settings: Settings,
    sources: tuple[Path, ...],
    data: Path | None,
    origin: str,
    name: str,
    licence: str,
    skip_invalid: bool,
    dry_run: bool,
    merge: bool,
) -> None:
    """Import Every Eval Ever files (github.com/evaleval/every_eval_ever).

    SOURCES are the repository's folder (holding data/), its data/ folder or folders in
    it, single .json files under a data/ folder, or a .tar.gz of the repository. Each
    result in evaluation_results[] becomes a record whose locator is a JSON Pointer into
    its kept file. Importing the same bytes again changes nothing.

    \b
    Example:
      kg import every-eval-ever every-eval-ever-d9be34d6.tar.gz \\
          --origin evaleval/every_eval_ever@d9be34d60cb3820833034e33a437ba4b9e4d472f
      kg import every-eval-ever ~/src/every_eval_ever/data/helm_lite --merge
    """
    if data is not None:
        settings = dataclasses.replace(settings, data=data)
    with Registry(settings) as registry:
        report = import_files(
            registry,
            "every-eval-ever",
            list(sources),
            origin=origin,
            name=name,
            licence=licence,
            skip_invalid=skip_invalid,
            dry_run=dry_run,
            merge=merge,
            progress=progress("checking"),
        )
    width = max(len(what) for what, _ in report.rows())
    for what, count in report.rows():
        click.echo(f"{what:<{width}}  {count}")
    for path, reason in report.skipped:
        click.echo(f"skipped: {path}: {reason}")
    for pointer, files in sorted(report.unknown.items()):
        click.echo(f"unknown field: {pointer} ({files} file(s); kept, not mapped)")
    if report.dry_run:
        click.echo("kg: dry run: nothing was written", err=True)
    elif report.load is not None:
        click.echo(f"kg: {report.load.summary()}", err=True)
