"""A read-only handle that keeps the quads of shared graphs once it has read them.

A record page reads the record's own graph and the graphs of the source, evaluation and
agents it links to; thousands of records share a few hundred of those, and reading a
graph back (decoding every term) is most of what the store costs a page. Over a
snapshot (an embedded store's version, which never changes) a graph read once is good
for as long as the handle lives; the server drops the handle with its cache when a new
version is published.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

import pyoxigraph as ox

from ..errors import StoreError
from .base import GraphStore, Manifest, QueryResult, Term


class SharedGraphCache(GraphStore):
    """``store`` (a read-only snapshot), with the graphs whose IRIs start with one of
    ``prefixes`` kept in memory once read (at most ``limit`` graphs for :meth:`quads`,
    in the store's order, and as many for :meth:`graph_quads`, in any order)."""

    def __init__(self, store: GraphStore, prefixes: Iterable[str], limit: int = 20_000):
        self.store = store
        self.prefixes = tuple(prefixes)
        self.limit = limit
        self._graphs: dict[str, list[ox.Quad]] = {}  # in the store's order
        self._any_order: dict[str, list[ox.Quad]] = {}  # as graph_quads read them
        self._lock = threading.Lock()

    def quads(self, graphs: Iterable[str] | None = None) -> Iterator[ox.Quad]:
        if graphs is None:
            return self.store.quads()
        return self._read(graphs, self._graphs, self.store.quads)

    def graph_quads(self, graphs: Iterable[str]) -> Iterator[ox.Quad]:
        # any order will do: a graph kept in the store's order serves too
        return self._read(graphs, self._any_order, self.store.graph_quads, self._graphs)

    def _read(
        self,
        graphs: Iterable[str],
        kept: dict[str, list[ox.Quad]],
        read: Callable[[Iterable[str]], Iterator[ox.Quad]],
        also: Mapping[str, list[ox.Quad]] | None = None,
    ) -> Iterator[ox.Quad]:
        for name in graphs:
            if not name.startswith(self.prefixes):
                yield from read([name])
                continue
            cached = kept.get(name)
            if cached is None and also is not None:
                cached = also.get(name)
            if cached is None:
                cached = list(read([name]))
                with self._lock:
                    if len(kept) < self.limit:
                        kept[name] = cached
            yield from cached

    def query(self, sparql: str, bindings: Mapping[str, Term] | None = None) -> QueryResult:
        return self.store.query(sparql, bindings)

    def version(self) -> str | None:
        return self.store.version()

    def kept_index(self) -> Path | None:
        return self.store.kept_index()

    @property
    def persistent(self) -> bool:
        return self.store.persistent

    def published_version(self) -> str | None:
        return self.store.published_version()

    def manifest(self) -> Manifest:
        return self.store.manifest()

    def named_graphs(self) -> set[str]:
        return self.store.named_graphs()

    def replace_graphs(
        self,
        graphs: Mapping[str, Iterable[ox.Quad]],
        remove: Iterable[str] = (),
        manifest: Manifest | None = None,
    ) -> None:
        raise StoreError("the store was opened read-only")

    def close(self) -> None:
        self.store.close()
