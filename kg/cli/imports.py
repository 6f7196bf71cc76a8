"""``kg import``: another registry's published results, kept as evidence and loaded."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import click

from ..config import Settings
from ..errors import KeptAsWritten, UsageError
from ..imports import import_files
from ..imports.plan import FileChange
from ..imports.service import ImportReport
from ..model.upstream import formats
from ..model.upstream.format import UpstreamFormat
from ..registry import Registry
from .common import progress

#: How many files of each list (added, replaced, removed, kept) the text summary names.
LISTED = 10


class ImportGroup(click.Group):
    """``kg import``: a subcommand per registered upstream format, made when asked for (a
    format registered later has one too)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*formats.names(), *super().list_commands(ctx)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in formats.names():
            return _command(formats.get(cmd_name))
        return super().get_command(ctx, cmd_name)


@click.group(name="import", cls=ImportGroup)
def import_group() -> None:
    """Import the results another registry publishes, one format per subcommand.

    The upstream files are kept byte for byte under DATA/upstream/<name>/ (they are the
    evidence each record points into), with an import record DATA/imports/<name>.yaml;
    then everything is validated and loaded like every other data file, all or nothing.
    A value that does not fit its typed field is kept as written, and warned of on
    standard error (file, JSON Pointer, value). See docs/imports.md.
    """


def _command(fmt: UpstreamFormat) -> click.Command:
    """``kg import FORMAT``: its options are every format's, its help the format's."""
    home = fmt.home.split("://", 1)[-1]

    @click.command(name=fmt.name, help=fmt.import_help)
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
        f"are taken at [default: {home}, commit not stated].",
    )
    @click.option(
        "--name",
        default="",
        metavar="NAME",
        help="The import's name (its folder under upstream/ and its record) "
        f"[default: {fmt.name}]; another origin needs another name.",
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
        help="Import the valid files and list the others, those the load refuses too "
        "(default: one invalid file and nothing is imported). A value that does not fit "
        "its field is kept as written, with a warning: never a reason to skip.",
    )
    @click.option(
        "--dry-run",
        is_flag=True,
        help="Check and compare, write nothing: list the files the import would add, "
        "replace and remove, with their records (the real run lists the same).",
    )
    @click.option(
        "--prune",
        is_flag=True,
        help="Also remove the files imported before that the sources do not hold, and "
        "their records (the sources are a whole newer snapshot of the origin). Without "
        "it, an import only adds and replaces.",
    )
    @click.option(
        "--merge",
        is_flag=True,
        help="Keep the files imported before that the sources do not hold: the default, "
        "accepted for old scripts (not with --prune).",
    )
    @click.option(
        "--format",
        "-f",
        "output",
        default="text",
        show_default=True,
        type=click.Choice(["text", "json"]),
        help=f"The summary as text (at most {LISTED} files a list) or as JSON (every file).",
    )
    @click.pass_obj
    def command(settings: Settings, sources: tuple[Path, ...], **options: Any) -> None:
        _import(settings, fmt.name, sources, **options)

    return command


def _import(
    settings: Settings,
    fmt: str,
    sources: tuple[Path, ...],
    data: Path | None,
    origin: str,
    name: str,
    licence: str,
    skip_invalid: bool,
    dry_run: bool,
    prune: bool,
    merge: bool,
    output: str,
) -> None:
    if merge and prune:
        raise UsageError(
            "--merge and --prune contradict each other: --merge (the default) keeps the "
            "files the sources do not hold, --prune removes them; give one"
        )
    if data is not None:
        settings = dataclasses.replace(settings, data=data)
    with Registry(settings) as registry:
        report = import_files(
            registry,
            fmt,
            list(sources),
            origin=origin,
            name=name,
            licence=licence,
            skip_invalid=skip_invalid,
            dry_run=dry_run,
            prune=prune,
            progress=progress("checking"),
        )
        if not report.dry_run:
            registry.write_timeline()
    if output == "json":
        click.echo(json.dumps(_json(report), indent=2))
    else:
        _text(report)
    _warn(report.kept_as_written)
    if report.dry_run:
        click.echo("kg: dry run: nothing was written", err=True)
    elif report.load is not None:
        click.echo(f"kg: {report.load.summary()}", err=True)


#: The lists of files a summary shows: (its words, its JSON key, attribute of the report).
FILE_LISTS = (
    ("added", "added", "added"),
    ("replaced", "replaced", "replaced"),
    ("removed", "removed", "removed_files"),
    ("not in the sources, kept", "not_in_sources", "not_in_sources"),
)


def _text(report: ImportReport) -> None:
    width = max(len(what) for what, _ in report.rows())
    for what, count in report.rows():
        click.echo(f"{what:<{width}}  {count}")
    for what, _, attribute in FILE_LISTS:
        changes: list[FileChange] = getattr(report, attribute)
        for change in changes[:LISTED]:
            before = "" if change.before is None else f", {change.before:,} before"
            click.echo(f"{what}: {change.path} ({change.records:,} records{before})")
        if len(changes) > LISTED:
            click.echo(
                f"{what}: ... and {len(changes) - LISTED:,} more (--format json lists every file)"
            )
    for path, reason in report.skipped:
        click.echo(f"skipped: {path}: {reason}")
    for pointer, files in sorted(report.unknown.items()):
        click.echo(f"unknown field: {pointer} ({files} file(s); kept, not mapped)")


def _json(report: ImportReport) -> dict[str, Any]:
    """The summary with every file of every list."""

    def files(changes: list[FileChange]) -> list[dict[str, Any]]:
        return [
            {"path": c.path, "records": c.records}
            | ({} if c.before is None else {"records_before": c.before})
            for c in changes
        ]

    return {
        "import": report.name,
        "dry_run": report.dry_run,
        "files": report.files,
        "results": report.results,
        "records": {
            "written": report.written,
            "unchanged": report.unchanged,
            "removed": report.removed,
        },
        **{key: files(getattr(report, attribute)) for _, key, attribute in FILE_LISTS},
        "skipped": [{"file": path, "reason": reason} for path, reason in report.skipped],
        "unknown_fields": dict(sorted(report.unknown.items())),
        "out_of_range": report.out_of_range,
        "seconds": round(report.seconds, 1),
    }


#: At most this many values kept as written are named one by one; the rest are counted.
SHOWN_WARNINGS = 20


def _warn(kept: list[KeptAsWritten]) -> None:
    """Each value kept as written (file, pointer, value), the first SHOWN_WARNINGS of them."""
    for each in kept[:SHOWN_WARNINGS]:
        click.echo(f"kg: warning: {each}", err=True)
    if len(kept) > SHOWN_WARNINGS:
        click.echo(
            f"kg: warning: and {len(kept) - SHOWN_WARNINGS:,} more value(s) kept as written "
            "(each a kg:UpstreamValue in the graph; docs/imports.md)",
            err=True,
        )
