"""The ``kg`` command: a thin adapter over the library.

Errors of the library (:class:`kg.errors.KgError`) become messages on standard
error and exit codes in one place, :meth:`KgGroup.invoke`: 0 ok, 1 invalid input or
a failed check, 2 usage. Standard output carries only results.
"""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter
from pathlib import Path

import click

from . import __version__
from .config import Settings, load_settings
from .dump import DUMP_FORMATS, write_dump
from .errors import KgError, UsageError
from .ingest import validate_files
from .load import ensure_loaded, load_paths
from .output import GRAPH_FORMATS, RESULT_FORMATS, write_graph, write_result
from .records import record_closure
from .sparql import canned_queries, canned_query, read_sparql_file
from .store import open_store


class KgGroup(click.Group):
    """Turns every :class:`KgError` into its lines on standard error and its exit code."""

    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except KgError as exc:
            problems = getattr(exc, "problems", None)
            for line in exc.lines():
                click.echo(line if problems else f"kg: error: {line}", err=True)
            if problems:
                files = len({p.file for p in problems})
                consequence = getattr(exc, "consequence", "")
                click.echo(f"kg: {len(problems)} problem(s) in {files} file(s)"
                           + (f"; {consequence}" if consequence else ""), err=True)
            ctx.exit(exc.exit_code)


@click.group(cls=KgGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kg")
@click.option("--base", metavar="IRI", help="The registry's base IRI [env KG_BASE; "
              "default https://claimgraph.example/].")
@click.option("--store", metavar="DIR", type=click.Path(path_type=Path),
              help="The embedded store's directory [env KG_STORE; default .kg/store].")
@click.option("--data", metavar="DIR", type=click.Path(path_type=Path),
              help="The data directory [env KG_DATA; default data].")
@click.pass_context
def main(ctx: click.Context, base: str | None, store: Path | None, data: Path | None) -> None:
    """claimgraph: published research results as a PROV-O knowledge graph.

    Records are YAML files under data/ (see docs/records.md); they are validated by
    the SHACL shapes in shapes/ and loaded into an Oxigraph store.
    """
    ctx.obj = load_settings({"base": base, "store": store, "data": data})


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--context/--no-context", default=True, show_default=True,
              help="Resolve references (to sources, agents, ...) against the other files "
                   "of the data directory too.")
@click.pass_obj
def validate(settings: Settings, paths: tuple[Path, ...], context: bool) -> None:
    """Validate data files (or directories of them, searched recursively).

    Every problem is one line: file, record, field, what is wrong and the value
    as written. Exits 0 when all files are valid, 1 when any is not.

    \b
    Example:
      kg validate data
      kg validate data/records/my-record.yaml
    """
    extra = [settings.data] if context and settings.data.is_dir() else []
    outcomes = validate_files(paths, settings.base, extra, progress=_progress("validating"))
    kinds = Counter(o.kind for o in outcomes)
    detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    click.echo(f"kg: {len(outcomes)} file(s) valid ({detail})", err=True)


