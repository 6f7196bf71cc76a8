"""Commands over the data and the store: validate, load, query, queries, show, stats."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click

from ..config import Settings
from ..errors import UsageError
from ..model.ingest import validate_files
from ..model.validation import validate_with_pyshacl
from ..rdf.output import (
    GRAPH_FORMATS,
    GRAPH_RESULT_FORMATS,
    RESULT_FORMATS,
    write_graph,
    write_result,
)
from ..registry import Registry
from ..store.figures import Figures
from ..store.load import load_paths
from ..store.queries import canned_queries, canned_query, read_sparql_file
from ..store.records import record_and_standing
from .common import progress, split_params


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--context/--no-context",
    default=True,
    show_default=True,
    help="Resolve references (to sources, agents, ...) against the other files "
    "of the data directory too.",
)
@click.option(
    "--engine",
    type=click.Choice(["compiled", "pyshacl"]),
    default="compiled",
    show_default=True,
    help="The SHACL engine: compiled (what kg load runs) or pyshacl, the reference "
    "implementation the compiled engine is tested against: the same shapes "
    "and problems, found independently (a cross-check; much slower).",
)
@click.pass_obj
def validate(settings: Settings, paths: tuple[Path, ...], context: bool, engine: str) -> None:
    """Validate data files (or directories of them, searched recursively).

    Every problem is one line: file, record, field, what is wrong and the value
    as written. Exits 0 when all files are valid, 1 when any is not. With
    --engine pyshacl the shapes are run by pyshacl instead: a cross-check that
    prints the same lines, found independently (a few seconds for the bundled
    data; about a minute of CPU for 300 files, where the compiled engine takes
    two seconds).

    \b
    Example:
      kg validate data
      kg validate data/records/saadat-fellay-20261015-result-nt-2-5b-training-\
peak-memory-flashattention-checkpointing-zero2.yaml
      kg validate data --engine pyshacl
    """
    extra = [settings.data] if context and settings.data.is_dir() else []
    if engine == "pyshacl":
        click.echo("kg: validating with pyshacl, the reference SHACL engine", err=True)
        mapped = validate_with_pyshacl(paths, settings.base, extra, progress=progress("mapping"))
        kinds = Counter(m.file.kind for m in mapped)
    else:
        outcomes = validate_files(paths, settings.base, extra, progress=progress("validating"))
        kinds = Counter(o.kind for o in outcomes)
    detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    click.echo(f"kg: {kinds.total()} file(s) valid ({detail})", err=True)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Validate and write every file, changed or not.")
@click.pass_obj
def load(settings: Settings, paths: tuple[Path, ...], force: bool) -> None:
    """Validate data files and load them into the store, all or nothing.

    PATHS are files or directories (default: the data directory). Everything is
    validated first; one invalid file and nothing is written. Reloading a file
    replaces its graph; loading a directory also removes the graphs of files
    deleted from it since the last load. Files unchanged since they were loaded
    (same size and time, or same SHA-256) are skipped, unless the shapes or the
    ontology changed or --force is given.

    \b
    Example:
      kg load                  # the whole data directory
      kg load data/records/saadat-fellay-20261015-result-nt-2-5b-training-peak-\
memory-flashattention-checkpointing-zero2.yaml
    """
    targets = list(paths) or [settings.data]
    with Registry(settings) as registry:
        report = load_paths(
            registry.store, targets, registry.base, progress=progress("validating"), force=force
        )
        registry.write_timeline()
    click.echo(f"kg: {report.summary()}", err=True)


@click.command()
@click.argument("query")
@click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="A value for a query parameter (repeatable).",
)
@click.option(
    "--format",
    "-f",
    "fmt",
    default="table",
    show_default=True,
    type=click.Choice(["table", *RESULT_FORMATS, *GRAPH_RESULT_FORMATS]),
    help=f"How to write the result ({'/'.join(GRAPH_RESULT_FORMATS)} for CONSTRUCT and DESCRIBE).",
)
@click.option(
    "--release",
    "release_id",
    metavar="RELEASE_ID",
    help="Query that release (from the archive) instead of the live store.",
)
@click.pass_obj
def query(
    settings: Settings, query: str, params: tuple[str, ...], fmt: str, release_id: str | None
) -> None:
    """Run a SPARQL query: a canned query by NAME, a FILE.rq, or the query text itself.

    The default graph is the union of the registry's graphs. Parameters are bound
    as values, never pasted into the query text.

    \b
    Example:
      kg query results-for-model --param "model=NT 2.5B"
      kg query 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }' --format csv
      kg query stats --release 2026-12-01-29e28fa058fa
      kg queries            # the canned queries and their parameters
    """
    values = dict(split_params(params))
    text, bindings = _resolve_query(query, values, settings.base)
    with Registry(settings, read_only=True, release=release_id) as registry:
        result = registry.store.query(text, bindings)
        write_result(result, fmt, sys.stdout.buffer, settings.base)


def _resolve_query(query: str, values: dict[str, str], base: str):
    path = Path(query)
    if query.endswith(".rq") and path.is_file():
        sparql = read_sparql_file(path)
    elif query in canned_queries():
        sparql = canned_query(query)
    elif any(c.isspace() for c in query):
        if values:
            raise UsageError(
                "--param works with canned queries and .rq files that declare their parameters"
            )
        return query, None
    else:
        sparql = canned_query(query)  # raises NotFoundError listing the names
    return sparql.text, sparql.bindings(values, base)


@click.command()
@click.pass_obj
def queries(settings: Settings) -> None:
    """List the canned queries with their parameters."""
    for sparql in canned_queries().values():
        params = " ".join(f"--param {p.name}=<{p.kind}>" for p in sparql.params)
        click.echo(f"{sparql.name}  {params}".rstrip())
        click.echo(f"    {sparql.title}: {sparql.description}")


@click.command()
@click.argument("ident", metavar="ID")
@click.option(
    "--format",
    "-f",
    "fmt",
    default="ttl",
    show_default=True,
    type=click.Choice(list(GRAPH_FORMATS)),
    help="The RDF syntax to write.",
)
@click.option(
    "--release",
    "release_id",
    metavar="RELEASE_ID",
    help="The record as that release holds it (from the archive).",
)
@click.pass_obj
def show(settings: Settings, ident: str, fmt: str, release_id: str | None) -> None:
    """Print a record with everything it links to: its own graph, its source, evaluation
    and agents, the reviews, runs and changes of standing about it, and its standing
    where it is not current (docs/standing.md).

    \b
    Example:
      kg show saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-\
flashattention-checkpointing-zero2 --format nq
    """
    with Registry(settings, read_only=True, release=release_id) as registry:
        quads, _ = record_and_standing(registry.store, registry.base, ident)
    write_graph(quads, fmt, sys.stdout.buffer, settings.base)


@click.command()
@click.option(
    "--format",
    "-f",
    "fmt",
    default="table",
    show_default=True,
    type=click.Choice(["table", *RESULT_FORMATS]),
)
@click.pass_obj
def stats(settings: Settings, fmt: str) -> None:
    """Count records, sources, agents, evaluations, reviews, runs, graphs and triples."""
    with Registry(settings, read_only=True) as registry:
        result = registry.store.query(canned_query("stats").text)
        write_result(result, fmt, sys.stdout.buffer, settings.base)
        if Figures.read(registry.store, settings.base) is None:
            click.echo(
                "kg: graphs and triples are counted by kg load, and no load has "
                "counted them in this store yet: run kg load",
                err=True,
            )
