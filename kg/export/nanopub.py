"""A record as a nanopublication (docs/nanopublications.md): made on demand from the
record's closure, never loaded into the store, trusty, and signed where a key is set.

- **assertion**: the claim: the record's own statements and those of the nodes it alone
  reaches (its value, locator, evidence rows, configuration: its fragment IRIs and blank
  nodes, the blank nodes skolemised under the nanopublication by their canonical labels);
- **provenance**: where the assertion comes from: the source it was quoted from, the
  record's generation and attribution, each review of the record its own graph states,
  with its association and the pinned file (with its SHA-256) the review used;
- **publication info**: only what the record's content gives: the record's own time, its
  licence, the record it introduces, who signs it (where a key is set).

Nothing in it depends on when or where it is made (no export time, no release id), nor on
what was said of the record later (its standing, later reviews, runs): the same record
content (and key) gives the same trusty URI on every machine and in every release.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pyoxigraph as ox
from cryptography.hazmat.primitives.asymmetric import rsa

from ..errors import NotFoundError
from ..model.fields import FIELDS
from ..model.licences import record_licence
from ..rdf.facts import Facts
from ..rdf.namespaces import DCTERMS, KG, PROV
from ..rdf.nanopub import NANOPUBLICATION, NP, PARTS, RDF_TYPE
from ..rdf.nanopub_make import TEMPORARY, load_private_key, make_trusty
from ..rdf.nanopub_signature import NPX
from ..registry import Registry
from ..store.base import solutions
from ..store.queries import internal_query
from ..store.records import citable

# the record's fields as kg/model/fields.py declares them
QUOTED, GENERATED_AT = str(FIELDS["source"].predicate), str(PROV.generatedAtTime)
#: The record's own statements that say where it comes from: the provenance graph's.
PROVENANCE = {str(PROV.wasGeneratedBy), str(PROV.wasAttributedTo), GENERATED_AT, QUOTED}
REVIEW_OF = str(FIELDS["reviewOf"].predicate)
CLAIM = ox.NamedNode(str(KG.Claim))
#: How a review names the pinned file it checked.
USED = (str(FIELDS["usedArtifact"].predicate), str(PROV.used))


def record_nanopub(
    registry: Registry, ident: str, closure: list[ox.Quad] | None = None
) -> tuple[str, list[ox.Quad]]:
    """(its trusty IRI, its quads): record ``ident`` as a nanopublication, signed with the
    key ``KG_NANOPUB_KEY`` names (by ``KG_NANOPUB_SIGNER``) where it names one; ``closure``
    is the record's closure where the caller read it already.

    :raises NotFoundError: for an id no record has.
    """
    if closure is None:
        kind, closure = citable(registry.store, registry.base, ident)
        if kind != "record":
            raise NotFoundError(f"no record with id {ident!r} (a nanopublication is of a record)")
    settings = registry.settings
    key = None
    if settings.nanopub_key is not None:
        key = _key(settings.nanopub_key, settings.nanopub_key.stat().st_mtime_ns)
    pre = pre_nanopub(closure, registry.iri("record", ident), ident, settings.licence)
    signer = settings.nanopub_signer or None
    return make_trusty(pre, key, signer)


@lru_cache(maxsize=4)
def _key(path: Path, _changed: int) -> rsa.RSAPrivateKey:
    """The signing key in ``path``, read once while the file is unchanged (reading one
    checks the key: 50 ms, where a signature takes 1)."""
    return load_private_key(path.read_bytes())


def nanopub_trig(quads: list[ox.Quad]) -> bytes:
    """A nanopublication's quads as TriG, its graphs in the order a reader expects (head,
    assertion, provenance, publication info)."""
    order = {"Head": 0, "assertion": 1, "provenance": 2, "pubinfo": 3}
    ordered = sorted(quads, key=lambda q: order.get(str(q.graph_name).rsplit("/", 1)[-1][:-1], 4))
    prefixes = {"np": NP, "npx": NPX, "prov": str(PROV), "dct": str(DCTERMS), "kg": str(KG)}
    return ox.serialize(ordered, format=ox.RdfFormat.TRIG, prefixes=prefixes) or b""


def record_ids(registry: Registry) -> list[str]:
    """The id of every record, sorted (what ``kg export --all --format nanopub`` makes)."""
    prefix = registry.iri("record", "")
    found = solutions(registry.store.query(internal_query("claims").text))
    return sorted(
        unquote(row["record"].value.removeprefix(prefix))
        for row in found
        if row["record"].value.startswith(prefix)
    )


def pre_nanopub(
    closure: list[ox.Quad], record_iri: str, ident: str, operator: str
) -> list[ox.Quad]:
    """The record's nanopublication before it is made trusty (its IRIs under nanopub-java's
    temporary namespace, which becomes https://w3id.org/np/ with the artifact code)."""
    base = f"{TEMPORARY}claimgraph/{ident}/"
    np, record = ox.NamedNode(base), ox.NamedNode(record_iri)
    head, assertion = ox.NamedNode(base + "Head"), ox.NamedNode(base + "assertion")
    provenance, pubinfo = ox.NamedNode(base + "provenance"), ox.NamedNode(base + "pubinfo")
    # what it uses of its closure, skolemised alone: its runs and the rest of the closure
    # change nothing of it
    # the record's content: the graph(s) stating it is a claim (its own, or its file's),
    # not what its standing, later reviews or runs add, which leave its nanopublication as
    # published (a retraction is a nanopublication of its own)
    home = {
        q.graph_name
        for q in closure
        if q.subject == record and q.predicate.value == RDF_TYPE and q.object == CLAIM
    }
    every = {q.triple for q in closure if q.graph_name in home}
    # the pinned file a review used is described in its source's graph
    described = {q.triple for q in closure}
    reviews = {t.subject for t in every if t.predicate.value == REVIEW_OF and t.object == record}
    picked = {*_reached(every, {record}, (record_iri + "#",)), *_reached(every, reviews, ())}
    used = {t.object for t in picked if t.predicate.value in USED and t.object != record}
    picked |= {t for t in described if t.subject in used}
    triples = _skolemised(picked, base)
    inner = (record_iri + "#", base + "_")  # its fragments, and its blank nodes skolemised
    own = _reached(triples, {record}, inner)
    reviewed = _reached(triples, reviews, (base + "_",))

    def quad(s: Any, p: str, o: Any, g: ox.NamedNode) -> ox.Quad:
        return ox.Quad(s, ox.NamedNode(p), o, g)

    out = [
        quad(np, RDF_TYPE, ox.NamedNode(NANOPUBLICATION), head),
        quad(np, PARTS["assertion"], assertion, head),
        quad(np, PARTS["provenance"], provenance, head),
        quad(np, PARTS["pubinfo"], pubinfo, head),
    ]
    for t in own:
        in_provenance = t.subject == record and t.predicate.value in PROVENANCE
        out.append(_in(t, provenance if in_provenance else assertion))
    sources = [t.object for t in own if t.subject == record and t.predicate.value == QUOTED]
    for source in sources:
        out.append(quad(assertion, str(PROV.hadPrimarySource), source, provenance))
    if not sources:
        out.append(quad(assertion, str(PROV.wasDerivedFrom), record, provenance))
    out += [_in(t, provenance) for t in reviewed]
    out += [_in(t, provenance) for t in sorted(triples, key=str) if t.subject in used]
    times = [t.object for t in own if t.subject == record and t.predicate.value == GENERATED_AT]
    out += [quad(np, str(DCTERMS.created), time, pubinfo) for time in times[:1]]
    licence = record_licence(Facts(closure), record, operator)
    if licence.iri:
        out.append(quad(np, str(DCTERMS.license), ox.NamedNode(licence.iri), pubinfo))
    out.append(quad(np, NPX + "introduces", record, pubinfo))
    out.append(quad(np, NPX + "hasNanopubType", CLAIM, pubinfo))
    return out


def _in(triple: ox.Triple, graph: ox.NamedNode) -> ox.Quad:
    return ox.Quad(triple.subject, triple.predicate, triple.object, graph)


def _reached(triples: set[ox.Triple], start: set[Any], inner: tuple[str, ...]) -> list[ox.Triple]:
    """The statements about ``start`` and about every node they lead to that is a blank
    node or whose IRI begins with one of ``inner`` (the record's fragments, the skolemised
    blank nodes)."""
    seen: set[object] = set(start)
    todo: list[object] = list(start)
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


def _skolemised(triples: set[ox.Triple], base: str) -> set[ox.Triple]:
    """The triples with each blank node an IRI under ``base`` named by its canonical label
    (RDFC-1.0), so that the same content gives the same names."""
    dataset = ox.Dataset(ox.Quad(t.subject, t.predicate, t.object) for t in triples)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)

    def named(term: Any) -> Any:
        if isinstance(term, ox.BlankNode):
            return ox.NamedNode(f"{base}_{term.value}")
        return term

    return {ox.Triple(named(q.subject), q.predicate, named(q.object)) for q in dataset}