@main.command()
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
      kg load data/records/x.yaml
    """
    targets = list(paths) or [settings.data]
    with open_store(settings) as store:
        report = load_paths(store, targets, settings.base, progress=_progress("validating"),
                            force=force)
    click.echo(f"kg: {report.summary()}", err=True)


def _progress(label: str):
    """A progress bar on standard error for long batches (hidden when it is not a terminal)."""
    def wrap(items, length: int):
        if length < 50:
            yield from items
            return
        with click.progressbar(items, length=length, label=label, file=sys.stderr) as bar:
            yield from bar
    return wrap


@main.command()
@click.argument("query")
@click.option("--param", "-p", "params", multiple=True, metavar="NAME=VALUE",
              help="A value for a query parameter (repeatable).")
@click.option("--format", "-f", "fmt", default="table", show_default=True,
              type=click.Choice(["table", *RESULT_FORMATS, "ttl", "nt", "jsonld"]),
              help="How to write the result (ttl/nt/jsonld for CONSTRUCT and DESCRIBE).")
@click.pass_obj
def query(settings: Settings, query: str, params: tuple[str, ...], fmt: str) -> None:
    """Run a SPARQL query: a canned query by NAME, a FILE.rq, or the query text itself.

    The default graph is the union of the registry's graphs. Parameters are bound
    as values, never pasted into the query text.

    \b
    Example:
      kg query results-for-model --param "model=NT 2.5B"
      kg query 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }' --format csv
      kg queries            # the canned queries and their parameters
    """
    values = dict(_split_params(params))
    text, bindings = _resolve_query(query, values, settings.base)
    with open_store(settings, read_only=True) as store:
        result = store.query(text, bindings)
        write_result(result, fmt, sys.stdout.buffer, settings.base)


def _resolve_query(query: str, values: dict[str, str], base: str):
    path = Path(query)
    if query.endswith(".rq") and path.is_file():
        sparql = read_sparql_file(path)
    elif query in canned_queries():
        sparql = canned_query(query)
    elif any(c.isspace() for c in query):
        if values:
            raise UsageError("--param works with canned queries and .rq files that declare "
                             "their parameters")
        return query, None
    else:
        sparql = canned_query(query)  # raises NotFoundError listing the names
    return sparql.text, sparql.bindings(values, base)


@main.command()
@click.pass_obj
def queries(settings: Settings) -> None:
    """List the canned queries with their parameters."""
    for sparql in canned_queries().values():
        params = " ".join(f"--param {p.name}=<{p.kind}>" for p in sparql.params)
        click.echo(f"{sparql.name}  {params}".rstrip())
        click.echo(f"    {sparql.title}: {sparql.description}")


@main.command()
@click.argument("ident", metavar="ID")
@click.option("--format", "-f", "fmt", default="ttl", show_default=True,
              type=click.Choice(list(GRAPH_FORMATS)), help="The RDF syntax to write.")
@click.pass_obj
def show(settings: Settings, ident: str, fmt: str) -> None:
    """Print a record with everything it links to: its own graph, its source, evaluation
    and agents, and the reviews and runs about it.

    \b
    Example:
      kg show saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-\
flashattention-checkpointing-zero2 --format nq
    """
    with open_store(settings, read_only=True) as store:
        quads = record_closure(store, settings.base, ident)
    write_graph(quads, fmt, sys.stdout.buffer, settings.base)


@main.command()
@click.argument("record", metavar="RECORD_ID")
@click.option("--recipe", help="The recipe's name (default: the one that declares the record).")
@click.option("--stage", "stages", multiple=True, help="A stage to run (repeatable; default all).")
@click.option("--param", "-p", "params", multiple=True, metavar="NAME=VALUE",
              help="A recipe parameter (repeatable).")
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path),
              help="The run file, or a directory to write <run id>.yaml into (and logs/).")
@click.option("--agent", default="claimgraph-runner", show_default=True,
              help="The id of the agent file of whoever runs it.")
@click.pass_obj
def reproduce(settings: Settings, record: str, recipe: str | None, stages: tuple[str, ...],
              params: tuple[str, ...], output: Path, agent: str) -> None:
    """Run a recipe that measures RECORD_ID's claim again, here, and write a run file.

    Each stage runs in a process of its own; the environment (GPU, driver, CUDA,
    CPU, RAM, Python, package versions, a hash of the host name) is captured, and
    the verdict compares the claim measurement with the record's value using the
    tolerance fixed in the recipe. Load the run file with kg load. See docs/runs.md.

    \b
    Example:
      kg reproduce saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-\
flashattention-checkpointing-zero2 --param precision=bf16 -o data/runs/
    """
    from .reproduce import ReproduceError
    from .reproduce import reproduce as run_recipe

    given = dict(_split_params(params))
    try:
        doc = run_recipe(record, recipe, list(stages) or None, given, settings.data, output,
                         agent, progress=lambda m: click.echo(f"kg: {m}", err=True))
    except ReproduceError as exc:
        raise UsageError(str(exc)) from None
    click.echo(f"kg: wrote {doc['file']}: {doc['status']}, verdict {doc['verdict']['outcome']}",
               err=True)
    if doc["status"] != "completed":
        raise click.exceptions.Exit(1)


def _split_params(params: tuple[str, ...]):
    for item in params:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--param takes NAME=VALUE (got {item!r})")
        yield name, value


EXPORT_FORMATS = ["jsonld", "csl-json", "bibtex", "ris", "ro-crate", "nquads", "trig"]


@main.command()
@click.argument("ident", metavar="[ID]", required=False)
@click.option("--all", "everything", is_flag=True,
              help="Dump the whole store, streamed (formats nquads, trig, jsonld), into -o DIR "
                   "with a SHA-256 manifest (manifest.json, SHA256SUMS).")
@click.option("--format", "-f", "fmt", required=True, type=click.Choice(EXPORT_FORMATS),
              help="jsonld: a record as framed JSON-LD (with --all: the store as expanded "
                   "JSON-LD); csl-json, bibtex, ris: the citation of a record (its source at "
                   "the cited place, and the record) or of a source; ro-crate: a reproduction "
                   "run as a Process Run Crate (a directory); nquads, trig: with --all.")
@click.option("--gzip", "packed", is_flag=True, help="With --all: write the dump gzipped.")
@click.option("-o", "--output", type=click.Path(path_type=Path),
              help="The file to write (default: standard output); a directory for ro-crate "
                   "and --all.")
@click.pass_obj
def export(settings: Settings, ident: str | None, everything: bool, fmt: str, packed: bool,
           output: Path | None) -> None:
    """Export a record, source or run in a format for other tools, or the whole store.

    \b
    Example:
      kg export saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-\
