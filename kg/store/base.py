"""The one interface to a store; nothing above it knows which store it talks to."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

import pyoxigraph as ox

Term: TypeAlias = ox.NamedNode | ox.BlankNode | ox.Literal
QueryResult: TypeAlias = ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples


@dataclass(frozen=True)
class ManifestEntry:
    """Which file a data graph was loaded from, and what that file was then."""

    file: str
    sha256: str
    size: int = -1
    mtime_ns: int = -1


Manifest: TypeAlias = dict[str, ManifestEntry]


class GraphStore(ABC):
    """A quad store whose SPARQL default graph is the union of its named graphs.

    Results come back as pyoxigraph objects whatever the backend, so callers
    serialize and iterate them the same way.
    """

    @abstractmethod
    def query(self, sparql: str, bindings: Mapping[str, Term] | None = None) -> QueryResult:
        """Run a SPARQL query; ``bindings`` give variables values (never spliced into text).

        :raises QueryError: when the query is not valid SPARQL.
        """

    @abstractmethod
    def replace_graphs(
        self, graphs: Mapping[str, Iterable[ox.Quad]], remove: Iterable[str] = (),
        manifest: Manifest | None = None,
    ) -> None:
        """In one atomic step: each graph of ``graphs`` gets exactly the given quads, the
        graphs of ``remove`` are dropped, and (if given) the load manifest is replaced.
        On failure nothing changes.

        :raises StoreError: when the store cannot be written.
        """

    def load_nquads(
        self, nquads: Path, graphs: Iterable[str], remove: Iterable[str] = (),
        manifest: Manifest | None = None,
    ) -> None:
        """Like :meth:`replace_graphs`, with the new content of ``graphs`` in an N-Quads
        file (what a bulk loader reads fastest)."""
        content: dict[str, list[ox.Quad]] = {name: [] for name in graphs}
        for quad in ox.parse(path=str(nquads), format=ox.RdfFormat.N_QUADS):
            content[quad.graph_name.value].append(quad)
        self.replace_graphs(content, remove, manifest)

    def spool_dir(self) -> Path | None:
        """Where a load spools the quads it will write (None: the system's temporary
        directory)."""
        return None

    @abstractmethod
    def manifest(self) -> Manifest:
        """Which file each data graph was loaded from (empty for a new store)."""

    @abstractmethod
    def named_graphs(self) -> set[str]:
        """The IRIs of the named graphs that hold quads."""

    @abstractmethod
    def quads(self, graphs: Iterable[str] | None = None) -> Iterator[ox.Quad]:
        """Every quad, or the quads of the named graphs ``graphs``."""

    @abstractmethod
    def close(self) -> None:
        """Release the store."""

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def insert_data_update(graphs: Mapping[str, Iterable[ox.Quad]], remove: Iterable[str]) -> str:
    """One SPARQL 1.1 Update request that replaces ``graphs`` and drops ``remove``.

    Terms are written by pyoxigraph's own N-Triples serializer (every N-Triples term is
    valid SPARQL), so no value is ever formatted into the request by hand. A store runs
    a request as one transaction: all of it happens, or none.
    """
    parts = [f"DROP SILENT GRAPH {ox.NamedNode(name)} ;" for name in sorted({*graphs, *remove})]
    body = []
    for name, quads in graphs.items():
        triples = [f"{q.subject} {q.predicate} {q.object} ." for q in quads]
        if triples:
            body.append(f"GRAPH {ox.NamedNode(name)} {{\n" + "\n".join(triples) + "\n}")
    if body:
        parts.append("INSERT DATA {\n" + "\n".join(body) + "\n}")
    elif parts:
        parts[-1] = parts[-1].rstrip(" ;")
    return "\n".join(parts)
