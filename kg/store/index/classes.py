"""The index's class partitions: how many distinct nodes of each class the data graphs
hold (VoID's ``void:classPartition``), counted whole by ``queries/internal/void-classes.rq``
when the index is written whole.

A write of a few graphs changes the counts by what it changes: a node and class typed in a
changed graph before the write and not after (or after and not before) counts one less (or
one more) unless a data graph the write left alone types it too. So only the changed
graphs' typed nodes and the other graphs typing the same nodes are read, never the whole
store.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Collection

import pyoxigraph as ox

from ...rdf.sparqltext import inside_where
from ..base import GraphStore, solutions
from ..queries import internal_query

#: How many IRIs one restricted query lists (VALUES).
CHUNK = 500


def write_classes(db: sqlite3.Connection, store: GraphStore) -> None:
    """Count every class's distinct nodes in the data graphs of ``store``."""
    db.executemany(
        "INSERT INTO classes VALUES (?, ?)",
        (
            (r["class"].value, int(r["entities"].value))
            for r in solutions(store.query(internal_query("void-classes").text))
            if isinstance(r["class"], ox.NamedNode)
        ),
    )


def update_classes(
    db: sqlite3.Connection, store: GraphStore, before: GraphStore, changed: Collection[str]
) -> None:
    """Change the counts by what the write of the graphs ``changed`` (``before`` ->
    ``store``) changed."""
    old, new = _typed(before, "g", changed), _typed(store, "g", changed)
    moved = old ^ new
    # typed elsewhere too, the write changes nothing of a pair (a blank node is its graph's)
    elsewhere = {
        (node, kind)
        for g, node, kind in _typed_in(store, "node", {n for n, _ in moved if _is_iri(n)})
        if g not in changed
    }
    delta: Counter[str] = Counter()
    for node, kind in moved - elsewhere:
        delta[kind] += 1 if (node, kind) in new else -1
    for kind, n in delta.items():
        db.execute(
            "INSERT INTO classes VALUES (?, ?) "
            "ON CONFLICT(class) DO UPDATE SET entities = entities + ?",
            (kind, n, n),
        )
    db.execute("DELETE FROM classes WHERE entities <= 0")


def _is_iri(node: str) -> bool:
    return not node.startswith("_:")


def _typed(store: GraphStore, variable: str, among: Collection[str]) -> set[tuple[str, str]]:
    return {(node, kind) for _, node, kind in _typed_in(store, variable, among)}


def _typed_in(
    store: GraphStore, variable: str, among: Collection[str]
) -> list[tuple[str, str, str]]:
    """(graph, node, class) of the data graphs typing classes, where ``variable`` (``g``
    or ``node``) is among ``among``; a blank node as ``_:`` and its label."""
    found = []
    query = internal_query("typed-nodes").text
    listed = sorted(among)
    for start in range(0, len(listed), CHUNK):
        values = " ".join(str(ox.NamedNode(iri)) for iri in listed[start : start + CHUNK])
        restricted = inside_where(query, f"VALUES ?{variable} {{ {values} }}")
        for r in solutions(store.query(restricted)):
            if isinstance(r["class"], ox.NamedNode):
                node = r["node"]
                name = f"_:{node.value}" if isinstance(node, ox.BlankNode) else node.value
                found.append((r["g"].value, name, r["class"].value))
    return found
