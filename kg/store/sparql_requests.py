"""What a remote store sends, made without sending it: a query's text with its values
bound (a ``VALUES`` clause), its base and its dataset; the body and headers of each
SPARQL 1.1 Protocol and Graph Store Protocol request, the way the server's dialect
(:mod:`kg.store.dialects`) wants them; and the one update of an atomic write, the
manifest graph's new triples with it. :mod:`kg.store.remote` sends them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pyoxigraph as ox

from ..errors import QueryError, StoreError
from ..rdf.namespaces import DCTERMS, RDF
from ..rdf.sparqltext import inside_where, names_a_graph, query_form, without_dataset
from .answers import ACCEPT, GRAPH_JSON, RDF_JSON
from .base import Manifest, Term, manifest_to_json, union_default, update_chunks
from .dialects import Dialect
from .stepwise import JSON_DATATYPE

#: A graph nothing is ever written to: a dataset of none.
NO_GRAPH = "urn:x-claimgraph:no-graph"
#: The query forms whose WHERE group a VALUES block may open (a short-form CONSTRUCT's
#: may hold triple patterns only; a DESCRIBE may have none): the others get a trailing one.
PATTERN_FORMS = ("SELECT", "ASK")
#: The content type of an update POSTed directly (not form-encoded).
UPDATE_TYPE = "application/sparql-update; charset=utf-8"


def values_clause(bindings: Mapping[str, Term]) -> str:
    """A ``VALUES`` clause giving each variable its term (SPARQL 1.1 §10.2.2), to trail a
    query or to open its WHERE group.

    :raises StoreError: for a blank node, which no protocol request can name.
    """
    names = sorted(bindings)
    for name in names:
        if isinstance(bindings[name], ox.BlankNode):
            raise StoreError(f"a blank node cannot be sent to a remote store (?{name})")
    variables = " ".join(str(ox.Variable(name)) for name in names)
    terms = " ".join(str(bindings[name]) for name in names)
    return f"\nVALUES ({variables}) {{ ({terms}) }}\n"


def with_values(sparql: str, bindings: Mapping[str, Term], values_inside: bool) -> str:
    """``sparql`` with ``bindings`` as a ``VALUES`` clause: first in its WHERE group where
    the server wants that (``values_inside``) or the query form allows it, else trailing."""
    if values_inside or query_form(sparql) in PATTERN_FORMS:
        # First in the WHERE group, as substitution binds them (the embedded store):
        # a FILTER on a parameter sees it, where a trailing VALUES joins only after.
        return inside_where(sparql, values_clause(bindings).strip())
    return sparql + values_clause(bindings)


def with_base(text: str, base_iri: str) -> str:
    """``text`` with its relative IRIs resolved against ``base_iri``.

    :raises QueryError: when ``base_iri`` is not an IRI.
    """
    # The protocol has no parameter for a base: a BASE before the query's own
    # prologue (a BASE of its own still wins), on its first line, so the store's
    # error positions keep their line numbers.
    try:
        return f"BASE {ox.NamedNode(base_iri)} {text}"
    except ValueError as exc:
        raise QueryError(f"cannot resolve the query's IRIs against {base_iri}: {exc}") from None


def with_dataset(
    sparql: str,
    text: str,
    dialect: Dialect,
    union_parameter: dict[str, str],
    default_graphs: list[str],
    named_graphs: list[str],
) -> tuple[str, dict[str, object]]:
    """The text to send of the query ``sparql`` (``text`` once its values and base are in)
    and the protocol's parameters that set its dataset: ``default_graphs`` and
    ``named_graphs`` when either is given (exactly what they name), else the query's
    ``FROM``, else the union (``union_parameter``, the server's own graphs left out)."""
    union = union_default(sparql, default_graphs, named_graphs)
    # never the union parameter beside a dataset: it would override the query's FROM,
    # and a store refuses it beside the protocol's (Oxigraph: 400)
    params: dict[str, object] = dict(union_parameter) if union else {}
    if (default_graphs or named_graphs) and dialect.adds_datasets:
        # the request's dataset replaces the query's, and is exactly what it names
        text = without_dataset(text)
        default_graphs = default_graphs or [NO_GRAPH]
        named_graphs = named_graphs or [NO_GRAPH]
    if default_graphs:
        params["default-graph-uri"] = default_graphs
    if named_graphs:
        params["named-graph-uri"] = named_graphs
    # the server's own graphs are left out of the union; a named dataset has only
    # what it names; and Virtuoso 7.2 answers a GRAPH <iri> pattern wrongly under
    # its exclusion pragmas (it matches in a graph that does not exist)
    prologue = dialect.prologue() if union and not names_a_graph(sparql) else ""
    return prologue + text, params


def query_post(dialect: Dialect, text: str, params: dict[str, object], form: str) -> dict[str, Any]:
    """The parameters, body and headers of the POST of a query of the form ``form``."""
    if dialect.form_posts:
        accept = (
            RDF_JSON if form in ("CONSTRUCT", "DESCRIBE") else "application/sparql-results+json"
        )
        return {"data": {**params, "query": text}, "headers": {"Accept": accept}}
    return {
        "params": params,
        "data": text.encode(),
        "headers": {"Content-Type": "application/sparql-query; charset=utf-8", "Accept": ACCEPT},
    }


def update_post(dialect: Dialect, text: str) -> dict[str, Any]:
    """The body and headers of the POST of an update."""
    if dialect.form_posts:
        return {"data": {"update": text}}
    return {"data": text.encode(), "headers": {"Content-Type": UPDATE_TYPE}}


def atomic_write(
    content: Iterable[tuple[str, Iterable[ox.Quad]]],
    drop: set[str],
    manifest_graph: str,
    manifest: Manifest,
    version: str,
) -> Iterator[bytes]:
    """The body of a write as one update request (one transaction: all of it or none):
    ``drop`` dropped, ``content`` inserted, and ``manifest_graph`` made the manifest as one
    JSON literal and ``version`` as its identifier."""
    node = ox.NamedNode(manifest_graph)
    stamp = [
        ox.Quad(
            node,
            ox.NamedNode(RDF.value),
            ox.Literal(manifest_to_json(manifest), datatype=ox.NamedNode(JSON_DATATYPE)),
            node,
        ),
        ox.Quad(node, ox.NamedNode(DCTERMS.identifier), ox.Literal(version), node),
    ]
    chunks = update_chunks(
        itertools.chain(content, [(manifest_graph, stamp)]), drop | {manifest_graph}
    )
    return (c.encode() for c in chunks)


def graph_get(graph: str) -> dict[str, Any]:
    """The parameters and headers of a Graph Store Protocol GET of ``graph``."""
    return {"params": {"graph": graph}, "headers": {"Accept": GRAPH_JSON}}


def graph_post(graph: str, ntriples: str) -> dict[str, Any]:
    """The parameters, body and headers of a Graph Store Protocol POST that adds triples
    to ``graph``."""
    return {
        "params": {"graph": graph},
        "data": ntriples.encode(),
        "headers": {"Content-Type": "application/n-triples"},
    }