flashattention-checkpointing-zero2 --format bibtex
      kg export saadat-fellay-2026-genomic-lm-efficiency --format ris -o source.ris
      kg export nt-peak-memory-20261130t084842z-c90d873f --format ro-crate -o crate/
      kg export --all --format nquads --gzip -o dumps/
    """
    if everything:
        _export_all(settings, ident, fmt, packed, output)
        return
    if ident is None:
        raise UsageError("kg export needs an ID, or --all for the whole store")
    if packed:
        raise UsageError("--gzip is for --all")
    if fmt in ("nquads", "trig"):
        raise UsageError(f"--format {fmt} is for --all (one record: kg show ID --format nq)")
    # imported here: pyld and friends would slow every kg command (and the query workers
    # kg serve spawns, which import this module again)
    from .exports import export as export_one

    with open_store(settings, read_only=True) as store:
        if fmt == "ro-crate":
            if output is None:
                raise UsageError("--format ro-crate writes a directory: give -o DIR")
            from .rocrate import write_run_crate

            path = write_run_crate(store, settings.base, ident, output)
            click.echo(f"kg: wrote {path}", err=True)
            return
        body = export_one(store, settings.base, ident, fmt)
    if output is None:
        sys.stdout.buffer.write(body)
        return
    output.write_bytes(body)
    click.echo(f"kg: wrote {output}", err=True)


def _export_all(settings: Settings, ident: str | None, fmt: str, packed: bool,
                output: Path | None) -> None:
    if ident is not None:
        raise UsageError("give an ID or --all, not both")
    if fmt not in DUMP_FORMATS:
        raise UsageError(f"--all dumps as {', '.join(DUMP_FORMATS)} (not {fmt})")
    if output is None:
        raise UsageError("--all writes a directory: give -o DIR")
    with open_store(settings, read_only=True) as store:
        version = getattr(store, "version", None)
        entry = write_dump(store, fmt, output, gzip=packed,
                           version=version.name if version else "")
    click.echo(f"kg: wrote {output / entry.name}: {entry.quads:,} quads, {entry.bytes:,} bytes, "
               f"sha256 {entry.sha256}", err=True)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port).")
@click.option("--threads", default=8, show_default=True, type=click.IntRange(1, 256),
              help="Worker threads of the WSGI server.")
@click.pass_obj
def serve(settings: Settings, host: str, port: int, threads: int) -> None:
    """Serve the linked-data browser with a production WSGI server (waitress).

    On first start (no store yet) the store is created and filled from the data
    directory, so a fresh clone shows its records at once. /healthz answers 200
    when the server is ready.

    \b
    Example:
      kg serve
      kg serve --host 0.0.0.0 --port 8080
    """
    from waitress.server import create_server

    from .web import create_app
    from .web.state import close as close_app

    report = ensure_loaded(settings, progress=_progress("loading"))
    if report is not None:
        click.echo(f"kg: first start: {report.summary()}", err=True)
    app = create_app(dataclasses.asdict(settings))
    server = create_server(app, host=host, port=port, threads=threads, ident="claimgraph")
    click.echo(f"kg: serving http://{server.effective_host}:{server.effective_port}/ "
               "(Ctrl-C to stop)", err=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        close_app(app)


@main.command()
@click.option("--format", "-f", "fmt", default="table", show_default=True,
              type=click.Choice(["table", *RESULT_FORMATS]))
@click.pass_obj
def stats(settings: Settings, fmt: str) -> None:
    """Count records, sources, agents, evaluations, reviews, runs, graphs and triples."""
    with open_store(settings, read_only=True) as store:
        result = store.query(canned_query("stats").text)
        write_result(result, fmt, sys.stdout.buffer, settings.base)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
