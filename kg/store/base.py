"""The one interface to a store; nothing above it knows which store it talks to."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeAlias

import pyoxigraph as ox

from ..model.datafiles import ManifestEntry
from ..rdf.results import QueryResult
from ..rdf.sparqltext import names_dataset

Term: TypeAlias = ox.NamedNode | ox.BlankNode | ox.Literal


Manifest: TypeAlias = dict[str, ManifestEntry]
#: The manifest entry that records which shapes and ontology the data was validated with.
SCHEMA_ENTRY = "urn:x-claimgraph:schema"


def solutions(result: QueryResult) -> ox.QuerySolutions:
    """The rows of the answer to a ``SELECT`` query (:meth:`GraphStore.query` answers every
    query form, so its type names all three).

    :raises TypeError: for the answer to another form (not rows, not iterable as rows).
    """
    if isinstance(result, ox.QuerySolutions):
        return result
    raise TypeError(f"a SELECT query's solutions expected, not {type(result).__name__}")


def triples(result: QueryResult) -> ox.QueryTriples:
    """The triples of the answer to a ``CONSTRUCT`` or ``DESCRIBE`` query.

    :raises TypeError: for the answer to another form.
    """
    if isinstance(result, ox.QueryTriples):
        return result
    raise TypeError(f"a CONSTRUCT query's triples expected, not {type(result).__name__}")


def manifest_to_json(manifest: Manifest) -> str:
    """The load manifest as JSON text (what either store keeps)."""
    return json.dumps(
        {graph: entry._asdict() for graph, entry in sorted(manifest.items())}, separators=(",", ":")
    )


def manifest_from_json(text: str) -> Manifest:
    """A load manifest from :func:`manifest_to_json`'s text."""
    return {graph: ManifestEntry(**entry) for graph, entry in json.loads(text).items()}


def union_default(
    sparql: str, default_graphs: Iterable[str] = (), named_graphs: Iterable[str] = ()
) -> bool:
    """Whether a query's default graph is the union of the store's named graphs: yes, unless
    the request (the protocol's ``default-graph-uri``, ``named-graph-uri``) or the query
    itself (``FROM``, ``FROM NAMED``) names the dataset. The request's wins over the
    query's (SPARQL 1.1 Protocol, 2.1.4)."""
    return not (any(default_graphs) or any(named_graphs) or names_dataset(sparql))


