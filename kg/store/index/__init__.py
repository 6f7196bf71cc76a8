"""The index: what the pages, facets, boards, search, feeds and sitemap read, kept on disk
with the store version it was read from (docs/index.md).

An embedded store writes each version's index when it writes the version, before the
version goes live (``v-<ns>.index.sqlite`` beside it): a reader opens the pair, never an
index of another version, and a load killed at any step leaves the old pair. A store that
keeps none (a remote one, or a version written before indexes were) has its index built by
the reader into a folder of its own (:func:`index_for`), named by the store's version
marker, once per version.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
import weakref
from pathlib import Path

from ...errors import StoreError
from ..base import GraphStore
from ..versions import INDEX_SUFFIX
from .files import made_once
from .reader import BoardInfo, Index
from .write import write_index

__all__ = [
    "INDEX_SUFFIX",
    "BoardInfo",
    "Index",
    "index_for",
    "usable",
    "version_index",
    "write_index",
]

log = logging.getLogger(__name__)

#: How many built indexes a folder of them keeps (the newest; the one being served is
#: among them).
KEEP_BUILT = 3


def version_index(version: Path) -> Path:
    """Where the index of an embedded store's version directory lies."""
    return version.with_name(version.name + INDEX_SUFFIX)


def index_for(store: GraphStore, folder: Path | None) -> Index:
    """The index of ``store``'s version now: the one the store keeps with the version, else
    the one built into ``folder`` for its version marker, built there first if missing
    (one process builds it; the others wait for it). A store whose version names are not
    its own (in memory), or no ``folder``, gets an index built for this call alone, in a
    temporary folder removed with it.

    :raises StoreError: when the store cannot be read or the index not written.
    """
    kept = store.kept_index()
    if kept is not None and usable(kept):
        index = Index(kept)
        if index.version != store.version():  # never an index of another version
            raise StoreError(
                f"the index {kept} is of version {index.version!r}, not {store.version()!r}"
            )
        return index
    version = store.version() or "unversioned"
    if folder is None or not store.persistent:
        private = Path(tempfile.mkdtemp(prefix="kg-index-"))
        path = private / ("index" + INDEX_SUFFIX)
        try:
            write_index(store, path, version)
            index = Index(path)
        except BaseException:
            shutil.rmtree(private, ignore_errors=True)
            raise
        weakref.finalize(index, shutil.rmtree, private, True)
        return index
    path = folder / (re.sub(r"[^A-Za-z0-9._-]", "_", version)[:120] + INDEX_SUFFIX)

    def build(target: Path) -> None:
        log.info("building the index of store version %s into %s", version, target)
        write_index(store, target, version)

    made_once(path, Index, build, KEEP_BUILT)
    return Index(path)


def usable(path: Path) -> bool:
    """Whether ``path`` is an index this code reads (of its format, whole)."""
    try:
        Index(path)
    except StoreError:
        return False
    return True
