"""Reading records back out of the store."""

from __future__ import annotations

from urllib.parse import unquote

import pyoxigraph as ox

from ..errors import NotFoundError
from ..model.standing import Standing
from . import GraphStore
from .queries import internal_query, to_term
from .standing import standing, standing_quads


def record_closure(store: GraphStore, base: str, ident: str) -> list[ox.Quad]:
    """A record's own graph plus the graphs of the source, evaluation and agents it links to,
    and of the reviews and runs about it: what ``kg show`` prints and exports hold.

    :raises NotFoundError: when no record has the id.
    """
    record = to_term("record", ident, base)
    graphs = [row["graph"].value
              for row in store.query(internal_query("record-closure").text, {"record": record})]
    if not graphs:
        raise NotFoundError(f"no record with id {ident!r}")
    return list(store.quads(sorted(graphs)))


def record_and_standing(store: GraphStore, base: str, ident: str
                        ) -> tuple[list[ox.Quad], Standing]:
    """:func:`record_closure` with the claim's derived standing as statements where it is
    not current (kg.store.standing.standing_quads): what a record's RDF, JSON-LD and
    ``kg show`` hold; and the standing itself.

    :raises NotFoundError: when no record has the id.
    """
    quads = record_closure(store, base, ident)
    record = to_term("record", ident, base).value
    found = standing(store, record)
    return quads + standing_quads(record, found), found


def record_with_standing(store: GraphStore, base: str, ident: str) -> list[ox.Quad]:
    """The quads of :func:`record_and_standing`."""
    return record_and_standing(store, base, ident)[0]


def quote_siblings(store: GraphStore, base: str, ident: str) -> list[str]:
    """The ids of the other records quoted from the same sentence of the same source as
    record ``ident`` (the other numbers one sentence prints), in id order."""
    record = to_term("record", ident, base)
    rows = store.query(internal_query("quote-siblings").text, {"record": record})
    prefix = f"{base}record/"
    return sorted(unquote(row["other"].value.removeprefix(prefix)) for row in rows
                  if row["other"].value.startswith(prefix))


def describe(store: GraphStore, base: str, kind: str, ident: str) -> list[ox.Quad]:
    """The RDF of the thing a minted IRI names: a record's closure; the named graph of a
    source, agent, evaluation or file-based activity; else the statements about the node
    and the blank nodes it leads to (an upstream review lives in its record's graph).

    :raises NotFoundError: when nothing is known about the IRI.
    """
    if kind == "record":
        return record_with_standing(store, base, ident)
    iri = to_term(kind, ident, base)
    own = list(store.quads([iri.value]))  # a node with a graph of its own (not listing all)
    if own:
        return own
    rows = store.query(internal_query("quads-about").text, {"node": iri})
    quads = [ox.Quad(iri, row["p"], row["o"], row["g"]) for row in rows]
    if not quads:
        raise NotFoundError(f"nothing is known about {kind} {ident!r}")
    # The blank nodes it leads to are walked in the graphs that hold them, read whole:
    # blank-node labels are only good within one answer. Only those graphs are read (a
    # model or a leaderboard is described in thousands of graphs, none with blank nodes).
    graphs = sorted({q.graph_name.value for q in quads if isinstance(q.object, ox.BlankNode)})
    if not graphs:
        return quads
    about: dict[object, list[ox.Quad]] = {}
    for quad in store.quads(graphs):
        about.setdefault((quad.subject, quad.graph_name), []).append(quad)
    todo = [(q.object, q.graph_name) for q in quads if isinstance(q.object, ox.BlankNode)]
    seen: set[object] = set()
    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        for quad in about.get(key, []):
            quads.append(quad)
            if isinstance(quad.object, ox.BlankNode):
                todo.append((quad.object, quad.graph_name))
    return quads


def citable(store: GraphStore, base: str, ident: str) -> tuple[str, list[ox.Quad]]:
    """What an export of ``ident`` is about: ("record", its closure) for a record id, else
    ("source", the source's graph) for a source id.

    :raises NotFoundError: when neither a record nor a source has the id.
    """
    try:
        return "record", record_with_standing(store, base, ident)
    except NotFoundError:
        pass
    try:
        return "source", describe(store, base, "source", ident)
    except NotFoundError:
        raise NotFoundError(f"no record or source with id {ident!r}") from None
