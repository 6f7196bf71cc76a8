"""``kg reproduce``: run a recipe that measures a claim again."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import Settings
from ..errors import UsageError
from .common import split_params


@click.command()
@click.argument("record", metavar="RECORD_ID")
@click.option("--recipe", help="The recipe's name (default: the one that declares the record).")
@click.option("--stage", "stages", multiple=True, help="A stage to run (repeatable; default all).")
@click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="A recipe parameter (repeatable).",
)
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(path_type=Path),
    help="The run file, or a directory to write <run id>.yaml into (and logs/).",
)
@click.option(
    "--agent",
    default="claimgraph-runner",
    show_default=True,
    help="The id of the agent file of whoever runs it.",
)
@click.option("--note", help="A note on the run, kept in the run file.")
@click.option(
    "--stage-timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Stop a stage that runs longer; it is recorded as failed.",
)
@click.pass_obj
def reproduce(
    settings: Settings,
    record: str,
    recipe: str | None,
    stages: tuple[str, ...],
    params: tuple[str, ...],
    output: Path,
    agent: str,
    note: str | None,
    stage_timeout: float | None,
) -> None:
    """Run a recipe that measures RECORD_ID's claim again, here, and write a run file.

    Each stage runs in a process of its own; the environment (GPU, driver, CUDA,
    CPU, RAM, Python, package versions, a hash of the host name) is captured, and
    each verdict compares a claim measurement with its record's value using the
    tolerance fixed in the recipe: one verdict on RECORD_ID, and one on every other
    claim of the recipe whose stage ran. Load the run file with kg load. See
    docs/runs.md.

    \b
    Example:
      kg reproduce saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-\
flashattention-checkpointing-zero2 --param precision=bf16 -o data/runs/
    """
    from ..reproduce import ReproduceError, summary
    from ..reproduce import reproduce as run_recipe

    given = dict(split_params(params))
    try:
        doc = run_recipe(
            record,
            recipe,
            list(stages) or None,
            given,
            settings.data,
            output,
            agent,
            progress=lambda m: click.echo(f"kg: {m}", err=True),
            note=note,
            stage_timeout=stage_timeout,
        )
    except ReproduceError as exc:
        raise UsageError(str(exc)) from None
    click.echo(f"kg: {summary(doc)}", err=True)
    if doc["status"] != "completed":
        raise click.exceptions.Exit(1)
