"""The ``kg`` command: a thin adapter over the library.

Errors of the library (:class:`kg.errors.KgError`) become messages on standard
error and exit codes in one place, :meth:`KgGroup.invoke`: 0 ok, 1 invalid input or
a failed check, 2 usage. Standard output carries only results.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import logging
import os
import sys
from collections import Counter
from pathlib import Path

import click

from . import __version__
from .archive import Archive, open_release_store
from .config import Settings, load_settings
from .dump import DUMP_FORMATS, write_dump
from .errors import KgError, NotFoundError, UsageError
from .history import diff_releases, graph_history
from .ingest import validate_files
from .load import ensure_loaded, load_paths
from .output import GRAPH_FORMATS, RESULT_FORMATS, write_graph, write_result
from .records import record_closure
from .release import make_release
from .sparql import canned_queries, canned_query, read_sparql_file
from .store import GraphStore, open_store


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
@click.option("--store", metavar="DIR|URL",
              help="The embedded store's directory, or the http(s) URL of a remote SPARQL "
                   "1.1 store [env KG_STORE; default .kg/store].")
@click.option("--data", metavar="DIR", type=click.Path(path_type=Path),
              help="The data directory [env KG_DATA; default data].")
@click.option("--archive", metavar="DIR", type=click.Path(path_type=Path),
              help="Where releases are kept [env KG_ARCHIVE; default: the store's "
                   "directory + '-archive'].")
@click.pass_context
def main(ctx: click.Context, base: str | None, store: str | None, data: Path | None,
         archive: Path | None) -> None:
    """claimgraph: published research results as a PROV-O knowledge graph.

    Records are YAML files under data/ (see docs/records.md); they are validated by
    the SHACL shapes in shapes/ and loaded into an Oxigraph store.
    """
    # rdflib logs a warning with a traceback for every ill-formed typed literal (a date
    # such as 2026-13-45); the shapes report each as a problem naming file and field.
    logging.getLogger("rdflib.term").setLevel(logging.ERROR)
    ctx.obj = load_settings({"base": base, "store": store, "data": data, "archive": archive})


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


def _progress(label: str, minimum: int = 50):
    """A progress bar on standard error for batches of ``minimum`` items or more (hidden
    when it is not a terminal)."""
    def wrap(items, length: int):
        if length < minimum:
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
@click.option("--release", "release_id", metavar="RELEASE_ID",
              help="Query that release (from the archive) instead of the live store.")
@click.pass_obj
def query(settings: Settings, query: str, params: tuple[str, ...], fmt: str,
          release_id: str | None) -> None:
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
    values = dict(_split_params(params))
    text, bindings = _resolve_query(query, values, settings.base)
    with _read_store(settings, release_id) as store:
        result = store.query(text, bindings)
        write_result(result, fmt, sys.stdout.buffer, settings.base)


def _read_store(settings: Settings, release_id: str | None) -> GraphStore:
    """The live store, or a release's store from the archive; read-only."""
    if release_id:
        return open_release_store(settings.archive_dir, release_id)
    return open_store(settings, read_only=True)


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
@click.option("--release", "release_id", metavar="RELEASE_ID",
              help="The record as that release holds it (from the archive).")
@click.pass_obj
def show(settings: Settings, ident: str, fmt: str, release_id: str | None) -> None:
    """Print a record with everything it links to: its own graph, its source, evaluation
    and agents, and the reviews and runs about it.

    \b
    Example:
      kg show saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-\
flashattention-checkpointing-zero2 --format nq
    """
    with _read_store(settings, release_id) as store:
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


@main.command()
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
    from . import verify as service
    from .reviewfile import VERIFIER
    from .verify import Job

    if every == bool(record) or (record and not pdf) or (every and not pdf_dir):
        raise UsageError("give a record ID with --pdf FILE, or --all with --pdf-dir DIR")
    if (pdf and every) or ((pdf_dir or name_map) and not every):
        raise UsageError("--pdf goes with a record ID; --pdf-dir and --name-map with --all")
    data = data_dir or settings.data
    agent = agent or VERIFIER
    with open_store(settings) as store:
        report = service.load_data(store, data, settings.base, _progress("loading"))
        if report.changed:
            click.echo(f"kg: {report.summary()}", err=True)
        service.check_agent(store, settings.base, agent, data)
        if record:
            assert pdf is not None
            jobs = [Job(service.targets(store, settings.base, record)[0], pdf)]
            matching = None
        else:
            assert pdf_dir is not None
            matching = service.match_pdfs(pdf_dir, service.targets(store, settings.base),
                                          name_map, _progress("hashing PDFs", 2))
            jobs = matching.jobs
            if not jobs:
                raise NotFoundError(f"no PDF in {pdf_dir} is the file of a record's source "
                                    "(by the SHA-256 it pins, or by --name-map)")
        done = service.verify(store, settings.base, data, jobs, agent,
                              _progress("verifying", 2))
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
    from .checks import HASH, PAGE, QUOTE, VALUE
    from .output import text_table

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
        with Archive(settings.archive_dir) as archive:
            body = export_one(store, settings.base, ident, fmt, archive=archive)
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
        entry = write_dump(store, fmt, output, gzip=packed, version=store.version() or "")
    click.echo(f"kg: wrote {output / entry.name}: {entry.quads:,} quads, {entry.bytes:,} bytes, "
               f"sha256 {entry.sha256}", err=True)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port).")