class GraphStore(ABC):
    """A quad store whose SPARQL default graph is the union of its named graphs (unless a
    query names its own dataset: :func:`union_default`).

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
        self,
        graphs: Mapping[str, Iterable[ox.Quad]],
        remove: Iterable[str] = (),
        manifest: Manifest | None = None,
    ) -> None:
        """In one atomic step: each graph of ``graphs`` gets exactly the given quads, the
        graphs of ``remove`` are dropped, and (if given) the load manifest is replaced.
        On failure nothing changes.

        :raises StoreError: when the store cannot be written.
        """

    def load_nquads(
        self,
        nquads: Path | Sequence[Path],
        graphs: Iterable[str],
        remove: Iterable[str] = (),
        manifest: Manifest | None = None,
        consume: bool = False,
    ) -> None:
        """Like :meth:`replace_graphs`, with the new content of ``graphs`` in an N-Quads
        file, or several read one after another (what a bulk loader reads fastest);
        ``consume`` deletes each file once it is read (a load's own spool)."""
        content: dict[str, list[ox.Quad]] = {name: [] for name in graphs}
        for quad in nquads_of(nquads, consume):
            # what the load writes names its graph: a quad in the default graph is an error
            content[quad.graph_name.value].append(quad)  # type: ignore[union-attr]
        self.replace_graphs(content, remove, manifest)

    def staged_write(self) -> StagedWrite:
        """A write to fill while its batch is still being validated (see :class:`StagedWrite`).

        :raises StoreError: when the store cannot be written.
        """
        return StagedWrite(self)

    @abstractmethod
    def version(self) -> str | None:
        """The version of the data this handle reads; None for a store never written.

        Every write publishes a new version. An embedded handle reads the version it
        opened (a snapshot); a remote store has only one, the one it serves now.
        """

    def published_version(self) -> str | None:
        """The version published now: what a handle opened now would read. When it differs
        from :meth:`version`, a newer write has been published since this handle opened."""
        return self.version()

    def kept_index(self) -> Path | None:
        """The index file the store keeps with the version this handle reads (None: it keeps
        none, and a reader builds one: :func:`kg.store.index.index_for`)."""
        return None

    def ensure_index(self) -> None:
        """Give the version this writer reads its index, where the store keeps indexes
        with its versions and this one has none of this code's format (written before)."""
        return None

    @property
    def persistent(self) -> bool:
        """Whether its version names stay the same data across processes and time (an
        in-memory store's do not: another one has the same names)."""
        return True

    @property
    def reads_in_process(self) -> bool:
        """Whether its queries are answered in this process, so that one asking for every
        node's fields costs the scans it makes (an index written whole reads them so:
        :mod:`kg.store.index.field_scan`), not an answer sent whole over the network."""
        return False

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

    def graph_quads(self, graphs: Iterable[str]) -> Iterator[ox.Quad]:
        """The quads of the named graphs ``graphs``, each graph's in no particular order:
        for a reader that wants graphs whole and does not depend on the order (a record's
        page; exports and dumps keep :meth:`quads`, whose order is the store's). The
        embedded store reads the copy it keeps of a graph (:mod:`kg.store.copies`),
        quicker than its indexes; this default is :meth:`quads`."""
        return self.quads(graphs)

    def snapshot(self, target: Path) -> bool:
        """Write this store's content, as it is now, into a new embedded store at ``target``
        (the layout :class:`~kg.store.embedded.EmbeddedStore` opens), if the backend can do it
        cheaply. False when it cannot; the caller then builds that store itself."""
        return False

    @abstractmethod
    def close(self) -> None:
        """Release the store."""

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def nquads_of(nquads: Path | Sequence[Path], consume: bool = False) -> Iterator[ox.Quad]:
    """The quads of an N-Quads file, or of several one after another, blank nodes as
    labelled (the bulk loader would rename them; bulk_extend of the parsed file costs what
    bulk_load does: bench/graph_copies.py --writes). ``consume`` deletes each file once
    it is read: a million results spool about 19 GB, which need not sit on the disk
    beside the version they fill."""
    for path in [nquads] if isinstance(nquads, Path) else nquads:
        yield from ox.parse(path=str(path), format=ox.RdfFormat.N_QUADS)
        if consume:
            path.unlink(missing_ok=True)


class StagedWrite:
    """A large write assembled while its batch is still being validated.

    The caller removes graphs and adds N-Quads files (chunks) in order, then commits with
    the load manifest, or aborts; nothing is visible before the commit, and an abort (or
    a crash) leaves the store as it was. This default keeps the chunks and writes them in
    one :meth:`GraphStore.load_nquads` at the commit; a store that can do better (the
    embedded one loads each chunk into its private new version as it comes, while the
    batch is still being validated) overrides :meth:`GraphStore.staged_write`.
    """

    def __init__(self, store: GraphStore):
        self._store = store
        self._removed: set[str] = set()
        self._chunks: list[Path] = []

    def remove(self, graphs: Iterable[str]) -> None:
        """Drop ``graphs`` (before the content added after this call)."""
        self._removed |= set(graphs)

    def add(self, chunk: Path) -> None:
        """Add the quads of an N-Quads file (kept until the commit, which deletes it once
        read, or the abort)."""
        self._chunks.append(chunk)

    def commit(self, graphs: Iterable[str], remove: Iterable[str], manifest: Manifest) -> None:
        """Write: ``graphs`` are the graphs the chunks hold, ``remove`` more graphs to drop.

        :raises StoreError: when the store cannot be written (nothing changes).
        """
        if not self._chunks:
            self._store.replace_graphs(
                {name: [] for name in graphs}, {*self._removed, *remove}, manifest
            )
            return
        # the chunks read one after another, never copied into one more file, each deleted
        # once read (about 19 GB of N-Quads for a million results)
        self._store.load_nquads(
            self._chunks, graphs, {*self._removed, *remove}, manifest, consume=True
        )

    def abort(self) -> None:
        """Give up: the store stays as it was."""
        self._chunks.clear()


def insert_data_update(graphs: Mapping[str, Iterable[ox.Quad]], remove: Iterable[str]) -> str:
    """One SPARQL 1.1 Update request that replaces ``graphs`` and drops ``remove``."""
    return "".join(update_chunks(graphs.items(), {*graphs, *remove}))


def update_chunks(
    graphs: Iterable[tuple[str, Iterable[ox.Quad]]],
    drop: Iterable[str],
    size: int = 1 << 16,
) -> Iterator[str]:
    """One SPARQL 1.1 Update request, in pieces of about ``size`` characters: drop the
    graphs ``drop``, then insert the quads of ``graphs`` (a graph may come more than once).

    Terms are written by pyoxigraph's own N-Triples serializer (every N-Triples term is
    valid SPARQL), so no value is ever formatted into the request by hand. A store runs
    a request as one transaction: all of it happens, or none. Nothing to do gives "".
    """
    parts: list[str] = [f"DROP SILENT GRAPH {ox.NamedNode(name)} ;\n" for name in sorted(set(drop))]
    length = sum(map(len, parts))
    inserting = False
    for name, quads in graphs:
        opened = False
        for q in quads:
            if not opened:
                if not inserting:
                    parts.append("INSERT DATA {\n")
                    inserting = True
                parts.append(f"GRAPH {ox.NamedNode(name)} {{\n")
                opened = True
            line = f"{q.subject} {q.predicate} {q.object} .\n"
            parts.append(line)
            length += len(line)
            if length >= size:
                yield "".join(parts)
                parts, length = [], 0
        if opened:
            parts.append("}\n")
    if inserting:
        parts.append("}\n")
    text = "".join(parts)
    if not inserting:  # only drops: the last one takes no separator
        text = text.rstrip().removesuffix(";").rstrip()
    if text:
        yield text
