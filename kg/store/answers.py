"""A remote store's answers read into pyoxigraph's result objects, strictly.

Only JSON is asked for: a cut cannot leave a JSON document whole, so an answer cut short
(the Oxigraph server answers a query stopped by its own time limit with HTTP 200 and a
truncated body) is an error, never a partial result. SPARQL XML, RDF/XML and the
line-based formats are refused: some of their cuts still parse.

Virtuoso 7's SPARQL JSON is read too (:func:`virtuoso_results`): it names blank nodes
``nodeID://b10000`` (no blank-node label: pyoxigraph refuses it) and answers ASK as a
one-row SELECT of ``__ASK_RETVAL``. Its graphs are read as RDF/JSON
(:func:`rdf_json_triples`): its JSON-LD writes decimals as JSON numbers, which read back
as doubles.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pyoxigraph as ox
import requests

from ..errors import BadStoreAnswer
from ..rdf.results import QueryResult

#: Asked for every query of a standard server: SELECT and ASK as SPARQL JSON, graphs as
#: JSON-LD.
ACCEPT = "application/sparql-results+json, application/ld+json;q=0.9"
RESULTS_JSON = ("application/sparql-results+json", "application/json")
GRAPH_JSON = "application/ld+json"
RDF_JSON = "application/rdf+json"
_ASK = "__ASK_RETVAL"
_LABEL = re.compile(r"[^A-Za-z0-9_-]")


def query_result(
    response: requests.Response, shown: str, form: str, virtuoso: bool = False
) -> QueryResult:
    """The body as pyoxigraph results; it must parse to its end. ``form`` is the query's
    form (SELECT, ASK, CONSTRUCT, DESCRIBE); ``virtuoso`` reads that server's quirks."""
    media_type = _media_type(response)
    if media_type not in RESULTS_JSON:
        graph = ox.Store()
        graph.extend(
            ox.Quad(t.subject, t.predicate, t.object) for t in graph_triples(response, shown)
        )
        return graph.query("CONSTRUCT WHERE { ?s ?p ?o }")  # a real QueryTriples
    body = response.content
    if virtuoso:
        body = virtuoso_results(body, shown, form)
    try:
        result = ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
        if isinstance(result, ox.QueryBoolean):
            return result
        for _ in result:  # the parser is lazy: read it all once to know it is whole
            pass
        return ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
    except SyntaxError as exc:
        raise unparsable(shown, exc) from None


def graph_triples(response: requests.Response, shown: str) -> list[ox.Triple]:
    """A JSON-LD or RDF/JSON body as triples; it must parse to its end."""
    media_type = _media_type(response)
    if media_type == RDF_JSON:
        return rdf_json_triples(response.content, shown)
    if media_type != GRAPH_JSON:
        raise BadStoreAnswer(
            f"the SPARQL store at {shown} answered in an unexpected format "
            f"({media_type or 'no Content-Type'}; asked for JSON)"
        )
    try:
        return [q.triple for q in ox.parse(response.content, ox.RdfFormat.JSON_LD)]
    except SyntaxError as exc:
        raise unparsable(shown, exc) from None


def virtuoso_results(body: bytes, shown: str, form: str) -> bytes:
    """Virtuoso's SPARQL JSON as the standard's (W3C SPARQL 1.1 Query Results JSON).

    >>> virtuoso_results(b'{"head":{"vars":["__ASK_RETVAL"]},"results":{"bindings":'
    ...     b'[{"__ASK_RETVAL":{"type":"typed-literal","value":"1"}}]}}', "v", "ASK")
    b'{"head": {}, "boolean": true}'
    >>> json.loads(virtuoso_results(b'{"head":{"vars":["x"]},"results":{"bindings":'
    ...     b'[{"x":{"type":"bnode","value":"nodeID://b10007"}}]}}', "v", "SELECT")
    ... )["results"]["bindings"]
    [{'x': {'type': 'bnode', 'value': 'b10007'}}]
    """
    document = _json(body, shown)
    if not isinstance(document, dict):
        raise BadStoreAnswer(
            f"the SPARQL store at {shown} answered with JSON that is no SPARQL result"
        )
    if form == "ASK" and document.get("head", {}).get("vars") == [_ASK]:
        rows = document.get("results", {}).get("bindings", [])
        value = rows[0].get(_ASK, {}).get("value") if rows else "0"
        return json.dumps({"head": {}, "boolean": value in ("1", "true")}).encode()
    for row in document.get("results", {}).get("bindings", []):
        for term in row.values():
            if isinstance(term, dict) and term.get("type") == "bnode":
                term["value"] = blank_label(str(term.get("value", "")))
    return json.dumps(document).encode()


def blank_label(value: str) -> str:
    """A blank-node label from Virtuoso's ``nodeID://b10000`` (or ``_:b1``).

    >>> blank_label("nodeID://b10000"), blank_label("_:x")
    ('b10000', 'x')
    """
    label = value.removeprefix("nodeID://").removeprefix("_:")
    return _LABEL.sub("_", label) or "b"


def rdf_json_triples(body: bytes, shown: str) -> list[ox.Triple]:
    """RDF/JSON (W3C Note 2013) as triples. Numbers are read as their text, so a value
    Virtuoso writes as a JSON number keeps its digits.

    >>> [t.object.value for t in rdf_json_triples(b'{"urn:a": {"urn:p": [{"type": "literal",'
    ...     b' "value": 0.10, "datatype": "http://www.w3.org/2001/XMLSchema#decimal"}]}}', "v")]
    ['0.10']
    """
    document = _json(body, shown)
    try:
        triples = []
        for subject, predicates in document.items():
            node = _resource(subject)
            for predicate, objects in predicates.items():
                for value in objects:
                    triples.append(ox.Triple(node, ox.NamedNode(predicate), _object(value)))
        return triples
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise BadStoreAnswer(
            f"the SPARQL store at {shown} answered with RDF/JSON that is "
            f"not valid ({type(exc).__name__}: {exc})"
        ) from None


def _resource(text: str) -> ox.NamedNode | ox.BlankNode:
    if text.startswith(("_:", "nodeID://")):
        return ox.BlankNode(blank_label(text))
    return ox.NamedNode(text)


def _object(value: dict[str, Any]) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    kind, text = value["type"], str(value["value"])
    if kind == "uri":
        return ox.NamedNode(text)
    if kind == "bnode":
        return ox.BlankNode(blank_label(text))
    if value.get("lang"):
        return ox.Literal(text, language=value["lang"])
    if value.get("datatype"):
        return ox.Literal(text, datatype=ox.NamedNode(value["datatype"]))
    return ox.Literal(text)


def _json(body: bytes, shown: str) -> Any:
    try:
        return json.loads(body, parse_float=str, parse_int=str)
    except ValueError as exc:
        raise unparsable(shown, exc) from None


def _media_type(response: requests.Response) -> str:
    return response.headers.get("Content-Type", "").split(";")[0].strip().lower()


def unparsable(shown: str, exc: Exception) -> BadStoreAnswer:
    """The error for an answer that does not parse."""
    return BadStoreAnswer(
        f"the SPARQL store at {shown} sent an answer that does not parse, probably cut "
        f"short by the store's own time limit ({first_line(exc)})"
    )


def first_line(exc: Exception) -> str:
    """An exception's first line of text (or its type's name)."""
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
