"""Releases: ``kg release``, ``kg releases``, ``kg diff``, ``kg history``."""

from __future__ import annotations

import click

from ..config import Settings
from ..errors import NotFoundError
from ..kinds import HISTORY_SEGMENTS
from ..registry import Registry
from ..release.build import make_release
from ..release.history import diff_releases, graph_history
from .common import progress


@click.command()
@click.option(
    "--date",
    "issued",
    metavar="YYYY-MM-DD",
    help="The issue date, part of the id [default: today, UTC].",
)
@click.option("--note", default="", help="What the release is (kept with it).")
@click.pass_obj
def release(settings: Settings, issued: str | None, note: str) -> None:
    """Release what the store holds, under a content-addressed id; print the id.

    The id is the date and the first 12 hex digits of the SHA-256 over the sorted
    hashes of the data graphs, each the SHA-256 of the graph's canonical N-Quads
    (RDFC-1.0): the same content gives the same id on any machine. The release (its
    node, a dump, a manifest and a queryable copy) goes to the archive beside the
    store [env KG_ARCHIVE]. Releasing unchanged content prints the id it has already.
    A data file changed since it was loaded stops the release (run kg load first).

    \b
    Example:
      kg release --note "first public release"
      kg release --date 2026-12-01
    """
    with Registry(settings, read_only=True) as registry:
        report = make_release(registry, issued, note, progress=progress("hashing"))
        registry.write_timeline()
    click.echo(report.id)
    click.echo(f"kg: {report.summary()}", err=True)


@click.command()
@click.pass_obj
def releases(settings: Settings) -> None:
    """List the releases, oldest first: id, issue date and note."""
    with Registry(settings) as registry:
        for info in registry.archive.releases():
            click.echo(f"{info.id}  {info.issued}  {info.note}".rstrip())


@click.command()
@click.argument("old", metavar="RELEASE_A")
@click.argument("new", metavar="RELEASE_B")
@click.option("--brief", is_flag=True, help="Name the graphs that differ, without statements.")
@click.pass_obj
def diff(settings: Settings, old: str, new: str, brief: bool) -> None:
    """What changed from RELEASE_A to RELEASE_B: records (then sources, evaluations,
    agents, reviews and runs) added, removed and changed, and for each changed one the
    statements removed (-) and added (+).

    \b
    Example:
      kg diff 2026-12-01-29e28fa058fa 2026-12-08-0c1f2e3d4b5a
    """
    with Registry(settings) as registry:
        result = diff_releases(registry, old, new, details=not brief)
    for change in result.changes:
        hashes = (
            f" ({(change.old or '')[:12]} -> {(change.new or '')[:12]})"
            if (change.status == "changed")
            else ""
        )
        click.echo(f"{change.status} {change.kind or 'graph'} {change.ident}{hashes}")
        for line in change.removed:
            click.echo(f"  - {line}")
        for line in change.added:
            click.echo(f"  + {line}")
    counts = ", ".join(f"{result.count(s)} {s}" for s in ("changed", "added", "removed"))
    click.echo(f"kg: {old} -> {new}: {counts} graph(s)", err=True)


@click.command()
@click.argument("ident", metavar="ID")
@click.option(
    "--kind",
    default="record",
    show_default=True,
    type=click.Choice(HISTORY_SEGMENTS),
    help="What ID names.",
)
@click.pass_obj
def history(settings: Settings, ident: str, kind: str) -> None:
    """The releases that held a record: each with the record's hash in it, what
    changed from the version before (statements removed - and added +), and the
    record's standing where it changed from the release before (docs/standing.md).

    The upstream registry's releases a record names (upstream_releases) are the source
    registry's, not claimgraph's: kg show lists them.

    \b
    Example:
      kg history saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-\
flashattention-checkpointing-zero2
      kg history --kind source saadat-fellay-2026-genomic-lm-efficiency
    """
    with Registry(settings) as registry:
        entries = graph_history(registry, registry.iri(kind, ident))
    if not entries:
        raise NotFoundError(f"no release holds {kind} {ident!r}")
    shown: str | None = None
    for entry in entries:
        click.echo(f"{entry.release.id}  {(entry.hash or '-' * 12)[:12]}  {entry.status}")
        for line in entry.removed:
            click.echo(f"    - {line}")
        for line in entry.added:
            click.echo(f"    + {line}")
        # The standing where it changed (a first version's where it is not current).
        said = entry.standing.summary() if entry.standing else None
        if said is not None and said != shown and (shown is not None or said != "current"):
            click.echo(f"    standing {said}")
        shown = said if said is not None else shown
