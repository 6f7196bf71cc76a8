"""What ``kg import`` reads: an origin repository's files, from folders, files or an archive.

Each result file is named by its path in the origin repository (``data/hfopenllm_v2/...``),
which is where it is kept and what its records' ids are made of; so a source must show
where its files lie in the repository. The format names the repository's results folder
(its ``results_root``, ``data/`` for Every Eval Ever):

- a folder holding ``data/`` is the repository's root; a folder called ``data`` (or a
  folder inside one) is its results folder, or part of it;
- a single file lies in the repository at its path from the nearest folder called ``data``;
- a ``.tar.gz`` holds the repository's root (possibly inside one top folder, as GitHub's
  archives do).

Folders named like files (``tulu-2-7b-rm-v0.json/``) are folders. The repository's
``LICENSE`` comes along where the source has one.
"""

from __future__ import annotations

import hashlib
import os
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ...errors import Problem, UsageError
from .jsondoc import MAX_JSON_BYTES

LICENCE_NAMES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "COPYING")
#: An archive member larger than this is refused before it is read.
MAX_MEMBER_BYTES = MAX_JSON_BYTES


@dataclass(frozen=True)
class Incoming:
    """One result file of the origin: where it lies there, its bytes, how messages name it."""

    path: str
    raw: bytes
    shown: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.raw).hexdigest()


@dataclass
class Snapshot:
    """Everything the sources hold: result files, the licence, the archive read (if any)."""

    files: dict[str, Incoming] = field(default_factory=dict)
    licence: bytes | None = None
    archive: tuple[str, str] | None = None  # (file name, SHA-256)
    problems: list[Problem] = field(default_factory=list)

    def add(self, item: Incoming) -> None:
        first = self.files.get(item.path)
        if first is not None:
            self.problems.append(
                Problem(
                    item.shown,
                    "",
                    "",
                    f"the same repository path as {first.shown} ({item.path}): give each file once",
                )
            )
            return
        self.files[item.path] = item


def read_sources(sources: list[Path], results_root: str) -> Snapshot:
    """The result files (and licence) of ``sources``, an origin repository whose result
    files lie in its folder ``results_root`` (``data/``).

    :raises UsageError: for a source that does not exist, or whose place in the origin
        repository cannot be told.
    """
    snapshot = Snapshot()
    folder = results_root.rstrip("/")
    for source in sources:
        if source.is_dir():
            _read_folder(source, snapshot, results_root)
        elif source.is_file() and source.name.endswith((".tar.gz", ".tgz")):
            _read_archive(source, snapshot, results_root)
        elif source.is_file() and source.suffix == ".json":
            root = _results_parent(source.parent, results_root)
            if root is None:
                raise UsageError(
                    f"{source}: cannot tell where this file lies in the origin "
                    f"repository (no folder called '{folder}' above it); give the "
                    f"repository's folder, its {folder}/ folder or an archive"
                )
            snapshot.add(_read_file(source, root))
        elif source.exists():
            raise UsageError(f"{source}: not a folder, a .json file or a .tar.gz archive")
        else:
            raise UsageError(f"{source}: no such file or directory")
    _same_bytes(snapshot)
    return snapshot


def _results_parent(folder: Path, results_root: str) -> Path | None:
    """The repository root a folder lies in: the parent of the nearest folder named
    like the results folder, at or above ``folder``."""
    name = results_root.rstrip("/")
    for candidate in (folder, *folder.parents):
        if candidate.name == name:
            return candidate.parent
    return None


def _read_folder(folder: Path, snapshot: Snapshot, results_root: str) -> None:
    if (folder / results_root).is_dir():
        root, start = folder, folder / results_root
        _licence(root, snapshot)
    else:
        found = _results_parent(folder, results_root)
        if found is None:
            name = results_root.rstrip("/")
            raise UsageError(
                f"{folder}: cannot tell where its files lie in the origin "
                f"repository: give the repository's folder (holding {name}/), its "
                f"{name}/ folder, a folder inside that, or an archive"
            )
        root, start = found, folder
        _licence(root, snapshot)
    for path in sorted(_json_files(start)):
        snapshot.add(_read_file(path, root))


def _json_files(folder: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(".json") and not name.startswith("."):
                yield Path(dirpath, name)


def _read_file(path: Path, root: Path) -> Incoming:
    relative = path.resolve().relative_to(root.resolve()).as_posix()
    size = path.stat().st_size
    if size > MAX_JSON_BYTES:
        raise UsageError(
            f"{path}: too large for an upstream file ({size / 1e6:.1f} MB; at most "
            f"{MAX_JSON_BYTES / 1e6:.0f} MB)"
        )
    return Incoming(relative, path.read_bytes(), str(path))


def _licence(root: Path, snapshot: Snapshot) -> None:
    for name in LICENCE_NAMES:
        if (root / name).is_file() and snapshot.licence is None:
            snapshot.licence = (root / name).read_bytes()


def _read_archive(archive: Path, snapshot: Snapshot, results_root: str) -> None:
    digest = hashlib.sha256()
    with archive.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    snapshot.archive = (archive.name, digest.hexdigest())
    try:
        with tarfile.open(archive, "r:gz") as tar:
            members = [m for m in tar.getmembers() if m.isfile()]
            prefix = _top_folder([m.name for m in members], results_root)
            for member in members:
                inner = _safe_name(member.name, archive)
                if prefix:
                    inner = inner.removeprefix(prefix)
                if inner in LICENCE_NAMES and snapshot.licence is None:
                    snapshot.licence = _member_bytes(tar, member, archive)
                elif inner.startswith(results_root) and inner.endswith(".json"):
                    snapshot.add(
                        Incoming(inner, _member_bytes(tar, member, archive), f"{archive}:{inner}")
                    )
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise UsageError(f"{archive}: not a readable .tar.gz archive ({exc})") from None


def _top_folder(names: list[str], results_root: str) -> str:
    """``repo-commit/`` when every member lies in one top folder other than the results
    folder (GitHub's archives), else ""."""
    tops = {PurePosixPath(n).parts[0] for n in names if PurePosixPath(n).parts}
    if len(tops) == 1 and all("/" in n for n in names):
        top = tops.pop()
        if f"{top}/" != results_root:
            return f"{top}/"
    return ""


def _safe_name(name: str, archive: Path) -> str:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts:
        raise UsageError(f"{archive}: member {name!r} lies outside the archive's folder")
    return path.as_posix()


def _member_bytes(tar: tarfile.TarFile, member: tarfile.TarInfo, archive: Path) -> bytes:
    if member.size > MAX_MEMBER_BYTES:
        raise UsageError(f"{archive}:{member.name}: too large for an upstream file")
    stream = tar.extractfile(member)
    if stream is None:
        raise UsageError(f"{archive}:{member.name}: cannot be read")
    return stream.read()


def _same_bytes(snapshot: Snapshot) -> None:
    """The same bytes under two paths: a file is kept once (the later is the problem)."""
    first: dict[str, Incoming] = {}
    for path in sorted(snapshot.files):
        item = snapshot.files[path]
        seen = first.setdefault(item.sha256, item)
        if seen is not item:
            snapshot.problems.append(
                Problem(
                    item.shown,
                    "",
                    "",
                    f"the same bytes as {seen.shown} (an upstream file is kept once)",
                )
            )
