"""Writes in steps, for a server whose update request is not one transaction (Virtuoso 7).

There one ``kg load`` cannot be one transaction, so it is made to look like one to
readers, with the version token of the manifest graph as a marker (a seqlock):

1. the marker goes from the version read (``v-…``) to ``w-…``, by a compare-and-set
   update; a second writer finds the version changed and stops;
2. the graphs the write will touch are listed in the pending graph
   (``urn:x-claimgraph:pending``);
3. the graphs to replace or remove are dropped, then each new graph is sent with one
   Graph Store Protocol POST of N-Triples (which takes blank nodes and any number of
   triples; a SPARQL ``INSERT DATA`` takes neither on Virtuoso);
4. the manifest literal is replaced by an update (Virtuoso's Graph Store Protocol
   refuses a literal of over 64 KB), the marker still ``w-…``;
5. the marker goes to a new ``v-…``, and the pending graph is dropped.

A reader reads the marker before and after each query (:func:`consistent`): while it says
``w-`` the store answers :class:`~kg.errors.StoreBusy` (HTTP 503 on a page), and when it
changed during the query the query runs again. A reader therefore sees the load before or
after, never half of it. A write that stopped part-way (the store stopped, the process
killed) leaves ``w-``: readers get 503 until the next ``kg load``, which finds the marker,
treats the manifest as unknown (:func:`recovering`: every file is validated and written
again) and drops whatever the unfinished write had listed as pending, so that it ends with
exactly what an uninterrupted load gives.

Not guaranteed: two writers started within the same instant both pass step 1 only if the
server runs the two compare-and-set updates at once (each is one operation, which Virtuoso
runs atomically); a reader that ignores the marker (a SPARQL client talking to Virtuoso
directly) can see a half-written load.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

import pyoxigraph as ox

from ..errors import StoreBusy
from ..rdf.namespaces import DCTERMS, RDF
from .base import SCHEMA_ENTRY, Manifest

PENDING_GRAPH = "urn:x-claimgraph:pending"
#: The datatype of the manifest literal.
JSON_DATATYPE = str(RDF) + "JSON"
#: Triples per INSERT DATA request (Virtuoso 7.2 runs out of memory at about 1,660).
LINES_PER_INSERT = 1000
#: Graphs dropped per update request.
DROPS_PER_REQUEST = 200
#: How often a query that saw the version change under it runs again.
RETRIES = 2
T = TypeVar("T")


def writing(version: str | None) -> bool:
    """Whether a version token says a stepwise write is under way (or stopped part-way)."""
    return version is not None and version.startswith("w-")


def new_marker(kind: str) -> str:
    """A new token: ``w`` (writing) or ``v`` (a published version)."""
    return f"{kind}-{time.time_ns()}"


def busy(shown: str) -> StoreBusy:
    return StoreBusy(
        f"the SPARQL store at {shown} is being written by a kg load (or one "
        "stopped part-way: run kg load again); try again when it is done"
    )


def consistent(run: Callable[[], T], version: Callable[[], str | None], shown: str) -> T:
    """``run()``'s answer, read between two equal versions that no write holds.

    :raises StoreBusy: while a write holds the store, or when versions kept changing.
    """
    for _attempt in range(RETRIES + 1):
        before = version()
        if writing(before):
            raise busy(shown)
        result = run()
        if version() == before:
            return result
    raise busy(shown)


def flip(graph: str, to: str, current: str | None) -> str:
    """The update that sets the version token of ``graph`` to ``to`` if it is ``current``.
    With no token yet, an ``INSERT DATA``: Virtuoso inserts nothing from a ``DELETE/INSERT
    ... WHERE`` whose pattern matches nothing, even under ``OPTIONAL``."""
    node, predicate = ox.NamedNode(graph), ox.NamedNode(DCTERMS.identifier)
    new = f"GRAPH {node} {{ {node} {predicate} {ox.Literal(to)} }}"
    if current is None:
        return f"INSERT DATA {{ {new} }}"
    old = f"GRAPH {node} {{ {node} {predicate} {ox.Literal(current)} }}"
    return f"DELETE {{ {old} }} INSERT {{ {new} }} WHERE {{ {old} }}"


def pending_ntriples(graphs: Iterable[str]) -> str:
    """The pending graph's content: one ``dcterms:hasPart`` triple per graph a write
    touches."""
    node, member = ox.NamedNode(PENDING_GRAPH), ox.NamedNode(DCTERMS.hasPart)
    return "".join(f"{node} {member} {ox.NamedNode(g)} .\n" for g in sorted(set(graphs)))


def replace_manifest(graph: str, manifest_json: str) -> str:
    """The update that replaces the manifest literal (``rdf:JSON``) of the manifest graph,
    leaving its version token."""
    node, value = ox.NamedNode(graph), ox.NamedNode(RDF.value)
    literal = ox.Literal(manifest_json, datatype=ox.NamedNode(JSON_DATATYPE))
    return (
        f"DELETE WHERE {{ GRAPH {node} {{ {node} {value} ?manifest }} }} ;\n"
        f"INSERT DATA {{ GRAPH {node} {{ {node} {value} {literal} }} }}"
    )


def drops(graphs: Iterable[str]) -> Iterator[str]:
    """Update requests that drop ``graphs``, :data:`DROPS_PER_REQUEST` at a time."""
    names = sorted(set(graphs))
    for start in range(0, len(names), DROPS_PER_REQUEST):
        yield " ;\n".join(
            f"DROP SILENT GRAPH {ox.NamedNode(name)}"
            for name in names[start : start + DROPS_PER_REQUEST]
        )


class Batches:
    """A write's new triples, sorted into the requests that send them: graphs without
    blank nodes in ``INSERT DATA`` requests of about :data:`LINES_PER_INSERT` triples
    (on Virtuoso 7.2 with the bundled data, 2.0 s where one Graph Store Protocol POST per
    graph took 4.3 s), graphs with blank nodes in one POST each (``INSERT DATA`` refuses
    blank nodes, and a blank node's label is scoped to one request)."""

    def __init__(self) -> None:
        self._plain: dict[str, list[str]] = {}
        self._blank: dict[str, list[str]] = {}
        self.graphs: set[str] = set()

    def add(self, graph: str, quads: Iterable[ox.Quad]) -> None:
        lines, blank = [], graph in self._blank
        for q in quads:
            lines.append(f"{q.subject} {q.predicate} {q.object} .\n")
            blank = (
                blank or isinstance(q.subject, ox.BlankNode) or isinstance(q.object, ox.BlankNode)
            )
        self.graphs.add(graph)
        if blank:
            self._blank.setdefault(graph, []).extend(self._plain.pop(graph, []))
            self._blank[graph].extend(lines)
        else:
            self._plain.setdefault(graph, []).extend(lines)

    def inserts(self) -> Iterator[str]:
        """The ``INSERT DATA`` requests."""
        parts: list[str] = []
        count = 0
        for graph, lines in self._plain.items():
            parts.append(f"GRAPH {ox.NamedNode(graph)} {{\n{''.join(lines)}}}\n")
            count += len(lines)
            if count >= LINES_PER_INSERT:
                yield "INSERT DATA {\n" + "".join(parts) + "}"
                parts, count = [], 0
        if parts:
            yield "INSERT DATA {\n" + "".join(parts) + "}"

    def posts(self) -> Iterator[tuple[str, str]]:
        """Each graph with blank nodes and its N-Triples."""
        for graph, lines in self._blank.items():
            yield graph, "".join(lines)


def recovering(manifest: Manifest) -> Manifest:
    """The manifest a load works from after a write that stopped part-way: without its
    schema entry, so that every file is validated and written again."""
    return {graph: entry for graph, entry in manifest.items() if graph != SCHEMA_ENTRY}
