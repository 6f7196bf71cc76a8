"""JSON-LD with the project's context inline, so a document expands offline.

Two shapes: :func:`compact` (any set of quads, flat, short names) and
:func:`framed_record` (a record's closure as one tree: the claim on top, everything it
links to nested under it).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any, cast

import pyoxigraph as ox
from pyld import jsonld

from ..resources import resource_dir
from .namespaces import XSD_STRING

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
#: A claim's PROV summary (docs/links.md) names its activity and agent; they stay nested
#: where they were (the review under the claim's reviews, the agent under the review).
_NAMED_ONLY = frozenset(
    f"http://www.w3.org/ns/prov#{name}" for name in ("wasGeneratedBy", "wasAttributedTo")
)


def context_path() -> Path:
    """Where ``ontology/context.jsonld`` is (in a checkout or an installed wheel): the file
    the browser serves at ``/context.jsonld``."""
    return resource_dir("ontology") / "context.jsonld"


@cache
def context() -> dict[str, Any]:
    """The ``@context`` of ``ontology/context.jsonld``."""
    return json.loads(context_path().read_text())["@context"]


def compact(quads: Iterable[ox.Quad]) -> dict[str, Any]:
    """Quads as compacted JSON-LD: short names from the context, the context inline.

    Graph names are dropped, as in the Turtle of the same URL: the document holds the
    union of the graphs in its default graph. (A named graph, ``{"@id": G, "@graph":
    [...]}``, is what JSON-LD makes of quads, and a client that reads the document into
    one graph, as rdflib's ``Graph.parse`` does, would find it empty.)"""
    triples = sorted({q.triple for q in quads}, key=str)
    serialized = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES)
    assert serialized is not None  # no output given: the bytes are returned
    nquads = serialized.decode()
    expanded = jsonld.from_rdf(nquads, {"format": "application/n-quads", "useNativeTypes": False})
    return jsonld.compact(expanded, {"@context": context()})


@cache
def _preferred_reverse() -> tuple[str, ...]:
    """Properties the context names in reverse (``reviews``, ``runs``): a node that points
    at the claim by one of them is nested under that name rather than another."""
    prefixes = {k: v for k, v in context().items() if isinstance(v, str) and v.endswith(("#", "/"))}
    found = []
    for definition in context().values():
        if isinstance(definition, dict) and "@reverse" in definition:
            prefix, _, local = definition["@reverse"].partition(":")
            found.append(prefixes.get(prefix, prefix + ":") + local)
    return tuple(found)


def framed_record(quads: Iterable[ox.Quad], record_iri: str) -> dict[str, Any]:
    """A record's closure as one compacted JSON-LD tree with the context inline.

    The claim is the top object. Every other node is nested once, at the shallowest place
    that reaches it (breadth first from the claim: its locator, source with artifact and
    checksum, evaluation, evidence rows; the reviews and runs that point at it, with their
    agents), and under a node already placed that links to it rather than in reverse under
    a node it points at (a run's verdict sits in the run, not under the claim it is on);
    every further mention is a reference by ``id``. Graph names are dropped: the
    document holds the union of the graphs, the triples ``kg show ID --format nt`` prints.
    Nodes that nothing connects to the claim (none in a valid record) go to ``@included``.
    """
    triples = {q.triple for q in quads}
    out: dict[ox.NamedNode | ox.BlankNode, list[ox.Triple]] = defaultdict(list)
    into: dict[ox.NamedNode | ox.BlankNode, list[ox.Triple]] = defaultdict(list)
    mentions: dict[ox.BlankNode, int] = defaultdict(int)
    for t in sorted(triples, key=str):
        # pyoxigraph's stub lets a subject be a Triple; pyoxigraph 0.5 never makes one
        out[t.subject].append(t)  # type: ignore[index]
        if isinstance(t.object, ox.NamedNode | ox.BlankNode):
            into[t.object].append(t)
            if isinstance(t.object, ox.BlankNode):
                mentions[t.object] += 1

    preferred = _preferred_reverse()
    nodes: dict[ox.NamedNode | ox.BlankNode, dict[str, Any]] = {}
    queue: list[ox.NamedNode | ox.BlankNode] = []

    def place(node: ox.NamedNode | ox.BlankNode, nested: bool) -> dict[str, Any]:
        """The node object to put here: the node itself the first time, else a reference.
        A blank node nested at its only mention needs no label; any other keeps it."""
        if node in nodes or node not in out:
            return {"@id": _id(node)}
        unlabelled = nested and isinstance(node, ox.BlankNode) and mentions[node] == 1
        nodes[node] = {} if unlabelled else {"@id": _id(node)}
        queue.append(node)
        return nodes[node]

    def value(term: ox.NamedNode | ox.BlankNode | ox.Literal) -> dict[str, Any]:
        return _literal(term) if isinstance(term, ox.Literal) else place(term, nested=True)

    def drain(start: int) -> int:
        """Fill the nodes queued from ``start`` on, breadth first: each node is nested
        where it is nearest the claim."""
        while start < len(queue):
            subject = queue[start]
            obj = nodes[subject]
            for t in out[subject]:
                if t.predicate.value == RDF_TYPE and isinstance(t.object, ox.NamedNode):
                    obj.setdefault("@type", []).append(t.object.value)
                else:
                    # the registry's data holds no RDF 1.2 triple terms
                    term = cast(ox.NamedNode | ox.BlankNode | ox.Literal, t.object)
                    named = t.predicate.value in _NAMED_ONLY and isinstance(term, ox.NamedNode)
                    obj.setdefault(t.predicate.value, []).append(
                        {"@id": term.value} if named else value(term)
                    )
            incoming = sorted(
                into.get(subject, []),
                key=lambda t: (
                    t.predicate.value not in preferred,
                    t.predicate.value,
                    str(t.subject),
                ),
            )
            for t in incoming:
                if t.subject in nodes:
                    continue
                # pyoxigraph's stub lets a subject be a Triple; pyoxigraph 0.5 never makes one
                source: ox.NamedNode | ox.BlankNode = t.subject  # type: ignore[assignment]
                if t.predicate.value not in preferred and any(
                    u.subject in nodes for u in into.get(source, [])
                ):
                    continue  # a placed node links to it: nested there (a run's verdict)
                obj.setdefault("@reverse", {}).setdefault(t.predicate.value, []).append(
                    place(source, nested=False)
                )
            start += 1
        return start

    tree = place(ox.NamedNode(record_iri), nested=False)
    done = drain(0)
    included = []
    for subject in sorted(out, key=str):
        if subject not in nodes:
            included.append(place(subject, nested=False))
            done = drain(done)
    if included:
        tree["@included"] = included
    return jsonld.compact(tree, {"@context": context()})


def _id(node: ox.NamedNode | ox.BlankNode) -> str:
    return node.value if isinstance(node, ox.NamedNode) else f"_:{node.value}"


def _literal(lit: ox.Literal) -> dict[str, str]:
    if lit.language:
        return {"@value": lit.value, "@language": lit.language}
    if lit.datatype.value in (XSD_STRING, RDF_LANG_STRING):
        return {"@value": lit.value}
    return {"@value": lit.value, "@type": lit.datatype.value}
