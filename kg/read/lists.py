"""The lists of what the records are about: every benchmark, model, source, developer,
metric and precision with how many records name it (from the index's counts, searched,
sorted, paged), and every agent with the activities associated with it (from the store: a few).

What links where is the web app's business; a list says what each value is."""

from __future__ import annotations

from dataclasses import dataclass

from ..store import GraphStore
from ..store.base import solutions
from ..store.index import Index
from ..store.index.listings import VALUE_SORTS, first_of, value_page
from ..store.index.schema import FACETS
from ..store.queries import internal_query


@dataclass(frozen=True)
class ListKind:
    """One list: its path, the facet it lists and how its values are shown."""

    #: its path (``/benchmarks``) and the word for many of them
    name: str
    #: the facet (kg.store.index.schema.FACETS) whose values it lists
    facet: str
    title: str
    #: one of them, in a sentence ("benchmark")
    noun: str
    #: where a value's name links: "node" (its IRI's page), "model" (the page of the model
    #: node its records name) or "records" (the records that have it)
    link: str
    #: a column beside the count: (heading, the row column read from a value's first record)
    beside: tuple[str, str] | None = None


#: Every list over the index, by path.
LISTS: dict[str, ListKind] = {
    kind.name: kind
    for kind in (
        ListKind(
            "benchmarks", "benchmark", "Benchmarks", "benchmark", "node", ("Source", "source_title")
        ),
        ListKind("models", "model", "Models", "model", "model", ("Developer", "developer")),
        ListKind("sources", "source", "Sources", "source", "node"),
        ListKind("developers", "developer", "Developers", "developer", "records"),
        ListKind("metrics", "metric", "Metrics", "metric", "records"),
        # the one other facet whose values are the upstream's free text, not a vocabulary's
        ListKind("precisions", "precision", "Precisions", "precision", "records"),
    )
}
#: The list of each facet that has one.
LIST_OF_FACET = {kind.facet: kind for kind in LISTS.values()}
#: The orders a list takes; the first is the default.
LIST_SORTS = tuple(VALUE_SORTS)
#: How many values a page of a list shows, unless asked otherwise.
LIST_PAGE = 100


@dataclass(frozen=True)
class ListItem:
    value: str
    label: str
    #: how many records name it
    count: int
    #: the column beside the count ("" where its first record has none)
    beside: str = ""
    #: the node its records name (a model's: names differing in case are one model node)
    node: str = ""


@dataclass(frozen=True)
class ValueList:
    """One page of a list."""

    kind: ListKind
    items: list[ListItem]
    #: how many values the search selects, all pages together
    total: int
    query: str
    sort: str
    offset: int
    limit: int

    @property
    def has_next(self) -> bool:
        return self.offset + len(self.items) < self.total


def value_list(
    index: Index,
    kind: ListKind,
    query: str = "",
    sort: str = "count",
    offset: int = 0,
    limit: int = LIST_PAGE,
) -> ValueList:
    """The page of ``kind``'s values from ``offset``: those whose name holds every word
    of ``query``, in ``sort`` order (:data:`LIST_SORTS`).

    :raises KeyError: for a sort not in :data:`LIST_SORTS`.
    """
    found = value_page(index, kind.facet, query, sort, offset, limit)
    beside: dict[str, str] = {}
    if kind.beside is not None:
        beside = first_of(
            index, FACETS[kind.facet][0], [v for v, _, _ in found.values], kind.beside[1]
        )
    nodes: dict[str, str] = {}
    if kind.link == "model":  # a model's page is its node's, not its name's
        nodes = first_of(
            index, FACETS[kind.facet][0], [v for v, _, _ in found.values], "model_node"
        )
    items = [
        ListItem(v, label, n, beside.get(v, ""), nodes.get(v, "")) for v, label, n in found.values
    ]
    return ValueList(kind, items, found.total, query, sort, offset, limit)


@dataclass(frozen=True)
class Agent:
    iri: str
    label: str
    #: its kind's IRI (dcterms:type: software, person, organisation; "" when unsaid)
    type: str
    #: how many activities (reviews, runs, imports) were associated with it
    activities: int


def agents(store: GraphStore, query: str = "") -> list[Agent]:
    """Every agent whose label or IRI holds every word of ``query``, by label."""
    words = query.casefold().split()
    found = []
    for row in solutions(store.query(internal_query("agents").text)):
        iri = row["agent"].value
        label = row["label"].value if row["label"] is not None else iri
        if all(w in label.casefold() or w in iri.casefold() for w in words):
            kind = row["type"].value if row["type"] is not None else ""
            found.append(Agent(iri, label, kind, int(row["activities"].value)))
    return sorted(found, key=lambda a: (a.label.casefold(), a.iri))
