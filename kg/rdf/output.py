"""Writing results and graphs for the terminal: tables, SPARQL result formats, RDF syntaxes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO

import pyoxigraph as ox

from ..errors import UsageError
from ..kinds import SEGMENTS, iri_prefix
from .formats import NAMES, RDF_SYNTAXES
from .namespaces import PREFIXES
from .results import QueryResult

#: The names SPARQL results are written as (kg query, kg stats), with their pyoxigraph formats.
RESULT_FORMATS = {name: NAMES[name].results for name in ("json", "xml", "csv", "tsv")}
#: The RDF syntaxes graphs are written as (kg show), with their pyoxigraph formats.
GRAPH_FORMATS = {name: NAMES[name].rdf for name in RDF_SYNTAXES}
#: Formats that hold named graphs; the others get the union of the graphs.
QUAD_FORMATS = {name for name in GRAPH_FORMATS if NAMES[name].quads}
#: The RDF syntaxes kg query writes a CONSTRUCT or DESCRIBE result as.
GRAPH_RESULT_FORMATS = ("ttl", "nt", "jsonld")


def prefixes(base: str) -> dict[str, str]:
    """The prefixes used when RDF is written for people: one per kind of minted IRI
    (``record:x``), then the vocabularies'."""
    return {
        **{segment: iri_prefix(base, segment) for segment in SEGMENTS},
        **{name: str(ns) for name, ns in PREFIXES.items()},
    }


def write_graph(quads: Iterable[ox.Quad], fmt: str, out: IO[bytes], base: str) -> None:
    """Serialize quads; triple-only formats get the union of the graphs.

    :raises UsageError: for an unknown format.
    """
    if fmt not in GRAPH_FORMATS:
        raise UsageError(f"unknown format {fmt!r} (one of: {', '.join(GRAPH_FORMATS)})")
    rdf_format = GRAPH_FORMATS[fmt]
    data: Iterable[ox.Quad] | Iterable[ox.Triple]
    if fmt in QUAD_FORMATS:
        data = sorted(quads, key=str)
    else:
        data = sorted({q.triple for q in quads}, key=str)
    use_prefixes = fmt in ("ttl", "trig", "rdf")
    body = ox.serialize(data, format=rdf_format, prefixes=prefixes(base) if use_prefixes else None)
    assert body is not None  # no output given: the bytes are returned
    out.write(body)


def write_result(result: QueryResult, fmt: str, out: IO[bytes], base: str) -> None:
    """Write a query result: a table for people, or a SPARQL results format.

    CONSTRUCT and DESCRIBE results are graphs: ``table`` writes them as Turtle.

    :raises UsageError: for an unknown format.
    """
    if isinstance(result, ox.QueryTriples):
        graph_fmt = "ttl" if fmt == "table" else fmt
        if graph_fmt not in GRAPH_FORMATS or graph_fmt in QUAD_FORMATS - {"jsonld"}:
            raise UsageError(
                f"a graph result cannot be written as {fmt!r} "
                f"(use {', '.join(GRAPH_RESULT_FORMATS)})"
            )
        graph = ox.serialize(
            sorted(result, key=str),
            format=GRAPH_FORMATS[graph_fmt],
            prefixes=prefixes(base) if graph_fmt == "ttl" else None,
        )
        assert graph is not None  # no output given: the bytes are returned
        out.write(graph)
        return
    if fmt == "table":
        out.write(_table(result, base).encode())
        return
    if fmt not in RESULT_FORMATS:
        raise UsageError(f"unknown format {fmt!r} (one of: table, {', '.join(RESULT_FORMATS)})")
    answer = result.serialize(format=RESULT_FORMATS[fmt])
    assert answer is not None  # no output given: the bytes are returned
    out.write(answer)


def _table(result: ox.QuerySolutions | ox.QueryBoolean, base: str) -> str:
    if isinstance(result, ox.QueryBoolean):
        return ("true" if bool(result) else "false") + "\n"
    names = [v.value for v in result.variables]
    return text_table(names, [[_cell(row[name], base) for name in names] for row in result])


def text_table(names: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell, a rule under the header, and the row count."""
    widths = [max([len(n), *(len(r[i]) for r in rows)]) for i, n in enumerate(names)]
    lines = [
        "  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True)).rstrip(),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(lines) + "\n"


def _cell(term: ox.NamedNode | ox.BlankNode | ox.Literal | None, base: str) -> str:
    if term is None:
        return ""
    if isinstance(term, ox.NamedNode):
        for name, iri in prefixes(base).items():
            if term.value.startswith(iri) and "/" not in term.value[len(iri) :]:
                return f"{name}:{term.value[len(iri) :]}"
        return f"<{term.value}>"
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    return term.value.replace("\n", " ")
