"""The RDF namespaces claimgraph uses, reused vocabularies first.

Code names every term it writes or reads as an attribute (``KG.reportedValue``,
``DCTERMS.title``), never as a string built by hand. The project's own namespaces are
closed: their terms are those ``ontology/`` declares, so a misspelt term raises at once
instead of reading as an empty value.
"""

from __future__ import annotations

from collections.abc import Callable

from rdflib import URIRef
from rdflib.namespace import DCAT as _DCAT
from rdflib.namespace import DCTERMS as _DCTERMS
from rdflib.namespace import OWL as _OWL
from rdflib.namespace import PROV as _PROV
from rdflib.namespace import RDF as _RDF
from rdflib.namespace import RDFS as _RDFS
from rdflib.namespace import SKOS as _SKOS
from rdflib.namespace import XSD as _XSD


class TermNamespace:
    """A namespace whose terms are made once: ``NS.name`` and ``NS["name"]`` give the same
    URIRef object every time (rdflib's namespaces build a new one on each access, which
    showed in the mapping's profile)."""

    def __init__(self, iri: str):
        self._iri = iri

    def __getattr__(self, name: str) -> URIRef:
        if name.startswith("__"):
            raise AttributeError(name)
        term = URIRef(self._iri + name)
        setattr(self, name, term)  # next time, a plain attribute
        return term

    def __getitem__(self, name: str) -> URIRef:
        if not name.isidentifier() or name.startswith("_"):  # not an attribute: made each time
            return URIRef(self._iri + name)
        term = self.__dict__.get(name)  # made before
        return term if isinstance(term, URIRef) else self.__getattr__(name)

    def __str__(self) -> str:
        return self._iri

    def __repr__(self) -> str:
        return f"TermNamespace({self._iri!r})"


class ClosedNamespace(TermNamespace):
    """TermNamespace whose names are exactly those ``declared`` gives: any other name raises
    AttributeError (``NS.name``) or KeyError (``NS["name"]``). The names are asked for the
    first time a term is made, not at import, so that importing costs nothing."""

    def __init__(self, iri: str, declared: Callable[[str], frozenset[str]]):
        super().__init__(iri)
        self._declared = declared
        self._names: frozenset[str] | None = None

    def _known(self, name: str) -> bool:
        if self._names is None:
            self._names = self._declared(self._iri)
        return name in self._names

    def __getattr__(self, name: str) -> URIRef:
        if name.startswith("_"):
            raise AttributeError(name)
        if not self._known(name):
            raise AttributeError(f"{self._iri}{name} is not a term ontology/ declares")
        return super().__getattr__(name)

    def __getitem__(self, name: str) -> URIRef:
        if not self._known(name):
            raise KeyError(f"{self._iri}{name} is not a term ontology/ declares")
        return super().__getitem__(name)

    def __contains__(self, name: str) -> bool:
        return self._known(name)

    def __repr__(self) -> str:
        return f"ClosedNamespace({self._iri!r})"


def _declared_in_ontology(iri: str) -> frozenset[str]:
    from .vocabulary import declared_names  # the ontology's reader imports this module

    return declared_names(iri)


DCAT = TermNamespace(str(_DCAT))
DCTERMS = TermNamespace(str(_DCTERMS))
OWL = TermNamespace(str(_OWL))
PROV = TermNamespace(str(_PROV))
RDF = TermNamespace(str(_RDF))
RDFS = TermNamespace(str(_RDFS))
SKOS = TermNamespace(str(_SKOS))
XSD = TermNamespace(str(_XSD))
#: xsd:string's IRI as plain text, as pyoxigraph gives a literal's datatype (``.value``):
#: a URIRef never equals a str, so comparisons with pyoxigraph terms need this form.
XSD_STRING = str(XSD.string)

#: The project's own terms (classes and properties), declared in ontology/claimgraph.ttl.
KG = ClosedNamespace("https://w3id.org/claimgraph/ns#", _declared_in_ontology)
#: The project's SKOS concepts (review methods, statuses, ...), in ontology/vocabularies.ttl.
KGV = ClosedNamespace("https://w3id.org/claimgraph/vocab#", _declared_in_ontology)

SCHEMA = TermNamespace("https://schema.org/")
SPDX = TermNamespace("http://spdx.org/rdf/terms#")
QUDT = TermNamespace("http://qudt.org/schema/qudt/")
UNIT = TermNamespace("http://qudt.org/vocab/unit/")
OA = TermNamespace("http://www.w3.org/ns/oa#")
CITO = TermNamespace("http://purl.org/spar/cito/")
FABIO = TermNamespace("http://purl.org/spar/fabio/")
SH = TermNamespace("http://www.w3.org/ns/shacl#")
#: VoID, the vocabulary of interlinked datasets (/.well-known/void), and FOAF, which it uses.
VOID = TermNamespace("http://rdfs.org/ns/void#")
FOAF = TermNamespace("http://xmlns.com/foaf/0.1/")

#: Prefixes bound when graphs are serialized for people.
PREFIXES: dict[str, str] = {
    name: str(ns)
    for name, ns in {
        "kg": KG,
        "kgv": KGV,
        "prov": PROV,
        "dcterms": DCTERMS,
        "dcat": DCAT,
        "schema": SCHEMA,
        "spdx": SPDX,
        "qudt": QUDT,
        "unit": UNIT,
        "oa": OA,
        "cito": CITO,
        "fabio": FABIO,
        "skos": SKOS,
        "rdfs": RDFS,
        "owl": OWL,
        "xsd": XSD,
        "void": VOID,
        "foaf": FOAF,
    }.items()
}

__all__ = [
    "CITO",
    "DCAT",
    "DCTERMS",
    "FABIO",
    "FOAF",
    "KG",
    "KGV",
    "OA",
    "OWL",
    "PREFIXES",
    "PROV",
    "QUDT",
    "RDF",
    "RDFS",
    "SCHEMA",
    "SH",
    "SKOS",
    "SPDX",
    "UNIT",
    "VOID",
    "XSD",
    "XSD_STRING",
    "ClosedNamespace",
    "TermNamespace",
]
