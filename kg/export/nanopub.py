"""A record as a nanopublication (docs/nanopublications.md): made on demand from the
record's closure, never loaded into the store, trusty, and signed where a key is set.

- **assertion**: the claim: the record's own statements and those of the nodes it alone
  reaches (its value, locator, evidence rows, configuration: its fragment IRIs and blank
  nodes, the blank nodes labelled canonically, then skolemised as nanopub-java does);
- **provenance**: where the assertion comes from: the source it was quoted from, the
  record's generation and attribution, each review of the record its own graph states,
  with its association and the pinned file (with its SHA-256) the review used;
- **publication info**: the record's own time, its licence, who publishes it, the record
  it introduces (and, made trusty, who signs it where a key is set).

Nothing in it depends on when or where it is made (no export time, no release id), nor on
what was said of the record later (its standing, later reviews, runs): the same record
content (and key and publisher) gives the same trusty URI on every machine and in every
release.
"""

from __future__ import annotations

from typing import Any

import pyoxigraph as ox

from ..model.fields import FIELDS
from ..model.licences import Licence, record_licence
from ..rdf.facts import Facts
from ..rdf.namespaces import DCTERMS, KG, PROV
from ..rdf.nanopub import NANOPUBLICATION, PARTS, RDF_TYPE
from ..rdf.nanopub_make import TEMPORARY
from ..rdf.nanopub_signature import NPX

# the record's fields as kg/model/fields.py declares them
QUOTED, GENERATED_AT = str(FIELDS["source"].predicate), str(PROV.generatedAtTime)
#: The record's own statements that say where it comes from: the provenance graph's.
PROVENANCE = {str(PROV.wasGeneratedBy), str(PROV.wasAttributedTo), GENERATED_AT, QUOTED}
REVIEW_OF = str(FIELDS["reviewOf"].predicate)
CLAIM = ox.NamedNode(str(KG.Claim))
LICENSE = str(DCTERMS.license)
#: How a review names the pinned file it checked.
USED = (str(FIELDS["usedArtifact"].predicate), str(PROV.used))


def pre_nanopub(
    closure: list[ox.Quad],
    record_iri: str,
    ident: str,
    operator: str,
    publisher: str | None = None,
) -> list[ox.Quad]:
    """The record's nanopublication before it is made trusty (its IRIs under nanopub-java's
    temporary namespace, which becomes https://w3id.org/np/ with the artifact code);
    ``operator`` is the operator's licence, ``publisher`` the IRI of who publishes it."""
    frame = record_frame(ident)
    np, record = frame.np, ox.NamedNode(record_iri)
    assertion, provenance, pubinfo = frame.assertion, frame.provenance, frame.pubinfo
    # the record's content: the graph(s) stating it is a claim (its own, or its file's),
    # not what its standing, later reviews or runs add, which leave its nanopublication as
    # published (a retraction is a nanopublication of its own)
    home = stating(closure, record_iri)
    every = {q.triple for q in closure if q.graph_name in home}
    # the pinned file a review used is described in its source's graph
    described = {q.triple for q in closure}
    reviews = {t.subject for t in every if t.predicate.value == REVIEW_OF and t.object == record}
    picked = {*reached(every, {record}, (record_iri + "#",)), *reached(every, reviews, ())}
    used = {t.object for t in picked if t.predicate.value in USED and t.object != record}
    picked |= {t for t in described if t.subject in used}
    triples = canonical(picked)
    own = reached(triples, {record}, (record_iri + "#",))  # its fragments, its blank nodes
    reviewed = reached(triples, reviews, ())

    out = frame.head()
    for t in own:
        in_provenance = t.subject == record and t.predicate.value in PROVENANCE
        out.append(in_graph(t, provenance if in_provenance else assertion))
    sources = [t.object for t in own if t.subject == record and t.predicate.value == QUOTED]
    for source in sources:
        out.append(quad(assertion, str(PROV.hadPrimarySource), source, provenance))
    if not sources:
        out.append(quad(assertion, str(PROV.wasDerivedFrom), record, provenance))
    out += [in_graph(t, provenance) for t in reviewed]
    out += [in_graph(t, provenance) for t in sorted(triples, key=str) if t.subject in used]
    times = [t.object for t in own if t.subject == record and t.predicate.value == GENERATED_AT]
    out += [quad(np, str(DCTERMS.created), time, pubinfo) for time in times[:1]]
    licence = licence_of(closure, record, operator)
    if licence.iri:
        out.append(quad(np, str(DCTERMS.license), ox.NamedNode(licence.iri), pubinfo))
    out += published_by(frame, publisher)
    out.append(quad(np, NPX + "introduces", record, pubinfo))
    out.append(quad(np, NPX + "hasNanopubType", CLAIM, pubinfo))
    return out


