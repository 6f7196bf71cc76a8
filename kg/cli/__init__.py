"""The ``kg`` command: a thin adapter over the library, one module per group of commands.

Errors of the library (:class:`kg.errors.KgError`) become messages on standard
error and exit codes in one place, :meth:`KgGroup.invoke`: 0 ok, 1 invalid input or
a failed check, 2 usage. Standard output carries only results.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from .. import __version__
from ..config import SETTINGS, load_settings
from ..errors import KgError
from ..malloc import return_large_blocks

F = TypeVar("F", bound=Callable[..., Any])


#: Each command and where it is defined (module of this package, name). A command's module
#: is imported when the command runs or its help is shown: ``kg load`` then imports none of
#: what the boards' and exports' commands need (0.25 s of every start).
COMMANDS = {
    "validate": ("data", "validate"),
    "load": ("data", "load"),
    "import": ("imports", "import_group"),
    "query": ("data", "query"),
    "queries": ("data", "queries"),
    "show": ("data", "show"),
    "reproduce": ("reproduce", "reproduce"),
    "verify": ("verify", "verify"),
    "export": ("export", "export"),
    "keys": ("keys", "keys"),
    "serve": ("serve", "serve"),
    "release": ("release", "release"),
    "releases": ("release", "releases"),
    "diff": ("release", "diff"),
    "history": ("release", "history"),
    "stats": ("data", "stats"),
    "board": ("boards", "board"),
    "model": ("boards", "model"),
    "settings": ("settings", "settings"),
    "retract": ("standing", "retract"),
    "withdraw": ("standing", "withdraw"),
    "supersede": ("standing", "supersede"),
    "dispute": ("standing", "dispute"),
    "correct": ("standing", "correct"),
    "reinstate": ("standing", "reinstate"),
    "standing": ("standing", "show_standing"),
}


class KgGroup(click.Group):
    """Turns every :class:`KgError` into its lines on standard error and its exit code;
    finds each command where :data:`COMMANDS` says, when it is first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            module, name = COMMANDS[cmd_name]
            command = getattr(importlib.import_module(f"{__name__}.{module}"), name)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KgError as exc:
            problems = getattr(exc, "problems", None)
            for line in exc.lines():
                click.echo(line if problems else f"kg: error: {line}", err=True)
            if problems:
                files = len({p.file for p in problems})
                consequence = getattr(exc, "consequence", "")
                click.echo(
                    f"kg: {len(problems)} problem(s) in {files} file(s)"
                    + (f"; {consequence}" if consequence else ""),
                    err=True,
                )
            ctx.exit(exc.exit_code)


def setting_option(name: str, metavar: str, **kwargs: Any) -> Callable[[F], F]:
    """A ``kg`` option that sets the setting ``name``, with the help and default it is
    declared with (:data:`kg.config.SETTINGS`)."""
    setting = SETTINGS[name]
    return click.option(
        f"--{name.replace('_', '-')}",
        name,
        metavar=metavar,
        help=(f"{setting.help} [env {setting.env}; default {setting.shown_default}]."),
        **kwargs,
    )


@click.group(cls=KgGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kg")
@setting_option("base", "IRI")
@setting_option("store", "DIR|URL")
@setting_option("data", "DIR", type=click.Path(path_type=Path))
@setting_option("archive", "DIR", type=click.Path(path_type=Path))
@click.pass_context
def main(ctx: click.Context, **options: object) -> None:
    """claimgraph: published research results as a PROV-O knowledge graph.

    Records are YAML files under data/ (see docs/records.md); they are validated by
    the SHACL shapes in shapes/ and loaded into an Oxigraph store. Every setting is an
    environment variable too; kg settings lists them all, with their values.
    """
    # rdflib logs a warning with a traceback for every ill-formed typed literal (a date
    # such as 2026-13-45); the shapes report each as a problem naming file and field.
    logging.getLogger("rdflib.term").setLevel(logging.ERROR)
    return_large_blocks()
    ctx.obj = load_settings(options)
