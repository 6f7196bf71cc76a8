"""``kg settings``: every setting, its variable, option, default and value now."""

from __future__ import annotations

import json
import os

import click

from ..config import SETTINGS, Settings


@click.command("settings")
@click.option(
    "--format", "-f", "fmt", default="text", show_default=True, type=click.Choice(["text", "json"])
)
@click.pass_context
def settings(ctx: click.Context, fmt: str) -> None:
    """List every setting: its environment variable, its kg option (where it has one),
    its default, its value now and what set it (an option, the environment or the
    default).

    \b
    Example:
      kg settings
      KG_STORE=http://127.0.0.1:7878 kg settings --format json
    """
    rows = list(_rows(ctx, ctx.obj))
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        option = f" ({row['option']})" if row["option"] else ""
        value = SETTINGS[row["name"]].text(row["value"])
        click.echo(f"{row['variable']}{option} = {value}  [{row['set_by']}]")
        click.echo(
            click.wrap_text(
                f"{row['help']}; default {row['default']}.",
                88,
                initial_indent="    ",
                subsequent_indent="    ",
            )
        )


def _rows(ctx: click.Context, current: Settings):
    group = ctx.find_root()
    options = {p.name: p.opts[0] for p in group.command.params if p.name in SETTINGS}
    for name, setting in SETTINGS.items():
        # archive unset means "worked out from the store": the value shown is where it is
        value = current.archive_dir if name == "archive" else getattr(current, name)
        if group.params.get(name) is not None:
            set_by = "option"
        elif os.environ.get(setting.env):  # load_settings skips an empty variable too
            set_by = "environment"
        else:
            set_by = "default"
        yield {
            "name": name,
            "variable": setting.env,
            "option": options.get(name),
            "default": setting.shown_default,
            "value": value if isinstance(value, (int, float)) else str(value),
            "set_by": set_by,
            "help": setting.help,
        }
