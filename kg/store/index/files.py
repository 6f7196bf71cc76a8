"""What the index's files share: one read-only connection per thread and process (the
file opened immutable, its pages mapped, so every process of a server shares them), and a
file made once by whichever process first needs it, the others waiting for it."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from ...errors import StoreError

#: How much of a file each connection maps (shared between processes by the OS).
MMAP_BYTES = 1 << 30


class ReadOnlyFile:
    """A SQLite file of ours, read-only, of the format ``form`` (its ``meta`` table says):
    ``what`` names it in errors ("the index").

    :raises StoreError: when it cannot be opened or read, or is of another format.
    """

    def __init__(self, path: Path, what: str, form: str):
        self.path = path
        self.what = what
        self._local = threading.local()
        #: The file's ``meta`` table (its format checked: ``form``).
        self.meta: dict[str, str] = dict(self.execute("SELECT key, value FROM meta").fetchall())
        if self.meta.get("format") != form:
            raise StoreError(f"{what} {path} is of another format ({self.meta.get('format')!r})")

    @property
    def db(self) -> sqlite3.Connection:
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            try:
                local.db = sqlite3.connect(
                    f"file:{self.path}?mode=ro&immutable=1", uri=True, check_same_thread=False
                )
                local.db.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
                self.prepare(local.db)
            except sqlite3.Error as exc:
                raise StoreError(f"cannot open {self.what} {self.path}: {exc}") from None
            local.pid = os.getpid()
        return local.db

    def prepare(self, db: sqlite3.Connection) -> None:
        """Make a new connection ready (a kind of file adds its SQL functions)."""

    def execute(self, sql: str, parameters: Sequence[object] = ()) -> sqlite3.Cursor:
        try:
            return self.db.execute(sql, parameters)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read {self.what} {self.path}: {exc}") from None


#: How many values one statement lists (below SQLite's limit on a statement's parameters).
PARAMETERS = 500


def rows_among(
    db: sqlite3.Connection | ReadOnlyFile, select: str, values: Collection[Any], *first: object
) -> Iterator[tuple]:
    """The rows of ``select``, which ends in the column compared, IN ``values``: asked
    :data:`PARAMETERS` values at a time; ``first``: the parameters before the list."""
    listed = sorted(values)
    for start in range(0, len(listed), PARAMETERS):
        part = listed[start : start + PARAMETERS]
        yield from db.execute(f"{select} IN ({', '.join('?' * len(part))})", (*first, *part))


def among(db: sqlite3.Connection | ReadOnlyFile, select: str, values: Collection[str]) -> set[str]:
    """The first column of :func:`rows_among`'s rows."""
    return {value for value, *_ in rows_among(db, select, values)}


def made_once(
    path: Path, opens: Callable[[Path], object], write: Callable[[Path], None], keep: int
) -> None:
    """Make sure ``path`` holds a file ``opens`` reads: written by ``write`` where it does
    not, by one process at a time (the others wait, then find it); then the folder keeps
    the newest ``keep`` files of its kind (its name's last two suffixes), ``path`` among them.

    :raises StoreError: when it cannot be written.
    """
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    kind = "".join(path.suffixes[-2:])
    with (folder / f"{kind.strip('.').replace('.', '-')}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            opens(path)
            return
        except StoreError:
            write(path)
    made = sorted(folder.glob(f"*{kind}"), key=lambda p: p.stat().st_mtime)
    for old in made[:-keep]:
        if old != path:
            old.unlink(missing_ok=True)
