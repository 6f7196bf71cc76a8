"""``kg retract``, ``withdraw``, ``supersede``, ``dispute``, ``correct``, ``reinstate``:
changes of a claim's standing; ``kg standing``: what the rule gives a claim."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote

import click

from ..config import Settings
from ..curate import Request, change_standing, parse_time
from ..errors import NotFoundError
from ..kinds import iri_prefix, minted_iri
from ..model.standing import Standing
from ..rdf.namespaces import KG
from ..registry import Registry
from ..store.load import store_types
from ..store.standing import standing as standing_of

F = TypeVar("F", bound=Callable[..., Any])


def _common(evidence_required: bool = False) -> Callable[[F], F]:
    """The options every change takes."""

    def decorate(command: F) -> F:
        for option in reversed(
            (
                click.option(
                    "--reason",
                    required=True,
                    metavar="TEXT",
                    help="Why the standing changes (shown with it wherever the claim is).",
                ),
                click.option(
                    "--agent",
                    required=True,
                    metavar="ID",
                    help="The id of the agent file of whoever makes the change.",
                ),
                click.option(
                    "--evidence",
                    "evidence",
                    multiple=True,
                    required=evidence_required,
                    metavar="IRI|ID",
                    help="What the change rests on: a web address, or the id or IRI of a "
                    "run, review, record or source"
                    + (" (at least one)" if evidence_required else "")
                    + "; repeat for more.",
                ),
                click.option(
                    "--at",
                    "at",
                    metavar="DATETIME",
                    help="When the change was made, with its time zone [default: now, UTC].",
                ),
                click.option(
                    "--data",
                    "data_dir",
                    metavar="DIR",
                    type=click.Path(path_type=Path),
                    help="The data directory the file is written to (DIR/standing/) and "
                    "loaded from [default: kg's --data, ./data].",
                ),
            )
        ):
            command = option(command)
        return command

    return decorate


def _run(settings: Settings, request: Request, data_dir: Path | None) -> None:
    data = data_dir or settings.data
    with Registry(settings) as registry:
        done = change_standing(registry, data, request)
        registry.write_timeline()
        base = registry.base
    click.echo(f"kg: wrote {done.path} and loaded it ({done.loaded.summary()})", err=True)
    for record, found in sorted(done.standings.items()):
        click.echo(_line(unquote(record.removeprefix(iri_prefix(base, "record"))), found))


def _line(ident: str, found: Standing) -> str:
    reason = f"\t{found.reason}" if found.reason else ""
    return f"{ident}\t{found.standing}{reason}"


def _request(
    change: str,
    target: str,
    reason: str,
    agent: str,
    evidence: tuple[str, ...],
    at: str | None,
    **more: Any,
) -> Request:
    return Request(
        change, target, reason, agent, list(evidence), parse_time(at) if at else None, **more
    )


@click.command()
@click.argument("ident", metavar="ID|SOURCE_ID")
@click.option("--notice", metavar="URL", help="The retraction notice.")
@_common()
@click.pass_obj
def retract(
    settings: Settings,
    ident: str,
    notice: str | None,
    reason: str,
    agent: str,
    evidence: tuple[str, ...],
    at: str | None,
    data_dir: Path | None,
) -> None:
    """Record that a claim was retracted by its source's authors or publisher; a source id
    retracts every record quoted from it (those loaded later too).

    \b
    Example:
      kg retract saadat-fellay-2026-genomic-lm-efficiency --agent claude \\
        --reason "Withdrawn by the authors" --notice https://openreview.net/forum?id=...
    """
    _run(
        settings, _request("retracted", ident, reason, agent, evidence, at, notice=notice), data_dir
    )


@click.command()
@click.argument("ident", metavar="ID")
@_common()
@click.pass_obj
def withdraw(
    settings: Settings,
    ident: str,
    reason: str,
    agent: str,
    evidence: tuple[str, ...],
    at: str | None,
    data_dir: Path | None,
) -> None:
    """Record that the registry withdraws a claim (a transcription error it will not keep,
    a duplicate)."""
    _run(settings, _request("withdrawn", ident, reason, agent, evidence, at), data_dir)


@click.command()
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="NEW")
@_common()
@click.pass_obj
def supersede(
    settings: Settings,
    old: str,
    new: str,
    reason: str,
    agent: str,
    evidence: tuple[str, ...],
    at: str | None,
    data_dir: Path | None,
) -> None:
    """Record that record NEW supersedes record OLD (a resubmission, a later version of the
    paper). A record cannot supersede itself, and supersessions make no cycle."""
    _run(
        settings,
        _request("superseded", old, reason, agent, evidence, at, superseded_by=new),
        data_dir,
    )


@click.command()
@click.argument("ident", metavar="ID")
@_common(evidence_required=True)
@click.pass_obj
def dispute(
    settings: Settings,
    ident: str,
    reason: str,
    agent: str,
    evidence: tuple[str, ...],
    at: str | None,
    data_dir: Path | None,
) -> None:
    """Record that evidence disputes a claim (a run, a review, another source, a page)."""
    _run(settings, _request("disputed", ident, reason, agent, evidence, at), data_dir)


@click.command()
@click.argument("ident", metavar="ID")
@click.option(
    "--value",
    required=True,
    metavar="V",
    help="The corrected value, in the record's unit (the printed value stays as "
    "printed beside it).",
)
@_common()
@click.pass_obj
def correct(
    settings: Settings,
    ident: str,
    value: str,
    reason: str,
    agent: str,
    evidence: tuple[str, ...],
    at: str | None,
    data_dir: Path | None,
) -> None:
    """Record a corrected value of a claim (an erratum, a corrected table)."""
    _run(settings, _request("corrected", ident, reason, agent, evidence, at, value=value), data_dir)


@click.command()
@click.argument("ident", metavar="ID")
@_common()
@click.pass_obj
def reinstate(
    settings: Settings,
    ident: str,
    reason: str,
    agent: str,
    evidence: tuple[str, ...],
    at: str | None,
    data_dir: Path | None,
) -> None:
    """Rule that a claim stands again, whatever changed its standing before (a dispute
    resolved, a withdrawal undone); evidence that comes later counts again."""
    _run(settings, _request("reinstated", ident, reason, agent, evidence, at), data_dir)


@click.command(name="standing")
@click.argument("ident", metavar="ID")
@click.option(
    "--release", metavar="RELEASE_ID", help="The standing the record had in that release."
)
@click.pass_obj
def show_standing(settings: Settings, ident: str, release: str | None) -> None:
    """Print a record's standing as the rule gives it (docs/standing.md): the standing and
    why, what it rests on, what the runs say, and every change of standing, oldest first."""
    with Registry(settings, read_only=True) as registry:
        store = registry.archive.release_store(release) if release else registry.store
        record = minted_iri(registry.base, "record", ident)
        if str(KG.Claim) not in store_types(store, {record}, exclude=set()).get(record, set()):
            raise NotFoundError(
                f"no record with id {ident!r}" + (f" in release {release}" if release else "")
            )
        found = standing_of(store, record)
    click.echo(f"standing\t{found.standing}")
    if found.reason:
        click.echo(f"reason\t{found.reason}")
    if found.since:
        click.echo(f"since\t{found.since}")
    if found.corrected_value is not None:
        click.echo(f"corrected value\t{found.corrected_value}")
    if found.superseded_by:
        click.echo(f"superseded by\t{found.superseded_by}")
    for item in found.evidence:
        click.echo(f"evidence\t{item}")
    for line in found.runs:
        click.echo(f"runs\t{line}")
    for change in found.changes:
        click.echo(f"change\t{change.at}\t{change.change}\t{change.ident}\t{change.reason}")


COMMANDS = (retract, withdraw, supersede, dispute, correct, reinstate, show_standing)
