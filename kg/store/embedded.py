"""The embedded store: pyoxigraph on disk.

pyoxigraph allows one read-write handle per directory (in any process); a
read-only handle opens beside it as a frozen snapshot. Commands that only read
open read-only, so they work while another process writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pyoxigraph as ox

from ..errors import QueryError, StoreError
from .base import GraphStore, QueryResult, Term, insert_data_update


class EmbeddedStore(GraphStore):
    """A pyoxigraph store in a directory (or in memory when ``path`` is None)."""

    def __init__(self, path: Path | None, *, read_only: bool = False):
        self.path = path
        try:
            if path is None:
                self._store = ox.Store()
            elif read_only:
                if not path.is_dir():
                    raise StoreError(f"no store at {path} (run 'kg load' to create it)")
                self._store = ox.Store.read_only(str(path))
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._store = ox.Store(str(path))
        except OSError as exc:
            if "lock" in str(exc).lower():
                raise StoreError(
                    f"the store at {path} is open for writing in another process "
                    "(one writer at a time); stop it or wait"
                ) from None
            raise StoreError(f"cannot open the store at {path}: {exc}") from None

    def query(self, sparql: str, bindings: Mapping[str, Term] | None = None) -> QueryResult:
        substitutions = {ox.Variable(k): v for k, v in (bindings or {}).items()}
        try:
            return self._store.query(
                sparql, use_default_graph_as_union=True, substitutions=substitutions or None,
            )
        except SyntaxError as exc:
            raise QueryError(f"not a valid SPARQL query: {exc}") from None
        except (RuntimeError, ValueError) as exc:
            raise QueryError(f"the query cannot be run: {exc}") from None

    def replace_graphs(
        self, graphs: Mapping[str, Iterable[ox.Quad]], remove: Iterable[str] = (),
    ) -> None:
        update = insert_data_update(graphs, remove)
        if not update:
            return
        try:
            self._store.update(update)
            self._store.flush()
        except OSError as exc:
            raise StoreError(f"cannot write the store at {self.path}: {exc}") from None

    def named_graphs(self) -> set[str]:
        return {g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode)}

    def quads(self, graphs: Iterable[str] | None = None) -> Iterator[ox.Quad]:
        if graphs is None:
            yield from self._store.quads_for_pattern(None, None, None, None)
            return
        for name in graphs:
            yield from self._store.quads_for_pattern(None, None, None, ox.NamedNode(name))

    def close(self) -> None:
        # pyoxigraph releases the directory lock when the handle is garbage collected.
        self._store = None  # type: ignore[assignment]
