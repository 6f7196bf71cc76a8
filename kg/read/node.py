"""A generic page for any node (source, agent, evaluation, activity): its statements, linked."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyoxigraph as ox

from ..rdf.facts import Facts, Term
from ..rdf.namespaces import DCTERMS, KG, PROV, RDF, RDFS
from ..store import GraphStore
from ..store.base import solutions
from ..store.index import Index
from ..store.queries import internal_query
from .closure import ClosureReader, SourceView

#: The records a node's page lists: of a node of the class, those naming it by the
#: predicate, under the heading.
RECORDS_ABOUT = (  # (class, predicate, label, the index's column holding it)
    (KG.SourceDocument, PROV.wasQuotedFrom, "quoted by records", "source"),
    (KG.Model, KG.evaluatedModel, "records of this model", "model_node"),
    (KG.Benchmark, KG.benchmark, "records of this benchmark", "benchmark"),
)
#: How many records naming a node its page lists (then how many more there are).
LISTED = 100


@dataclass
class Value:
    text: str
    href: str = ""
    nested: list[tuple[str, list[Value]]] = field(default_factory=list)


def node_rows(
    facts: Facts,
    node: ox.NamedNode,
    base: str,
    store: GraphStore,
    release: str | None = None,
    index: Index | None = None,
) -> tuple[list[tuple[str, list[Value]]], str, SourceView | None]:
    """The node's statements as (property label, values), its title, and, for a source, what
    its citation tags need (links into ``release`` when the page shows one). The records
    naming it come from ``index`` where given (the live version's), else from ``store``."""
    viewer = ClosureReader(facts, base, release)
    rows = _rows(facts, node, viewer, depth=0)
    title = (
        facts.text(node, DCTERMS.title)
        or facts.text(node, RDFS.label)
        or facts.text(node, DCTERMS.identifier)
        or node.value.rsplit("/", 1)[-1]
    )
    source = viewer.source(node) if facts.has_type(node, KG.SourceDocument) else None
    for cls, predicate, label, column in RECORDS_ABOUT:
        if facts.has_type(node, cls):
            listed = (
                _records_about(store, node, predicate, viewer)
                if index is None
                else _indexed_about(index, node, column, viewer)
            )
            if listed:
                rows.append((label, listed))
    return rows, title, source


def _rows(facts: Facts, node: Term, viewer: ClosureReader, depth: int):
    rows = []
    predicates = sorted({p for (s, p) in facts.index if s == node})
    rdf_type = str(RDF.type)
    for predicate in predicates:
        label = facts.concept(ox.NamedNode(predicate), RDFS.label) or _short(predicate)
        values = []
        for obj in facts.all(node, predicate):
            if isinstance(obj, ox.Literal):
                values.append(Value(obj.value))
            elif isinstance(obj, ox.BlankNode) or (
                isinstance(obj, ox.NamedNode)
                and "#" in obj.value
                and obj.value.startswith(viewer.base)
                and depth < 3
                and (obj, rdf_type) in facts.index
            ):
                values.append(
                    Value(
                        _node_label(facts, obj),
                        viewer.href(obj),
                        _rows(facts, obj, viewer, depth + 1),
                    )
                )
            else:
                values.append(Value(_node_label(facts, obj), viewer.href(obj)))
        rows.append((label, values))
    return rows


def _node_label(facts: Facts, term: Term) -> str:
    label = (
        facts.concept(term)
        or facts.concept(term, RDFS.label)
        or facts.text(term, DCTERMS.title)
        or facts.text(term, RDFS.label)
    )
    if label:
        return label
    if isinstance(term, ox.BlankNode):
        return ""
    return term.value


def _short(iri: str) -> str:
    return iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def _records_about(
    store: GraphStore, node: ox.NamedNode, predicate: str, viewer: ClosureReader
) -> list[Value]:
    """The first records naming ``node`` by ``predicate``, and how many there are in all."""
    bindings = {"node": node, "predicate": ox.NamedNode(predicate)}
    [count] = list(solutions(store.query(internal_query("records-about-count").text, bindings)))
    total = int(count["records"].value)
    listed = [
        Value(row["title"].value if row["title"] else row["id"].value, viewer.href(row["record"]))
        for row in solutions(store.query(internal_query("records-about").text, bindings))
    ]
    return _more(listed, total)


def _indexed_about(
    index: Index, node: ox.NamedNode, column: str, viewer: ClosureReader
) -> list[Value]:
    """The first records whose index row names ``node`` in ``column``, and how many there
    are in all (the index's rows, by id)."""
    total = index.count_where(column, node.value)
    listed = [
        Value(row.title or row.id, viewer.href(ox.NamedNode(row.record)))
        for row in index.first_naming(column, node.value, LISTED)
    ]
    return _more(listed, total)


def _more(listed: list[Value], total: int) -> list[Value]:
    if total > len(listed):
        listed.append(Value(f"... and {total - len(listed):,} more ({total:,} in all)"))
    return listed