def published_by(frame: Frame, publisher: str | None) -> list[ox.Quad]:
    """Who publishes the nanopublication, in its publication info: ``dct:creator``, as the
    network's tools state it (nanopub-rs adds the same when it signs)."""
    if not publisher:
        return []
    return [quad(frame.np, str(DCTERMS.creator), ox.NamedNode(publisher), frame.pubinfo)]


def licence_of(closure: list[ox.Quad], node: Any, operator: str) -> Licence:
    """The licence of a record or an activity of the closure (kg.model.licences), read
    from what it needs alone: the node's statements and the licences stated."""
    needed = [q for q in closure if q.subject == node or q.predicate.value == LICENSE]
    return record_licence(Facts(needed), node, operator)


def stating(closure: list[ox.Quad], record_iri: str) -> set[Any]:
    """The graphs of the closure that state the record is a claim: its content (its own
    graph, or its kept file's), what a release's version of it is looked up by."""
    record = ox.NamedNode(record_iri)
    return {
        q.graph_name
        for q in closure
        if q.subject == record and q.predicate.value == RDF_TYPE and q.object == CLAIM
    }


def record_frame(ident: str) -> Frame:
    """The IRIs of record ``ident``'s pre-nanopublication."""
    return Frame(f"{TEMPORARY}claimgraph/{ident}/")


def quad(s: Any, p: str, o: Any, graph: ox.NamedNode) -> ox.Quad:
    return ox.Quad(s, ox.NamedNode(p), o, graph)


class Frame:
    """A pre-nanopublication's own IRIs, under ``base`` (in nanopub-java's temporary
    namespace: they take the artifact code when it is made trusty)."""

    def __init__(self, base: str):
        self.base = base
        self.np = ox.NamedNode(base)
        self.assertion = ox.NamedNode(base + "assertion")
        self.provenance = ox.NamedNode(base + "provenance")
        self.pubinfo = ox.NamedNode(base + "pubinfo")

    def head(self) -> list[ox.Quad]:
        """The head graph: what names the other three."""
        head = ox.NamedNode(self.base + "Head")
        return [
            quad(self.np, RDF_TYPE, ox.NamedNode(NANOPUBLICATION), head),
            quad(self.np, PARTS["assertion"], self.assertion, head),
            quad(self.np, PARTS["provenance"], self.provenance, head),
            quad(self.np, PARTS["pubinfo"], self.pubinfo, head),
        ]


def in_graph(triple: ox.Triple, graph: ox.NamedNode) -> ox.Quad:
    return ox.Quad(triple.subject, triple.predicate, triple.object, graph)


def reached(triples: set[ox.Triple], start: set[Any], inner: tuple[str, ...]) -> list[ox.Triple]:
    """The statements about ``start`` and about every node they lead to that is a blank
    node or whose IRI begins with one of ``inner`` (the record's fragments), in an order
    that the content alone gives (where blank nodes are labelled canonically)."""
    seen: set[object] = set(start)
    todo: list[object] = sorted(start, key=str, reverse=True)
    found: list[ox.Triple] = []
    by_subject: dict[object, list[ox.Triple]] = {}
    for t in triples:
        by_subject.setdefault(t.subject, []).append(t)
    while todo:
        for t in sorted(by_subject.get(todo.pop(), []), key=str):
            found.append(t)
            o = t.object
            deeper = isinstance(o, ox.BlankNode) or (
                isinstance(o, ox.NamedNode) and o.value.startswith(inner)
            )
            if deeper and o not in seen:
                seen.add(o)
                todo.append(o)
    return found


def canonical(triples: set[ox.Triple]) -> set[ox.Triple]:
    """The triples with each blank node labelled by its canonical label (RDFC-1.0), so
    that the same content gives the same labels, and the same order once sorted: the
    order make_trusty numbers them in (``<np>/_1``, ``<np>/_2``, ... as nanopub-java)."""
    dataset = ox.Dataset(ox.Quad(t.subject, t.predicate, t.object) for t in triples)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    return {q.triple for q in dataset}
