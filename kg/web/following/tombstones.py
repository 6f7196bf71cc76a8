"""What a removed record's address answers: 410 Gone, with what the record was, when and
why it went, and the last release that held it (read from that release's copy)."""

from __future__ import annotations

from ...errors import GoneError
from ...read.closure import path_of
from ...store.index.timeline import Tombstone, tombstone, what_it_was
from ...store.standing import standing
from ..state import AppState


def gone_if_removed(app: AppState, record: str, ident: str) -> None:
    """Nothing for a record no release held (a plain 404 follows).

    :raises GoneError: for a record a release held and the live data does not.
    """
    stone = tombstone(app.archive, record, app.settings.base, app.version)
    if stone is not None:
        raise gone(app, stone)


def gone(app: AppState, stone: Tombstone) -> GoneError:
    """The answer for ``stone``: the error the web app's one handler turns into a 410 page."""
    last = stone.last
    store = app.archive.release_store(last.id)
    title, value = what_it_was(app.archive, stone)
    was = standing(store, stone.record)
    if stone.removed_in is not None:
        when = f"in release {stone.removed_in.id}, issued {stone.removed_in.issued} ({stone.at})"
        when_link = f"/release/{stone.removed_in.id}"
    else:
        when = (
            f"from the data loaded at {stone.at}, after release {last.id}; the next "
            "release will no longer hold it"
        )
        when_link = None
    why = []
    if not was.is_current:
        why.append(f"its standing in release {last.id} was {was.standing}: {was.reason}")
    if stone.removed_in is not None and stone.removed_in.note:
        why.append(f"release {stone.removed_in.id} says: {stone.removed_in.note}")
    details = [
        (
            "What it was",
            f"{title}{f' ({value})' if value else ''}",
            f"{path_of(stone.record, app.settings.base)}?release={last.id}",
        ),
        ("When it went", when, when_link),
        ("Why", "; ".join(why) or "no reason was recorded: its data file was removed", None),
        ("Last release that held it", f"{last.id}, issued {last.issued}", f"/release/{last.id}"),
    ]
    return GoneError(f"record {stone.ident} was removed from the registry", details)
