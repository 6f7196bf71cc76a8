"""Reading records back out of the store."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast
from urllib.parse import unquote

import pyoxigraph as ox

from ..errors import NotFoundError
from ..model.fields import FIELDS
from ..model.standing import Standing
from ..rdf.namespaces import KG, RDF
from .base import GraphStore, solutions, triples
from .queries import internal_query, to_term
from .standing import standing, standing_quads

CLAIM = ox.NamedNode(str(KG.Claim))
#: What relates a review or a change of standing to its record, and a node to its class,
#: as plain strings (a namespace's terms never equal a str).
ABOUT = (str(FIELDS["reviewOf"].predicate), str(KG.standingOf))
REPRODUCES = str(FIELDS["reproduces"].predicate)
TYPE = str(RDF.type)


def record_and_standing(store: GraphStore, base: str, ident: str) -> tuple[list[ox.Quad], Standing]:
    """:func:`record_closure` with the claim's derived standing as statements where it is
    not current (kg.store.standing.standing_quads): what a record's RDF, JSON-LD and
    ``kg show`` hold; and the standing itself.

    :raises NotFoundError: when no record has the id.
    """
    quads = record_closure(store, base, ident)
    record = to_term("record", ident, base).value
    found = standing(store, record)
    return quads + standing_quads(record, found), found


@dataclass(frozen=True)
class GraphsAbout:
    """What bears on a record besides its own graph, as its page reads it: the graphs of
    the reviews and changes of standing about it (and of retractions of its source), and
    each run that reproduces it as (graph, run), both sorted."""

    graphs: tuple[str, ...] = ()
    runs: tuple[tuple[str, str], ...] = ()


NOTHING_ABOUT = GraphsAbout()


def graphs_about(store: GraphStore, record: ox.NamedNode | None = None) -> dict[str, GraphsAbout]:
    """:class:`GraphsAbout` of every node something bears on, by IRI, or of ``record`` alone
    (``queries/internal/record-page.rq``): read once per store version with the
    catalogue, it spares each page of that version its query."""
    found: dict[str, tuple[set[str], set[tuple[str, str]]]] = {}
    bound = {"record": record} if record is not None else None
    for row in solutions(store.query(internal_query("record-page").text, bound)):
        graphs, runs = found.setdefault(row["record"].value, (set(), set()))
        if row["run"] is None:
            graphs.add(row["graph"].value)
        else:
            runs.add((row["graph"].value, row["run"].value))
    return {
        node: GraphsAbout(tuple(sorted(graphs)), tuple(sorted(runs)))
        for node, (graphs, runs) in found.items()
    }


def _about(
    store: GraphStore, record: ox.NamedNode, about: Mapping[str, GraphsAbout] | None
) -> GraphsAbout:
    """What bears on ``record``: from ``about`` where given, else read for it alone."""
    if about is None:
        about = graphs_about(store, record)
    return about.get(record.value, NOTHING_ABOUT)


def record_closure(
    store: GraphStore, base: str, ident: str, about: Mapping[str, GraphsAbout] | None = None
) -> list[ox.Quad]:
    """A record's closure: its own graph, the graphs of the source, evaluation and agents
    it links to, and of the reviews, runs and changes of standing about it (a retraction of
    its source among them) with the graphs they link to; what ``kg show``, the RDF answers
    and the exports hold. Each graph whole, in the store's order, graphs by name.

    ``about``: :func:`graphs_about` of every record where the caller read it.

    :raises NotFoundError: when no record has the id.
    """
    by_graph, _runs = _closure(store, base, ident, about, with_runs=True)
    return [q for name in sorted(by_graph) for q in by_graph[name]]


def page_closure(
    store: GraphStore,
    base: str,
    ident: str,
    about: Mapping[str, GraphsAbout] | None = None,
) -> tuple[list[ox.Quad], list[tuple[str, str]]]:
    """What a record's page reads: :func:`record_closure` but the runs' graphs (and the
    graphs only runs link to), and each run that reproduces the record as (graph, run),
    sorted: the page reads each run once per store version, for every claim it judged.
    The graphs are read in any order (``graph_quads``: the embedded store's copies).

    :raises NotFoundError: when no record has the id.
    """
    by_graph, runs = _closure(store, base, ident, about, with_runs=False)
    return [q for quads in by_graph.values() for q in quads], runs


def _closure(
    store: GraphStore,
    base: str,
    ident: str,
    about: Mapping[str, GraphsAbout] | None,
    with_runs: bool,
) -> tuple[dict[str, list[ox.Quad]], list[tuple[str, str]]]:
    """The one definition of a record's closure, as its graphs' quads by graph name (with
    the runs' graphs or without them), and the runs that reproduce the record.

    The graphs about the record come from ``about``, else from
    ``queries/internal/record-page.rq``: the reviews and changes of standing about it, a
    retraction of its source, and its runs. The graphs they link to are found from the
    quads read: an object of the record's graph, or of an activity about it (not another
    record's graph: a run that also measured another claim), that names a graph stating
    something about itself. Only the registry's own IRIs without a fragment are looked up:
    graphs are named by minted IRIs.
    """
    record = to_term("record", ident, base)
    assert isinstance(record, ox.NamedNode)  # a record's term is its minted IRI
    found_about = _about(store, record, about)
    graphs = {record.value, *found_about.graphs}
    about_predicates: tuple[str, ...] = ABOUT
    read = store.graph_quads
    if with_runs:
        graphs |= {graph for graph, _run in found_about.runs}
        about_predicates, read = (*ABOUT, REPRODUCES), store.quads
    by_graph: dict[str, list[ox.Quad]] = {}
    for name in sorted(graphs):
        by_graph[name] = list(read([name]))
    if not any(
        q.subject == record and q.object == CLAIM and q.predicate.value == TYPE
        for q in by_graph[record.value]
    ):
        raise NotFoundError(f"no record with id {ident!r}")
    quads = [q for found in by_graph.values() for q in found]
    about_it = {
        q.subject for q in quads if q.object == record and q.predicate.value in about_predicates
    }
    linked: dict[str, bool] = {}  # graph -> whether a record's graph may be one
    for q in quads:
        node = q.object
        if (
            isinstance(node, ox.NamedNode)
            and node.value.startswith(base)
            and "#" not in node.value
            and node.value not in graphs
        ):
            if q.graph_name == record:
                linked[node.value] = True
            elif q.subject in about_it:
                linked.setdefault(node.value, False)
    for name, claims_too in sorted(linked.items()):
        node = ox.NamedNode(name)
        found = list(read([name]))
        if any(q.subject == node for q in found) and (
            claims_too
            or not any(
                q.subject == node and q.predicate.value == TYPE and q.object == CLAIM for q in found
            )
        ):
            by_graph[name] = found
    return by_graph, list(found_about.runs)


def record_runs(
    store: GraphStore, base: str, ident: str, about: Mapping[str, GraphsAbout] | None = None
) -> list[tuple[str, str]]:
    """Each run that reproduces record ``ident`` as (graph, run), sorted: from ``about``
    (:func:`graphs_about` of every record) where given, else read."""
    record = to_term("record", ident, base)
    assert isinstance(record, ox.NamedNode)  # a record's term is its minted IRI
    return list(_about(store, record, about).runs)


def quote_column(store: GraphStore, base: str, ident: str) -> list[ox.Triple]:
    """The statements of record ``ident``'s graph that a column of the claims of one
    sentence shows (``queries/internal/quote-column.rq``)."""
    record = to_term("record", ident, base)
    return list(triples(store.query(internal_query("quote-column").text, {"record": record})))


def quote_siblings(store: GraphStore, base: str, ident: str) -> list[str]:
    """The ids of the other records quoted from the same sentence of the same source as
    record ``ident`` (the other numbers one sentence prints), in id order."""
    record = to_term("record", ident, base)
    rows = store.query(internal_query("quote-siblings").text, {"record": record})
    prefix = f"{base}record/"
    return sorted(
        unquote(row["other"].value.removeprefix(prefix))
        for row in solutions(rows)
        if row["other"].value.startswith(prefix)
    )


def describe(store: GraphStore, base: str, kind: str, ident: str) -> list[ox.Quad]:
    """The RDF of the thing a minted IRI names: a record's closure; the named graph of a
    source, agent, evaluation or file-based activity; else the statements about the node
    and the blank nodes it leads to (an upstream review lives in its record's graph).

    :raises NotFoundError: when nothing is known about the IRI.
    """
    if kind == "record":
        return record_and_standing(store, base, ident)[0]
    iri = to_term(kind, ident, base)
    assert isinstance(iri, ox.NamedNode)  # ``kind`` is a kind of minted id: its term is an IRI
    own = list(store.quads([iri.value]))  # a node with a graph of its own (not listing all)
    if own:
        return own
    rows = store.query(internal_query("quads-about").text, {"node": iri})
    quads = [ox.Quad(iri, row["p"], row["o"], row["g"]) for row in solutions(rows)]
    if not quads:
        raise NotFoundError(f"nothing is known about {kind} {ident!r}")
    # The blank nodes it leads to are walked in the graphs that hold them, read whole:
    # blank-node labels are only good within one answer. Only those graphs are read (a
    # model or a leaderboard is described in thousands of graphs, none with blank nodes).
    # (each quad's graph is a named one: the query's ``GRAPH ?g`` binds no default graph)
    graphs = sorted(
        {
            cast(ox.NamedNode | ox.BlankNode, q.graph_name).value
            for q in quads
            if isinstance(q.object, ox.BlankNode)
        }
    )
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
        return "record", record_and_standing(store, base, ident)[0]
    except NotFoundError:
        pass
    try:
        return "source", describe(store, base, "source", ident)
    except NotFoundError:
        raise NotFoundError(f"no record or source with id {ident!r}") from None
