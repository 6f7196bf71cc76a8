"""rdflib terms (what mapping and validation use) and pyoxigraph terms (what the store holds)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from .namespaces import XSD_STRING

_NAMED: dict[str, ox.NamedNode] = {}


def to_ox(term: Node) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    """One term, its lexical form kept exactly as written."""
    if isinstance(term, URIRef):
        named = _NAMED.get(term)
        if named is None:
            named = ox.NamedNode(str(term))
            if len(_NAMED) < 50_000:  # predicates, classes, shared nodes repeat
                _NAMED[term] = named
        return named
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        datatype = str(term.datatype) if term.datatype else XSD_STRING
        return ox.Literal(str(term), datatype=ox.NamedNode(datatype))
    raise TypeError(f"not an RDF term: {term!r}")


def to_quads(triples: Iterable[tuple[Node, Node, Node]], graph: str) -> Iterator[ox.Quad]:
    """Triples placed in the named graph ``graph``."""
    name = ox.NamedNode(graph)
    for s, p, o in triples:
        yield ox.Quad(to_ox(s), to_ox(p), to_ox(o), name)  # type: ignore[arg-type]


_LINE_FORM: dict[URIRef, str] = {}


def nquads(triples: Iterable[tuple[Node, Node, Node]], graph: str | None) -> tuple[bytes, int]:
    """Triples as N-Quads text in the named graph ``graph`` (None: the default graph) and
    their number: the bytes ``ox.serialize`` writes for them. Each term is written by
    pyoxigraph (a term's ``str`` is its N-Triples form, escapes included), but no
    ``ox.Quad`` is built: that is the slow part (bench/terms.py: 1.8x faster)."""
    tail = f" <{ox.NamedNode(graph).value}> .\n" if graph is not None else " .\n"
    lines = []
    for s, p, o in triples:
        lines.append(f"{_line_form(s)} {_line_form(p)} {_line_form(o)}{tail}")
    return "".join(lines).encode(), len(lines)


#: What pyoxigraph writes a string literal's characters as they are: none it escapes.
_AS_WRITTEN = re.compile(r'[^\x00-\x1f"\\\x7f-\x9f]*')


def _line_form(term: Node) -> str:
    if isinstance(term, URIRef):
        form = _LINE_FORM.get(term)
        if form is None:
            form = str(to_ox(term))
            if len(_LINE_FORM) < 50_000:
                _LINE_FORM[term] = form
        return form
    if type(term) is Literal and term.language is None:
        text = str(term)
        if _AS_WRITTEN.fullmatch(text):  # no escapes: the form pyoxigraph writes, unbuilt
            datatype = term.datatype
            if datatype is None or datatype == XSD_STRING:
                return f'"{text}"'
            return f'"{text}"^^<{datatype}>'
    return str(to_ox(term))


def from_ox(term: ox.NamedNode | ox.BlankNode | ox.Literal) -> Node:
    """One pyoxigraph term as rdflib's: the lexical form kept as written (not normalized),
    a plain ``xsd:string`` literal without datatype, as rdflib's own parser makes it."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if term.language:
        return Literal(term.value, lang=term.language)
    datatype = term.datatype.value
    return Literal(
        term.value, datatype=None if datatype == XSD_STRING else URIRef(datatype), normalize=False
    )


def parse_turtle(paths: Iterable[Path]) -> Graph:
    """Turtle files into one rdflib graph, parsed by pyoxigraph (several times faster than
    rdflib's parser: every ``kg`` command that validates reads the shapes and ontology)."""
    graph = Graph()
    for path in paths:
        for triple in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
            graph.add((from_ox(triple.subject), from_ox(triple.predicate), from_ox(triple.object)))
    return graph


#: Quads given to the bulk loader at a time. It holds what one call gives it before it
#: writes (about 0.7 KB a quad: 1.5 GB for 35k results' 2 million quads in one call, 0.3 GB
#: in pieces of this size, and no slower: bench/README.md, "Fifth step").
BULK_PIECE = 250_000


def bulk_extend(writer: ox.Store, quads: Iterable[ox.Quad]) -> None:
    """``writer.bulk_extend(quads)`` in pieces of :data:`BULK_PIECE`, so that its memory
    does not grow with the size of the write."""
    rest = iter(quads)
    for first in rest:
        writer.bulk_extend(itertools.chain([first], itertools.islice(rest, BULK_PIECE - 1)))
