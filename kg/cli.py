"""The ``kg`` command: a thin adapter over the library.

Errors of the library (:class:`kg.errors.KgError`) become messages on standard
error and exit codes in one place, :meth:`KgGroup.invoke`: 0 ok, 1 invalid input or
a failed check, 2 usage. Standard output carries only results.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click

from . import __version__
from .config import Settings, load_settings
from .errors import KgError
from .validation import context_graph, validate_paths


class KgGroup(click.Group):
    """Turns every :class:`KgError` into its lines on standard error and its exit code."""

    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except KgError as exc:
            for line in exc.lines():
                click.echo(line, err=True)
            summary = _summary(exc)
            if summary:
                click.echo(summary, err=True)
            ctx.exit(exc.exit_code)


def _summary(exc: KgError) -> str:
    problems = getattr(exc, "problems", None)
    if not problems:
        return ""
    files = len({p.file for p in problems})
    return f"kg: {len(problems)} problem(s) in {files} file(s)"


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
    extra = None
    if context and settings.data.is_dir():
        extra = context_graph([settings.data], settings.base, exclude=_files_under(paths))
    mapped = validate_paths(paths, settings.base, extra)
    kinds = Counter(m.file.kind for m in mapped)
    detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    click.echo(f"kg: {len(mapped)} file(s) valid ({detail})", err=True)


def _files_under(paths: tuple[Path, ...]) -> list[Path]:
    from .datafiles import find_data_files

    return find_data_files(paths)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
