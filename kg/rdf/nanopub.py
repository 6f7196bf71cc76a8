"""Nanopublications read from quads, and what makes one well formed (the rules of the
Nanopublication guidelines as the reference implementation, nanopub-java, enforces them,
and the Nanopublication Test Suite tests them).

A nanopublication is four named graphs: a head graph stating ``<np> a
np:Nanopublication`` and naming its assertion, provenance and publication info graphs,
each of which holds at least one statement. Every graph's IRI starts with the
nanopublication's; the provenance says something of the assertion graph and the
publication info something of the nanopublication; a literal the assertion states fits
its datatype.
Where the nanopublication's IRI ends in a trusty URI artifact code, its quads hash to it
(:mod:`kg.rdf.trusty`); where its publication info holds a signature of it, the
signature verifies (:mod:`kg.rdf.nanopub_signature`). A file may hold several: each is
read and checked alone.

>>> import pyoxigraph as ox
>>> text = '''@prefix : <http://ex.org/np1/> . @prefix np: <http://www.nanopub.org/nschema#> .
... :Head { : a np:Nanopublication ; np:hasAssertion :a ; np:hasProvenance :p ;
...           np:hasPublicationInfo :i . }
... :a { <http://ex.org/x> <http://ex.org/y> "z" . }
... :p { :a <http://www.w3.org/ns/prov#wasDerivedFrom> <http://ex.org/s> . }
... :i { : <http://purl.org/dc/terms/created> "2026-12-07" . }'''
>>> [found] = read_nanopubs(ox.parse(text.encode(), format=ox.RdfFormat.TRIG))
>>> found.iri, problems(found)
('http://ex.org/np1/', [])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox
import rdflib

from .literals import ill_typed
from .nanopub_signature import signature_problems
from .terms import to_ox
from .trusty import TrustyError, artifact_code_of, is_trusty

NP = "http://www.nanopub.org/nschema#"
NANOPUBLICATION = NP + "Nanopublication"
PARTS = {"assertion": NP + "hasAssertion", "provenance": NP + "hasProvenance"}
PARTS["pubinfo"] = NP + "hasPublicationInfo"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


@dataclass
class Nanopub:
    """One nanopublication: its IRI, its four graphs' IRIs ("" where the head names none),
    and every quad of those graphs."""

    iri: str
    head: str
    assertion: str = ""
    provenance: str = ""
    pubinfo: str = ""
    quads: list[ox.Quad] = field(default_factory=list)
    #: what made it unreadable as one (several types, several assertions, ...)
    faults: list[str] = field(default_factory=list)

    def graph(self, iri: str) -> list[ox.Quad]:
        return [q for q in self.quads if _name(q.graph_name) == iri]


#: The syntaxes of named graphs a nanopublication file comes in, by file suffix.
SYNTAXES = {".trig": ox.RdfFormat.TRIG, ".nq": ox.RdfFormat.N_QUADS}


def file_quads(path: Path) -> list[ox.Quad]:
    """The quads of a nanopublication file: TriG, N-Quads or TriX (``.xml``, read by
    rdflib: pyoxigraph has no TriX reader).

    :raises SyntaxError: for a file that does not parse; :raises ValueError: for another
        suffix.
    """
    if path.suffix == ".xml":
        dataset = rdflib.Dataset()
        try:
            dataset.parse(path, format="trix")
        except Exception as exc:  # rdflib raises its parser's own errors
            raise SyntaxError(f"{path}: {exc}") from exc
        return [
            ox.Quad(to_ox(s), to_ox(p), to_ox(o), ox.NamedNode(str(g)))  # type: ignore[arg-type]
            for s, p, o, g in dataset.quads()
        ]
    if path.suffix not in SYNTAXES:
        raise ValueError(f"{path}: not a nanopublication file (.trig, .nq or .xml)")
    return list(ox.parse(path=path, format=SYNTAXES[path.suffix]))


def check_quads(quads: Iterable[ox.Quad]) -> list[str]:
    """Every problem of the nanopublications ``quads`` hold, each said with the IRI of
    the one it is of (none: each is well formed, and there is at least one)."""
    every = list(quads)
    found = read_nanopubs(every)
    said = [] if found else ["no nanopublication (no graph types anything np:Nanopublication)"]
    rest = leftover(every, found)
    if rest:
        said.append(f"{len(rest)} statement(s) outside every nanopublication's four graphs")
    return said + [f"{np.iri}: {problem}" for np in found for problem in problems(np)]


def read_nanopubs(quads: Iterable[ox.Quad]) -> list[Nanopub]:
    """The nanopublications of ``quads``, one per head graph (a graph stating that
    something is an ``np:Nanopublication``); a quad in none of their graphs is left over
    and reported by :func:`leftover`."""
    by_graph: dict[str, list[ox.Quad]] = {}
    for q in quads:
        by_graph.setdefault(_name(q.graph_name), []).append(q)
    found: list[Nanopub] = []
    for graph, held in by_graph.items():
        for q in held:
            if q.predicate.value == RDF_TYPE and _name(q.object) == NANOPUBLICATION:
                found.append(Nanopub(_name(q.subject), graph))
    heads = Counter(np.head for np in found)  # a dump holds thousands: counted once
    for np in found:
        head = by_graph.get(np.head, [])
        if heads[np.head] > 1:
            np.faults.append(f"the head graph {np.head} types more than one nanopublication")
        for part, predicate in PARTS.items():
            named = {_name(q.object) for q in head if q.predicate.value == predicate}
            named.discard("")
            if len(named) > 1:
                np.faults.append(f"the head names {len(named)} {part} graphs")
            setattr(np, part, min(named) if named else "")
        graphs = dict.fromkeys(g for g in (np.head, np.assertion, np.provenance, np.pubinfo) if g)
        np.quads = [q for g in graphs for q in by_graph.get(g, [])]
    return found


def leftover(quads: Iterable[ox.Quad], found: list[Nanopub]) -> list[ox.Quad]:
    """The quads in no graph of any of ``found`` (an extra graph, the default graph)."""
    graphs = {g for np in found for g in (np.head, np.assertion, np.provenance, np.pubinfo)}
    return [q for q in quads if _name(q.graph_name) not in graphs or not _name(q.graph_name)]


def problems(np: Nanopub) -> list[str]:
    """What keeps ``np`` from being a well-formed nanopublication (none: it is one)."""
    found = list(np.faults)
    names = {"head": np.head, **{p: getattr(np, p) for p in PARTS}}
    for part, iri in names.items():
        if not iri:
            found.append(f"no {part} graph")
        elif part != "head" and not np.graph(iri):
            found.append(f"the {part} graph {iri} is empty or missing")
        if iri and not iri.startswith(np.iri):
            found.append(f"the {part} graph's IRI {iri} does not start with {np.iri}")
    if len({v for v in names.values() if v}) < len([v for v in names.values() if v]):
        found.append("two of its graphs have the same IRI")
    if np.provenance and not _mentions(np.graph(np.provenance), np.assertion):
        found.append("the provenance says nothing of the assertion graph")
    if np.pubinfo and not _mentions(np.graph(np.pubinfo), np.iri):
        found.append("the publication info says nothing of the nanopublication")
    for q in np.graph(np.assertion):  # what it asserts (nanopub-java reads the rest as given)
        if isinstance(q.object, ox.Literal) and ill_typed(q.object):
            found.append(f"the literal {q.object} does not fit its datatype")
    found += _trusty_problems(np)
    if np.pubinfo:
        found += signature_problems(np.iri, np.graph(np.pubinfo), np.quads)
    return found


def _trusty_problems(np: Nanopub) -> list[str]:
    try:
        artifact_code_of(np.iri)
    except TrustyError:
        return []  # not a trusty URI: nothing to check
    try:
        return [] if is_trusty(np.quads, np.iri) else [f"its quads do not hash to {np.iri}"]
    except TrustyError as exc:
        return [str(exc)]


def _mentions(quads: list[ox.Quad], iri: str) -> bool:
    return bool(iri) and any(_name(q.subject) == iri or _name(q.object) == iri for q in quads)


def _name(term: object) -> str:
    return term.value if isinstance(term, ox.NamedNode) else ""
