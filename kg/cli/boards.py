"""``kg board`` and ``kg model``: what the leaderboard and model pages show, printed."""

from __future__ import annotations

import csv
import io
import json
import sys

import click

from ..config import Settings
from ..errors import NotFoundError
from ..kinds import minted_iri
from ..rdf.output import text_table
from ..read.boards import BoardFilter, Boards, read_boards
from ..read.leaderboard import table_csv, table_json, table_row
from ..read.model_results import ModelResults, model_results
from ..registry import Registry
from .common import split_params

FORMATS = ("table", "csv", "json")
#: The columns ``--format table`` shows (csv and json carry every column of the table).
BOARD_COLUMNS = ("rank", "model", "printed_value", "standing", "source_title", "id")
MODEL_COLUMNS = ("benchmark", "rank", "of", "printed_value", "standing", "source_title", "id")


def _format_option(function):
    return click.option(
        "--format",
        "-f",
        "fmt",
        default="table",
        show_default=True,
        type=click.Choice(FORMATS),
        help="A table to read, or every column as CSV or JSON.",
    )(function)


@click.command()
@click.argument("benchmark", metavar="BENCHMARK")
@_format_option
@click.option(
    "--filter",
    "filters",
    multiple=True,
    metavar="NAME=VALUE",
    help="Only rows with this facet value (the page's query arguments: precision=bf16, "
    "standing=retracted, params_min=7, checked=1); repeatable.",
)
@click.pass_obj
def board(settings: Settings, benchmark: str, fmt: str, filters: tuple[str, ...]) -> None:
    """Print a benchmark's leaderboard: its results ranked best first by the metric's
    direction, equal values sharing a rank; results that are not current (retracted,
    superseded, disputed) are left out unless --filter standing=... asks for them, as on
    /benchmark/ID (docs/views.md).

    \b
    Example:
      kg board gsm8k-c30ce3
      kg board gsm8k-c30ce3 --format csv --filter precision=bf16
    """
    board_filter = BoardFilter.from_args(dict(split_params(filters, "--filter")))
    with Registry(settings, read_only=True) as registry:
        iri = minted_iri(registry.base, "benchmark", benchmark)
        boards = read_boards(registry.store, settings.index_dir)
        found = boards.board(iri, board_filter)
        if found is None:
            raise NotFoundError(_no_benchmark(benchmark, boards, registry.base))
    if fmt == "csv":
        click.echo(table_csv(found), nl=False)
    elif fmt == "json":
        click.echo(table_json(found, iri))
    else:
        rows = [table_row(entry) for entry in found.rows()]
        click.echo(f"{found.label} ({'lower' if found.lower_is_better else 'higher'} is better)")
        click.echo(
            text_table(list(BOARD_COLUMNS), [_cells(row, BOARD_COLUMNS) for row in rows]), nl=False
        )


@click.command()
@click.argument("ident", metavar="ID")
@_format_option
@click.pass_obj
def model(settings: Settings, ident: str, fmt: str) -> None:
    """Print a model's results: each benchmark it was evaluated on, with its rank there
    among all the benchmark's results, as /model/ID shows them.

    \b
    Example:
      kg model mistralai/mistral-7b-instruct-v0.3
    """
    with Registry(settings, read_only=True) as registry:
        iri = minted_iri(registry.base, "model", ident)
        found = model_results(read_boards(registry.store, settings.index_dir), iri)
    if found is None:
        raise NotFoundError(f"no ranked result names the model {ident!r}")
    rows = _model_rows(found)
    if fmt == "json":
        document = {"model": iri, "sources": found.sources, "results": rows}
        click.echo(json.dumps(document, ensure_ascii=False, indent=1))
    elif fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        sys.stdout.write(out.getvalue())
    else:
        click.echo(f"{ident}: {len(rows)} results on {len(found.sections)} benchmarks")
        click.echo(
            text_table(list(MODEL_COLUMNS), [_cells(row, MODEL_COLUMNS) for row in rows]), nl=False
        )


def _no_benchmark(asked: str, boards: Boards, base: str) -> str:
    """The error for an unknown benchmark id, naming the ids it may have meant (an imported
    benchmark's id ends in a digest: gsm8k-c30ce3)."""
    prefix = minted_iri(base, "benchmark", "")
    every = boards.benchmarks()
    near = sorted(
        f"{board.benchmark.removeprefix(prefix)} ({board.label})"
        for board in every
        if board.benchmark.removeprefix(prefix).startswith(asked)
        or board.label.casefold() == asked.casefold()
    )
    if near:
        return f"no benchmark {asked!r}; did you mean: {', '.join(near[:10])}"
    return f"no benchmark {asked!r} among the {len(every)} with results loaded"


def _model_rows(found: ModelResults) -> list[dict[str, object]]:
    """Each result of the model as a row: its benchmark, then the leaderboard's columns."""
    return [
        {
            "benchmark": section.label,
            "benchmark_iri": section.benchmark,
            "of": section.size,
            **table_row(entry),
        }
        for section in found.sections
        for entry in section.entries
    ]


def _cells(row: dict[str, object], columns: tuple[str, ...]) -> list[str]:
    # a printed value that stands for none reads as what it means: "not computed (printed -1.0)"
    shown = {**row, "printed_value": row["value_note"] or row["printed_value"]}
    return ["" if shown[name] is None else str(shown[name]) for name in columns]


COMMANDS = (board, model)
