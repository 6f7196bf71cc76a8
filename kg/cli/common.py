"""What the commands share: progress bars, NAME=VALUE parameters, opening a store to read."""

from __future__ import annotations

import sys

import click

from ..errors import UsageError


def progress(label: str, minimum: int = 50):
    """A progress bar on standard error for batches of ``minimum`` items or more, only
    when standard error is a terminal (click would still print the label to a pipe, a
    line that scripts reading the messages would have to skip)."""

    def wrap(items, length: int):
        if length < minimum or not sys.stderr.isatty():
            yield from items
            return
        with click.progressbar(items, length=length, label=label, file=sys.stderr) as bar:
            yield from bar

    return wrap


def split_params(params: tuple[str, ...], option: str = "--param"):
    """``NAME=VALUE`` items as pairs.

    :raises UsageError: naming ``option``, for an item without a name and an ``=``.
    """
    for item in params:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"{option} takes NAME=VALUE (got {item!r})")
        yield name, value
