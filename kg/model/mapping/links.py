"""Links out: statements whose object is another site's IRI, each made by a rule over what a
data file says (docs/links.md gives the rules and why each predicate).

- ``owl:sameAs`` only for identity: a DOI names the paper itself, an ORCID iD the person.
- ``foaf:page`` for a page about the thing: an arXiv abstract page or an OpenReview forum of
  a paper, a model's Hugging Face repository, a benchmark's data set page.
- ``schema:url`` (mapped where the key is read) for a thing's own address: a leaderboard's page.

An identifier that is not of its form is written as a plain literal, which the shapes refuse
with the field named; nothing is linked from a guess.
"""

from __future__ import annotations

import re

from rdflib import Literal, URIRef

from ...rdf.namespaces import FOAF, KG, OWL, RDFS
from .context import Node

#: Where each kind of identifier resolves.
DOI = "https://doi.org/"
ARXIV = "https://arxiv.org/abs/"
OPENREVIEW = "https://openreview.net/forum?id="
ORCID = "https://orcid.org/"
HUGGING_FACE = "https://huggingface.co/"
HUGGING_FACE_DATASETS = "https://huggingface.co/datasets/"

#: The forms each identifier must have to be linked (the shapes hold the same patterns).
_FORMS = {
    "doi": re.compile(r"10\.[0-9]{4,9}/[^\s]+"),
    # new-style (2101.00001, with a version or not) and old-style (hep-th/9901001) ids
    "arxiv": re.compile(r"([0-9]{4}\.[0-9]{4,5}|[a-z-]+(\.[A-Z]{2})?/[0-9]{7})(v[0-9]+)?"),
    "openreview": re.compile(r"[A-Za-z0-9_-]{6,20}"),
    "orcid": re.compile(r"[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]"),
    # a Hugging Face repository id: owner/name, each of letters, digits, - _ . and neither
    # starting nor ending with - or . (the snapshot has names starting with _:
    # LeroyDyer/_Spydaz_...; RewardBench's truncated ids end with ...)
    "hf": re.compile(
        r"(?:[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?)/"
        r"(?:[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?)"
    ),
}


def link(kind: str, ident: str, prefix: str) -> URIRef | None:
    """The IRI ``prefix + ident`` when ``ident`` has the form of a ``kind`` identifier."""
    form = _FORMS[kind]
    return URIRef(prefix + ident) if form.fullmatch(ident) else None


def _linked(node: Node, key: str, kind: str, predicate: URIRef, prefix: str) -> None:
    raw = node.scalar(key, predicate)
    if raw is not None:
        iri = link(kind, raw, prefix)
        node.emit(key, predicate, iri if iri is not None else Literal(raw), raw)


def source_links(node: Node) -> None:
    """A source's DOI (the paper itself: ``owl:sameAs``; ``doi`` also stays ``kg:doi``,
    mapped with the source's other keys), its arXiv and OpenReview pages (``foaf:page``),
    the registry whose ids it names models by (``model_registry``)."""
    doi = node.data.get("doi")
    if isinstance(doi, str) and (iri := link("doi", doi, DOI)) is not None:
        node.ctx.add(node.subject, OWL.sameAs, iri)
    _linked(node, "arxiv", "arxiv", FOAF.page, ARXIV)
    _linked(node, "openreview", "openreview", FOAF.page, OPENREVIEW)
    # A curator's statement that the source names models by their Hugging Face repository
    # id: what kg import links a model by (kg/imports/shared_facts.py).
    registry = node.scalar("model_registry", KG.modelRegistry)
    if registry is not None:
        known = URIRef(HUGGING_FACE) if registry == "huggingface" else Literal(registry)
        node.emit("model_registry", KG.modelRegistry, known, registry)


def author_links(node: Node) -> None:
    """An author as a named agent: a person (FOAF's and PROV's reading too), labelled with
    the names the source gives, the same as its ORCID iD where the file gives one."""
    node.type(FOAF.Person)
    names = [node.data.get(k) for k in ("given", "family")]
    label = " ".join(n.strip() for n in names if isinstance(n, str) and n.strip())
    if label:
        node.ctx.add(node.subject, RDFS.label, Literal(label))
    _linked(node, "orcid", "orcid", OWL.sameAs, ORCID)


def typed_page(node: Node, key: str, kind: str, prefix: str) -> None:
    """``key``'s identifier as a ``foaf:page`` under ``prefix`` (a model's Hugging Face
    repository, a data set's page)."""
    _linked(node, key, kind, FOAF.page, prefix)


__all__ = [
    "ARXIV",
    "DOI",
    "HUGGING_FACE",
    "HUGGING_FACE_DATASETS",
    "OPENREVIEW",
    "ORCID",
    "author_links",
    "link",
    "source_links",
    "typed_page",
]
