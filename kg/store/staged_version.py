"""A new version of the embedded store filled while its batch is validated (a load's staged
write), and the steps every write of a version takes: dropping graphs, adding quads,
compacting (kg.store.embedded)."""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pyoxigraph as ox

from ..errors import StoreError
from ..rdf.terms import bulk_extend
from .base import Manifest, StagedWrite, nquads_of
from .copies import CopyWriter, NoCopies
from .versions import remove_version

if TYPE_CHECKING:
    from .embedded import EmbeddedStore


class StagedVersion(StagedWrite):
    """A new version filled by a background thread while the batch is being validated:
    each chunk is bulk-loaded as soon as it is complete (the bulk writes release the GIL,
    and wait on the disk while the workers use the cores; the chunk's parsing, and its
    copies, take the GIL). The version is private until :meth:`commit` switches ``live``
    to it."""

    def __init__(self, store: EmbeddedStore):
        super().__init__(store)
        self._embedded = store
        self._writer: ox.Store | None  # None once written, closed before it is read
        self._new, self._writer, self._copies = store._begin_version()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        #: every graph removed or written (what the index is updated for)
        self._touched: set[str] = set()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="kg-bulk-load", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            if self._error is not None:
                continue  # drain; the commit reports the error
            operation, argument = item
            try:
                assert self._writer is not None  # until the commit or abort drains this
                if operation == "remove":
                    drop(self._writer, self._copies, argument)
                else:
                    bulk_extend(
                        self._writer,
                        self._copies.passing(nquads_of(argument), holds(self._writer)),
                    )
            except BaseException as exc:
                self._error = exc

    def remove(self, graphs: Iterable[str]) -> None:
        graphs = sorted(graphs)
        self._touched.update(graphs)
        self._queue.put(("remove", graphs))

    def add(self, chunk: Path) -> None:
        self._queue.put(("add", chunk))

    def _drain(self) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()

    def commit(self, graphs: Iterable[str], remove: Iterable[str], manifest: Manifest) -> None:
        self.remove(remove)
        self._drain()
        if self._error is not None:
            self.abort()
            if isinstance(self._error, OSError | ValueError | SyntaxError | sqlite3.Error):
                raise StoreError(
                    f"cannot write the store at {self._embedded.path}: {self._error}"
                ) from None
            raise self._error
        try:
            assert self._writer is not None  # set to None only below, or by abort
            compact(self._writer)
            self._writer.flush()
        except (OSError, sqlite3.Error) as exc:
            self.abort()
            raise StoreError(f"cannot write the store at {self._embedded.path}: {exc}") from None
        self._writer = None  # closed before the version is opened for reading
        self._touched.update(graphs)
        self._embedded._finish_version(self._new, manifest, self._copies, self._touched)

    def abort(self) -> None:
        self._drain()
        self._writer = None
        self._copies.abort()
        remove_version(self._new)


def drop(writer: ox.Store, copies: CopyWriter | NoCopies, graphs: Iterable[str]) -> None:
    """Drop ``graphs`` from a version being written, and their copies."""
    graphs = sorted(graphs)
    for name in graphs:
        graph = ox.NamedNode(name)
        if writer.contains_named_graph(graph):  # a first load has nothing to drop
            writer.remove_graph(graph)
    copies.dropped(graphs)


def holds(writer: ox.Store) -> Callable[[str], bool]:
    """Whether the version being written holds a graph."""
    return lambda name: writer.contains_named_graph(ox.NamedNode(name))


def compact(writer: ox.Store) -> None:
    """Compact a version a bulk load wrote, before anyone reads it. The bulk loader leaves
    its sorted runs overlapping, so every lookup visits each of them: reading a record's
    graph from a 100k store is 4.8x faster after (bench/reads.py)."""
    writer.optimize()
