"""Reading records back out of the store."""

from __future__ import annotations

import pyoxigraph as ox

from .errors import NotFoundError
from .sparql import internal_query, to_term
from .store import GraphStore


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
