"""Changing the data directory so that a failed import can be undone.

Every file an import replaces or removes is first moved into a journal folder beside the
data (``data/.kg-import-<name>/``, hidden from loads), and every file it adds is listed
there; :meth:`Journal.undo` puts the data back as it was, :meth:`Journal.done` forgets
it. A journal left by an import that was killed is undone by the next import of the same
name before anything else.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ADDED = "added.txt"
BACKUP = "backup"


class Journal:
    """The changes one import makes to a data directory, until it is done."""

    def __init__(self, data: Path, name: str):
        self.data = data
        self.folder = data / f".kg-import-{name}"

    def leftover(self) -> bool:
        """Whether a killed import left a journal behind."""
        return self.folder.is_dir()

    def begin(self) -> None:
        (self.folder / BACKUP).mkdir(parents=True, exist_ok=True)
        (self.folder / ADDED).touch()

    def write(self, relative: str, content: bytes) -> None:
        """Write a file of the data directory (kept aside first if there is one)."""
        target = self.data / relative
        if target.exists():
            self._keep(relative)
        else:
            with (self.folder / ADDED).open("a", encoding="utf-8") as added:
                added.write(relative + "\n")
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.kg-import")
        temporary.write_bytes(content)
        os.replace(temporary, target)

    def remove(self, relative: str) -> None:
        """Remove a file of the data directory (kept aside)."""
        if (self.data / relative).exists():
            self._keep(relative)

    def _keep(self, relative: str) -> None:
        kept = self.folder / BACKUP / relative
        if kept.exists():  # written twice in one import: the first original counts
            (self.data / relative).unlink()
            return
        kept.parent.mkdir(parents=True, exist_ok=True)
        os.replace(self.data / relative, kept)

    def undo(self) -> None:
        """Put every file back as it was before the import, then forget the journal."""
        added = self.folder / ADDED
        if added.exists():
            for line in added.read_text(encoding="utf-8").splitlines():
                if line:
                    (self.data / line).unlink(missing_ok=True)
                    _prune_empty((self.data / line).parent, self.data)
        backup = self.folder / BACKUP
        if backup.is_dir():
            for path in sorted(p for p in backup.rglob("*") if p.is_file()):
                target = self.data / path.relative_to(backup)
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(path, target)
        self.done()

    def done(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _prune_empty(folder: Path, stop: Path) -> None:
    """Remove folders the import made that are empty again."""
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