@click.option("--threads", default=8, show_default=True, type=click.IntRange(1, 256),
              help="Worker threads of the WSGI server (in each worker process).")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Worker processes, each a server of its own on the same port (use about "
                   "one per core); each reads the store read-only and follows new versions.")
@click.pass_obj
def serve(settings: Settings, host: str, port: int, threads: int, workers: int) -> None:
    """Serve the linked-data browser with a production WSGI server (waitress).

    On first start (no store yet) the store is created and filled from the data
    directory, so a fresh clone shows its records at once. The index of the
    records (search and facets) is built before serving starts, once for all
    worker processes. /healthz answers 200 when the server is ready. A kg load
    while it runs is picked up within a second, without a restart.

    \b
    Example:
      kg serve
      kg serve --host 0.0.0.0 --port 8080 --workers 2
    """
    import gc
    import time

    from .web import create_app
    from .web.server import serve as run_server
    from .web.state import build_index, state

    report = ensure_loaded(settings, progress=_progress("loading"))
    if report is not None:
        click.echo(f"kg: first start: {report.summary()}", err=True)
    _limit_malloc_arenas()
    started = time.perf_counter()
    version, index = build_index(settings)  # once, shared by the worker processes
    gc.freeze()  # what exists now stays shared between the processes, never collected
    click.echo(f"kg: index of {len(index.rows):,} records built in "
               f"{time.perf_counter() - started:.1f} s", err=True)

    def make_app():  # in each worker process
        app = create_app(dataclasses.asdict(settings))
        state(app).use_index(version, index)
        return app

    run_server(make_app, host, port, threads, workers,
               announce=lambda url: click.echo(f"kg: serving {url} (Ctrl-C to stop)", err=True))


def _limit_malloc_arenas() -> None:
    """Two malloc arenas for the server's threads, unless MALLOC_ARENA_MAX says otherwise.

    glibc gives threads arenas of their own and memory freed in one is not reused by
    another, so a threaded server that rebuilds its catalogue after every load creeps up
    for hours; with two arenas its memory stays flat (bench/README.md, "Reliability").
    Nothing happens where the C library is not glibc.
    """
    if "MALLOC_ARENA_MAX" in os.environ:
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").mallopt(-8, 2)  # -8: M_ARENA_MAX


@main.command()
@click.option("--date", "issued", metavar="YYYY-MM-DD",
              help="The issue date, part of the id [default: today, UTC].")
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
    with open_store(settings, read_only=True) as store:
        report = make_release(store, settings.archive_dir, settings.base, issued, note,
                              progress=_progress("hashing"))
    click.echo(report.id)
    click.echo(f"kg: {report.summary()}", err=True)


@main.command()
@click.pass_obj
def releases(settings: Settings) -> None:
    """List the releases, oldest first: id, issue date and note."""
    with Archive(settings.archive_dir) as archive:
        for info in archive.releases():
            click.echo(f"{info.id}  {info.issued}  {info.note}".rstrip())


@main.command()
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
    with Archive(settings.archive_dir) as archive:
        result = diff_releases(archive, old, new, settings.base, details=not brief)
    for change in result.changes:
        hashes = f" ({(change.old or '')[:12]} -> {(change.new or '')[:12]})" if (
            change.status == "changed") else ""
        click.echo(f"{change.status} {change.kind or 'graph'} {change.ident}{hashes}")
        for line in change.removed:
            click.echo(f"  - {line}")
        for line in change.added:
            click.echo(f"  + {line}")
    counts = ", ".join(f"{result.count(s)} {s}" for s in ("changed", "added", "removed"))
    click.echo(f"kg: {old} -> {new}: {counts} graph(s)", err=True)


@main.command()
@click.argument("ident", metavar="ID")
@click.option("--kind", default="record", show_default=True,
              type=click.Choice(["record", "source", "evaluation", "agent", "activity"]),
              help="What ID names.")
@click.pass_obj
def history(settings: Settings, ident: str, kind: str) -> None:
    """The releases that held a record: each with the record's hash in it, and what
    changed from the version before (statements removed - and added +).

    The upstream registry's releases a record names (upstream_releases) are the source
    registry's, not claimgraph's: kg show lists them.

    \b
    Example:
      kg history saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-\
flashattention-checkpointing-zero2
    """
    from .sparql import to_term

    graph = to_term(kind, ident, settings.base).value
    with Archive(settings.archive_dir) as archive:
        entries = graph_history(archive, graph, settings.base)
    if not entries:
        raise NotFoundError(f"no release holds {kind} {ident!r}")
    for entry in entries:
        click.echo(f"{entry.release.id}  {(entry.hash or '-' * 12)[:12]}  {entry.status}")
        for line in entry.removed:
            click.echo(f"    - {line}")
        for line in entry.added:
            click.echo(f"    + {line}")


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
