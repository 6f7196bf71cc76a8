"""Counting the rows of SPARQL JSON in its bytes (kg.rdf.results.json_rows) gives what
pyoxigraph's results parser counts, for any values: text made of the very bytes that
mark a row (``},{"``, ``{}``, quotes, backslashes), empty rows, unbound variables,
variables of any script, IRIs, blank nodes, typed and language-tagged literals. The
solutions are real pyoxigraph query results over a store."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.rdf.results import json_rows

JSON = ox.QueryResultsFormat.JSON
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)

# Text drawn mostly from the characters that JSON's structure is made of.
PIECES = [*'},{"[]:\\ ab\n\té', "},{", '},{"', "{}", '\\"']
tricky = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)
term = st.one_of(
    st.none(),  # unbound
    tricky.map(ox.Literal),
    tricky.map(lambda t: ox.Literal(t, language="en")),
    st.integers().map(
        lambda i: ox.Literal(
            str(i), datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")
        )
    ),
    st.from_regex(r"\A[a-z]{1,8}\Z").map(lambda t: ox.NamedNode(f"http://example.org/{t}")),
    st.just(ox.BlankNode("b0")),
)
names = st.lists(
    st.sampled_from(["x", "y", "_z", "9", "é", "type", "value"]),
    min_size=1,
    max_size=3,
    unique=True,
)


def serialized(variables: list[str], rows: list[list[ox.Literal | None]]) -> bytes:
    """SPARQL JSON of ``rows`` (``None``: unbound), as a query over a store answers."""
    store = ox.Store()
    for i, row in enumerate(rows):
        for name, value in zip(variables, row, strict=True):
            if value is not None:
                store.add(
                    ox.Quad(ox.NamedNode(f"urn:row:{i}"), ox.NamedNode(f"urn:v:{name}"), value)
                )
    rows_pattern = " ".join(
        f"OPTIONAL {{ ?row <urn:v:{name}> ?v{n} }}" for n, name in enumerate(variables)
    )
    select = " ".join(f"(?v{n} AS ?{name})" for n, name in enumerate(variables))
    return store.query(
        f"SELECT {select} WHERE {{ VALUES ?row {{ "
        + " ".join(f"<urn:row:{i}>" for i in range(len(rows)))
        + f" }} {rows_pattern} }}"
    ).serialize(format=JSON)


@SETTINGS
@given(data=st.data())
def test_the_count_in_the_bytes_is_the_parsers(data: st.DataObject) -> None:
    variables = data.draw(names)
    rows = data.draw(
        st.lists(st.lists(term, min_size=len(variables), max_size=len(variables)), max_size=8)
    )
    body = serialized(variables, rows)
    assert json_rows(body) == sum(1 for _ in ox.parse_query_results(body, format=JSON))
    assert json_rows(body) == len(rows)


CASES = {
    "a value ending in the mark": [[ox.Literal("a},{")], [ox.Literal("b")]],
    "a tagged value ending in it": [[ox.Literal("},{", language="en")], [ox.Literal("c")]],
    "a typed value ending in it": [
        [ox.Literal("},{", datatype=ox.NamedNode("urn:t"))],
        [ox.Literal("d")],
    ],
    "the mark and a quote inside": [[ox.Literal('},{"x},{"')], [ox.Literal('"},{"')]],
    "braces as a value": [[ox.Literal("{}")], [ox.Literal("}{")], [ox.Literal("{")]],
    "an empty row between": [[ox.Literal("e")], [None], [ox.Literal("f")]],
}


@pytest.mark.parametrize("name", CASES)
def test_values_made_of_the_marks(name: str) -> None:
    rows = CASES[name]
    body = serialized(["x"], rows)
    assert json_rows(body) == len(rows)


def test_no_rows_and_one_empty_row() -> None:
    store = ox.Store()
    empty = store.query("SELECT ?x WHERE { ?x ?p ?o }").serialize(format=JSON)
    assert json_rows(empty) == 0
    assert json_rows(store.query("SELECT * WHERE {}").serialize(format=JSON)) == 1  # one {}
