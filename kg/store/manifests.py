"""The load manifest of an embedded store's version: a SQLite file beside the version,
one row per graph (the file it came from, its SHA-256, size and modification time, the
triples the graph holds, whether it is a node's graph and its links to other sites)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path

from .base import Manifest, ManifestEntry, manifest_from_json
from .sidefiles import rewritten, unfinished


def _manifest_path(version: Path) -> Path:
    return version.with_name(version.name + ".manifest.sqlite")


def _legacy_manifest_path(version: Path) -> Path:
    return version.with_name(version.name + ".manifest.json")  # stores written before SQLite


def _unfinished_manifest_path(version: Path) -> Path:
    return unfinished(_manifest_path(version))


def read_manifest(version: Path) -> Manifest:
    """The load manifest of a version ({} for a version that has none)."""
    path = _manifest_path(version)
    if path.exists():
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            # a manifest written before graphs were counted has none of the last columns,
            # one written before links were counted not the last
            columns = _columns(db)
            counted = "triples, node" if "triples" in columns else "-1, 1"
            links = "links" if "links" in columns else "NULL"
            interned: dict[str, str] = {}  # graphs of one kind mostly link alike
            return {
                graph: ManifestEntry(
                    file,
                    sha256,
                    size,
                    mtime_ns,
                    triples,
                    bool(node),
                    text and interned.setdefault(text, text),
                )
                for graph, file, sha256, size, mtime_ns, triples, node, text in db.execute(
                    f"SELECT graph, file, sha256, size, mtime_ns, {counted}, {links} FROM manifest"
                )
            }
    legacy = _legacy_manifest_path(version)
    if legacy.exists():
        return manifest_from_json(legacy.read_text())
    return {}


def write_manifest(
    version: Path, manifest: Manifest, previous: tuple[Path, Manifest] | None
) -> None:
    """The load manifest of a version, beside it (written before the version goes live).

    A copy of the previous version's manifest with only the changed rows written: a
    one-record reload of 100,000 records rewrites one row, not a 30 MB document.
    """
    rows: Iterable[tuple[str, str, str, int, int, int, bool, str | None]]
    dropped: Iterable[tuple[str]] = ()
    with rewritten(
        _manifest_path(version), _manifest_path(previous[0]) if previous is not None else None
    ) as (db, copied):
        if copied:
            assert previous is not None
            old = previous[1]
            rows = [(graph, *entry) for graph, entry in manifest.items() if old.get(graph) != entry]
            dropped = [(graph,) for graph in old.keys() - manifest.keys()]
        else:
            rows = [(graph, *entry) for graph, entry in manifest.items()]
        db.execute(
            "CREATE TABLE IF NOT EXISTS manifest (graph TEXT PRIMARY KEY, file TEXT, "
            "sha256 TEXT, size INTEGER, mtime_ns INTEGER, triples INTEGER DEFAULT -1, "
            "node INTEGER DEFAULT 1, links TEXT)"
        )
        columns = _columns(db)  # copied from a version written before
        if "triples" not in columns:
            db.execute("ALTER TABLE manifest ADD COLUMN triples INTEGER DEFAULT -1")
            db.execute("ALTER TABLE manifest ADD COLUMN node INTEGER DEFAULT 1")
        if "links" not in columns:
            db.execute("ALTER TABLE manifest ADD COLUMN links TEXT")
        db.execute("BEGIN")
        db.executemany("DELETE FROM manifest WHERE graph = ?", dropped)
        db.executemany(
            "INSERT OR REPLACE INTO manifest (graph, file, sha256, size, mtime_ns, "
            "triples, node, links) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        db.execute("COMMIT")


def _columns(db: sqlite3.Connection) -> set[str]:
    return {row[1] for row in db.execute("PRAGMA table_info(manifest)")}


def remove_manifest(version: Path) -> None:
    """Remove the manifest of a version, whichever form it has, and a half-written one."""
    _manifest_path(version).unlink(missing_ok=True)
    _legacy_manifest_path(version).unlink(missing_ok=True)
    _unfinished_manifest_path(version).unlink(missing_ok=True)
