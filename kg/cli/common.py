"""What the commands share: progress bars, NAME=VALUE parameters, opening a store to read."""

from __future__ import annotations

import sys

import click

from ..config import Settings
from ..errors import UsageError
from ..release.archive import open_release_store
from ..store import GraphStore, open_store


def progress(label: str, minimum: int = 50):
    """A progress bar on standard error for batches of ``minimum`` items or more (hidden
    when it is not a terminal)."""
    def wrap(items, length: int):
        if length < minimum:
            yield from items
            return
        with click.progressbar(items, length=length, label=label, file=sys.stderr) as bar:
            yield from bar
    return wrap


def split_params(params: tuple[str, ...]):
    for item in params:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--param takes NAME=VALUE (got {item!r})")
        yield name, value


def read_store(settings: Settings, release_id: str | None) -> GraphStore:
    """The live store, or a release's store from the archive; read-only."""
    if release_id:
        return open_release_store(settings.archive_dir, release_id)
    return open_store(settings, read_only=True)
