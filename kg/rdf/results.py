"""SPARQL results written with a row cap: standard formats, truncation marked in each.

pyoxigraph's own serializers cannot stop after N rows, so SELECT results are
written here (SPARQL 1.1 Query Results JSON, XML, CSV and TSV); graphs and booleans
go through pyoxigraph, and so does the JSON of a query the cap could be added to as a
``LIMIT`` (:func:`write_json_of_limited`).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeAlias, TypeVar
from xml.sax.saxutils import escape, quoteattr

import pyoxigraph as ox

from .formats import by_media_type
from .namespaces import XSD_STRING

QueryResult: TypeAlias = ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples
T = TypeVar("T")

TRUNCATED_LINK = "urn:x-claimgraph:truncated"


@dataclass
class SerializedResult:
    """A serialized result: its bytes, and whether the row cap cut it."""

    body: bytes
    truncated: bool
    rows: int


def write(result, media_type: str, max_rows: int) -> SerializedResult:
    """Serialize a pyoxigraph query result as ``media_type``, at most ``max_rows`` rows:
    a graph in an RDF syntax, solutions or a boolean in a SPARQL results format.

    :raises KeyError: for a media type the result cannot be written as.
    """
    fmt = by_media_type(media_type)
    if isinstance(result, ox.QueryTriples):
        if fmt.rdf is None:
            raise KeyError(media_type)
        triples, truncated = _take(iter(result), max_rows)
        body = ox.serialize(triples, format=fmt.rdf)
        assert body is not None  # no output given: the bytes are returned
        return SerializedResult(body, truncated, len(triples))
    if fmt.results is None:
        raise KeyError(media_type)
    if isinstance(result, ox.QueryBoolean):
        answer = result.serialize(format=fmt.results)
        assert answer is not None  # no output given: the bytes are returned
        return SerializedResult(answer, False, 1)
    variables = [v.value for v in result.variables]
    rows, truncated = _take(iter(result), max_rows)
    writer = _WRITERS[fmt.results]
    return SerializedResult(writer(variables, rows, truncated), truncated, len(rows))


def write_json_of_limited(result: ox.QuerySolutions, max_rows: int) -> SerializedResult:
    """SPARQL JSON of the solutions of a query given ``LIMIT max_rows + 1``
    (:func:`kg.rdf.sparqltext.with_row_limit`), written by pyoxigraph, and cut to
    ``max_rows`` (marked as :func:`write` marks it) where the extra row came.

    pyoxigraph writes a result's JSON in a third of the time this module's writer takes
    (bench/README.md, "Canned queries at scale"); its rows are counted in what it wrote
    (:func:`json_rows`).
    """
    body = result.serialize(format=ox.QueryResultsFormat.JSON)
    assert body is not None  # no output given: the bytes are returned
    rows = json_rows(body)
    if rows <= max_rows:
        return SerializedResult(body, False, rows)
    parsed = json.loads(body)
    bindings = parsed["results"]["bindings"]
    parsed["head"]["link"] = [TRUNCATED_LINK]
    parsed["results"]["bindings"] = bindings[:max_rows]
    parsed["truncated"] = True
    return SerializedResult(
        json.dumps(parsed, ensure_ascii=False, separators=(",", ":")).encode(), True, max_rows
    )


def json_rows(body: bytes) -> int:
    """The number of solutions in SPARQL JSON results as pyoxigraph writes them.

    Counted in the bytes, at the ``},{"`` that opens each row after the first: an
    unescaped ``"`` is always a string's delimiter, and after a string's closing quote
    JSON allows only ``,:}]``, so ``},{"`` followed by anything else (a variable's first
    letter) is a row's start, never text inside a value, whatever a value holds. That is
    one scan of the bytes, 0.6-3.5 % of the query's time where parsing them again cost
    3-14 % (bench/README.md, "Counting rows"). An empty row (``{}``) has no such
    mark, and another writer's layout (white space) may differ: where either may occur,
    pyoxigraph's results parser counts.

    >>> store = ox.Store()
    >>> json_rows(store.query("SELECT ?x { VALUES ?x { 1 2 '},{' } }").serialize(
    ...     format=ox.QueryResultsFormat.JSON))
    3
    """
    if not body.startswith(_JSON_HEAD) or b"{}" in body:
        parsed = ox.parse_query_results(body, format=ox.QueryResultsFormat.JSON)
        if isinstance(parsed, ox.QueryBoolean):  # a boolean has no rows to count
            raise TypeError("'pyoxigraph.QueryBoolean' object is not iterable")
        return sum(1 for _ in parsed)
    if body.endswith(_NO_ROWS):
        return 0
    return 1 + len(_ROW_START.findall(body))


_JSON_HEAD, _NO_ROWS = b'{"head":{"vars":[', b'"bindings":[]}}'
#: A row's start after another: not followed by what JSON allows right after a string's
#: closing quote (pyoxigraph writes no spaces).
_ROW_START = re.compile(rb'\},\{"[^,:}\]]')


def _take(items: Iterator[T], limit: int) -> tuple[list[T], bool]:
    taken: list[T] = []
    for item in items:
        if len(taken) == limit:
            return taken, True
        taken.append(item)
    return taken, False


def _json_term(term) -> dict[str, str]:
    if isinstance(term, ox.NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, ox.BlankNode):
        return {"type": "bnode", "value": term.value}
    out = {"type": "literal", "value": term.value}
    if term.language:
        out["xml:lang"] = term.language
    elif term.datatype.value != XSD_STRING:
        out["datatype"] = term.datatype.value
    return out


def _json(variables: list[str], rows: list, truncated: bool) -> bytes:
    head: dict[str, object] = {"vars": variables}
    if truncated:
        head["link"] = [TRUNCATED_LINK]
    # SerializedResult as text, each distinct term once: a term repeats down a column (a status, a
    # source, an agent), and building and dumping a dict per cell cost as much as the query
    # for results of thousands of rows (bench/README.md, "Canned queries at scale").
    keys = [json.dumps(v, ensure_ascii=False) + ":" for v in variables]
    written: dict = {}
    bindings = []
    for row in rows:
        cells = []
        for key, term in zip(keys, row, strict=True):
            if term is None:
                continue
            text = written.get(term)
            if text is None:
                text = written[term] = json.dumps(_json_term(term), ensure_ascii=False)
            cells.append(key + text)
        bindings.append("{" + ",".join(cells) + "}")
    body = (
        f'{{"head":{json.dumps(head, ensure_ascii=False)},'
        f'"results":{{"bindings":[{",".join(bindings)}]}}'
    )
    # unknown members are ignored by SPARQL JSON readers
    return (body + (',"truncated":true}' if truncated else "}")).encode()


def _xml(variables: list[str], rows: list, truncated: bool) -> bytes:
    out = [
        '<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">',
        "<head>",
    ]
    out += [f"<variable name={quoteattr(v)}/>" for v in variables]
    if truncated:
        out.append(f"<link href={quoteattr(TRUNCATED_LINK)}/>")
    out.append("</head><results>")
    for row in rows:
        out.append("<result>")
        for v in variables:
            term = row[v]
            if term is None:
                continue
            if isinstance(term, ox.NamedNode):
                inner = f"<uri>{escape(term.value)}</uri>"
            elif isinstance(term, ox.BlankNode):
                inner = f"<bnode>{escape(term.value)}</bnode>"
            elif term.language:
                inner = (
                    f"<literal xml:lang={quoteattr(term.language)}>{escape(term.value)}</literal>"
                )
            elif term.datatype.value != XSD_STRING:
                inner = (
                    f"<literal datatype={quoteattr(term.datatype.value)}>"
                    f"{escape(term.value)}</literal>"
                )
            else:
                inner = f"<literal>{escape(term.value)}</literal>"
            out.append(f"<binding name={quoteattr(v)}>{inner}</binding>")
        out.append("</result>")
    out.append("</results></sparql>\n")
    return "\n".join(out).encode()


def _csv(variables: list[str], rows: list, truncated: bool) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(variables)
    for row in rows:
        writer.writerow([_csv_value(row[v]) for v in variables])
    return buffer.getvalue().encode()


def _csv_value(term) -> str:
    if term is None:
        return ""
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    return term.value


def _tsv(variables: list[str], rows: list, truncated: bool) -> bytes:
    lines = ["\t".join(f"?{v}" for v in variables)]
    for row in rows:
        lines.append("\t".join("" if row[v] is None else str(row[v]) for v in variables))
    return ("\n".join(lines) + "\n").encode()


_WRITERS = {
    ox.QueryResultsFormat.JSON: _json,
    ox.QueryResultsFormat.XML: _xml,
    ox.QueryResultsFormat.CSV: _csv,
    ox.QueryResultsFormat.TSV: _tsv,
}
