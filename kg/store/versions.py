"""The embedded store's immutable versions on disk: which one is live, switching it, and
removing the versions nobody will read again.

Layout of the store directory::

    .kg/store/
      live -> v-1764491234567890123     the version readers open (a symlink)
      v-1764491234567890123/             a pyoxigraph (RocksDB) directory
      v-1764491234567890123.manifest.sqlite   its load manifest (which file each graph came from)
      v-1764491234567890123.copies.sqlite     which copy of copies.sqlite each graph has
      copies.sqlite                      a text copy of each graph, shared (kg.store.copies)
      write.lock                         held by the one process that writes
      readers/<version>.<pid>.<token>    a reader's lease on a version (see Lease)
      kg-load-*/                         a load's spool (chunks of N-Quads), while it runs

A version is never changed once live: a write makes a new one and repoints ``live`` with
one atomic rename (:func:`switch_live`), so a crash leaves ``live`` on the old version and
readers that opened it keep a consistent snapshot. The next writer removes what a crashed
one left (:func:`remove_leftovers`).
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
import weakref
from datetime import UTC, datetime
from pathlib import Path

from ..errors import StoreError
from .copies import collect, remove_map
from .manifests import remove_manifest

#: The index file beside a version (kg.store.index): removed with the version.
INDEX_SUFFIX = ".index.sqlite"
#: What an index being written has beside it (added to its name): itself under a temporary
#: name, and the fields it reads (kg/store/index/field_scan.py).
INDEX_TEMPORARY, INDEX_FIELDS = ".tmp", ".fields"

LIVE = "live"
KEEP_VERSIONS = 2
READERS = "readers"


def live_version(root: Path) -> Path | None:
    """The version directory readers should open, or None for a store never written."""
    link = root / LIVE
    if not link.is_symlink():
        return None
    target = root / os.readlink(link)
    return target if target.is_dir() else None


def version_time(version: str | None) -> datetime | None:
    """When the write that made ``version`` ran: every store's version token ends in the
    nanoseconds of its write (``v-<ns>`` here, ``<kind>-<ns>`` on a remote store); None
    for a token without one (an in-memory store's).

    >>> version_time("v-1764491234567890123").isoformat()
    '2025-11-30T08:27:14.567890+00:00'
    >>> version_time("memory-3") is None
    True
    """
    digits = (version or "").rpartition("-")[2]
    if len(digits) < 16 or not digits.isdigit():
        return None
    return datetime.fromtimestamp(int(digits) / 1e9, UTC)


def new_version(root: Path) -> Path:
    """The directory for a version made now (named v-<nanoseconds>: names sort by age)."""
    return root / f"v-{time.time_ns()}"


def switch_live(root: Path, version: Path) -> None:
    """Point ``live`` at ``version`` in one atomic rename, durably."""
    temporary = root / f".{LIVE}-{version.name}"
    temporary.unlink(missing_ok=True)
    os.symlink(version.name, temporary)
    os.replace(temporary, root / LIVE)
    directory = os.open(root, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def remove_version(version: Path) -> None:
    """Remove a version, its manifest and its map of copies (one that never went live,
    or an old one)."""
    shutil.rmtree(version, ignore_errors=True)
    for derived in (INDEX_SUFFIX, INDEX_SUFFIX + INDEX_TEMPORARY, INDEX_SUFFIX + INDEX_FIELDS):
        version.with_name(version.name + derived).unlink(missing_ok=True)
    remove_manifest(version)
    remove_map(version)


def remove_leftovers(root: Path, live: Path | None) -> None:
    """Remove what a writer that died (SIGKILL, power loss) left behind: the version it was
    writing, which never went live, its manifest and map of copies, its temporary link and
    its spool file (the copies it was adding were never committed).
    Only the holder of the write lock calls this, and only the lock holder writes, so
    nothing removed here is in use; readers only ever open the live version."""

    def newer(version: Path) -> bool:
        return live is None or _stamp(version) > _stamp(live)

    for version in root.glob("v-*"):
        if version.is_dir() and newer(version):
            remove_version(version)
    for beside in root.glob("v-*.*"):  # a manifest or map whose version is gone
        if not beside.with_name(beside.name.split(".", 1)[0]).is_dir():
            beside.unlink(missing_ok=True)
    for temporary in root.glob(f".{LIVE}-*"):
        temporary.unlink(missing_ok=True)
    for spool in root.glob("kg-load-*"):
        shutil.rmtree(spool, ignore_errors=True)


def _stamp(version: Path) -> int:
    """The time a version was made, from its name (v-<nanoseconds>)."""
    try:
        return int(version.name.removeprefix("v-"))
    except ValueError:
        return -1


def prune(root: Path, keep: set[Path]) -> None:
    """Drop old versions, keeping the newest few and every version a living reader holds
    a lease on: a server still answering from an older version (its next index is being
    built) has its query workers open that version afresh, which must still be there.
    Then the text copies no remaining version names go (:func:`.copies.collect`)."""
    versions = sorted((p for p in root.glob("v-*") if p.is_dir()), key=_stamp)
    held = leased(root)
    removed = [old for old in versions[:-KEEP_VERSIONS] if old not in keep and old.name not in held]
    for old in removed:
        remove_version(old)
    if removed:  # only what a version named can have become nobody's
        collect(root)


class Lease:
    """A reader's claim on a version: :func:`prune` leaves the version in place while the
    process that took the lease lives and the lease is not released. Released when the
    object is (the handle that reads the version is dropped), or when its process ends:
    a lease of a process that is gone counts for nothing and is removed by the next prune.

    A reader that may not write to the store directory (a read-only mount) takes no lease;
    nothing prunes such a directory either.
    """

    def __init__(self, root: Path, version: Path):
        name = f"{version.name}.{os.getpid()}.{secrets.token_hex(4)}"
        self.path: Path | None = root / READERS / name
        try:
            self.path.parent.mkdir(exist_ok=True)
            self.path.touch()
        except OSError:
            self.path = None
        # Only the process that took it removes it: a forked child exits without it.
        self._release = weakref.finalize(self, _remove_lease, self.path, os.getpid())

    def release(self) -> None:
        self._release()


def leased_live_version(path: Path) -> tuple[Path, Lease]:
    """The live version with a lease on it, taken before the version is opened: a writer
    that switched and pruned between reading ``live`` and the lease is seen, and the new
    live version taken instead."""
    for _attempt in range(10):
        version = live_version(path)
        if version is None:
            raise StoreError(f"no store at {path} (run 'kg load' to create it)")
        lease = Lease(path, version)
        if version.is_dir():
            return version, lease
        lease.release()
    raise StoreError(f"the store at {path} changed too often to be opened; try again")


def _remove_lease(path: Path | None, owner: int) -> None:
    if path is not None and os.getpid() == owner:
        path.unlink(missing_ok=True)


def leased(root: Path) -> set[str]:
    """The names of the versions living readers hold leases on (stale leases removed)."""
    held: set[str] = set()
    try:
        leases = list((root / READERS).iterdir())
    except OSError:
        return held
    for lease in leases:
        version, _, rest = lease.name.partition(".")
        pid = rest.partition(".")[0]
        if pid.isdigit() and _alive(int(pid)):
            held.add(version)
        else:
            lease.unlink(missing_ok=True)
    return held


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True
