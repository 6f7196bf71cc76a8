"""SHACL-SPARQL: the SELECT constraints of the node shapes, run once per batch.

pyshacl parses a constraint's query again for every focus node; here each query runs
once in an in-memory pyoxigraph store that holds only the triples it can see (those with
the predicates it names), and each solution whose ``?this`` is a focus node is a result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

import pyoxigraph as ox
from rdflib import Literal, URIRef
from rdflib.term import Node as Term

from ...rdf.terms import from_ox, to_ox
from .index import Overlay
from .results import Result
from .shapes import SparqlConstraint


def sparql_store(index: Overlay, predicates: frozenset[URIRef]) -> ox.Store:
    """The triples the SPARQL constraints can see, in an in-memory store."""
    store = ox.Store()
    store.extend(
        ox.Quad(to_ox(s), to_ox(p), to_ox(o), ox.DefaultGraph())  # type: ignore[arg-type]
        for layer in index.layers
        for s, p, o in layer.triples
        if p in predicates
    )
    return store


_TEMPLATE = re.compile(r"\{[?$](\w+)\}")


def run_sparql(
    store: ox.Store,
    written: Callable[[Term, URIRef], list[Term]],
    constraint: SparqlConstraint,
    focus: set[Term],
) -> list[Result]:
    """Run the constraint once for all focus nodes; each solution is a violation."""
    results = []
    solutions = store.query(constraint.query)
    assert isinstance(solutions, ox.QuerySolutions)  # sh:select: a SELECT query
    names = [v.value for v in solutions.variables]
    for row in solutions:
        bindings = {name: row[name] for name in names}
        this = from_ox(bindings["this"])
        if this not in focus:
            continue
        value = from_ox(bindings["value"]) if bindings.get("value") is not None else None
        path = from_ox(bindings["path"]) if bindings.get("path") is not None else None
        if isinstance(value, Literal) and isinstance(path, URIRef):
            # The store writes numbers canonically ("24.00" -> "24"); report the value as
            # the data holds it.
            original = [
                o
                for o in written(this, path)
                if o == value
                or (isinstance(o, Literal) and o.datatype == value.datatype and _same(o, value))
            ]
            value = original[0] if original else value
        texts: dict[str, str | None] = {
            name: (term.value if term is not None else None) for name, term in bindings.items()
        }
        if value is not None:
            texts["value"] = str(value)
        message = _filled(constraint.message, texts)
        results.append(
            Result(
                this,
                path if isinstance(path, URIRef) else None,
                value,
                "SPARQLConstraintComponent",
                constraint.shape,
                message,
            )
        )
    return results


def _filled(message: str, texts: dict[str, str | None]) -> str:
    """The message with each ``{?name}`` (or ``{$name}``) that has a text replaced by it."""
    return _TEMPLATE.sub(lambda m: texts.get(m.group(1)) or m.group(0), message)


def _same(a: Literal, b: Literal) -> bool:
    try:
        return Decimal(str(a)) == Decimal(str(b))
    except InvalidOperation:
        return False
