"""The ``kg`` command: a thin adapter over the library, one module per group of commands.

Errors of the library (:class:`kg.errors.KgError`) become messages on standard
error and exit codes in one place, :meth:`KgGroup.invoke`: 0 ok, 1 invalid input or
a failed check, 2 usage. Standard output carries only results.
"""

from __future__ import annotations

import logging
from pathlib import Path

import click

from .. import __version__
from ..config import load_settings
from ..errors import KgError
from . import data, export, release, reproduce, serve, verify


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



for _command in (data.validate, data.load, data.query, data.queries, data.show, reproduce.reproduce,
                 verify.verify, export.export, serve.serve, release.release, release.releases,
                 release.diff, release.history, data.stats):
    main.add_command(_command)
