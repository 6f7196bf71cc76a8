"""The RDF namespaces claimgraph uses, reused vocabularies first."""

from rdflib import URIRef
from rdflib.namespace import DCAT as _DCAT
from rdflib.namespace import DCTERMS as _DCTERMS
from rdflib.namespace import OWL as _OWL
from rdflib.namespace import PROV as _PROV
from rdflib.namespace import RDF as _RDF
from rdflib.namespace import RDFS as _RDFS
from rdflib.namespace import SKOS as _SKOS
from rdflib.namespace import XSD as _XSD


class Terms:
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
        return self.__getattr__(name) if name.isidentifier() else URIRef(self._iri + name)

    def __str__(self) -> str:
        return self._iri

    def __repr__(self) -> str:
        return f"Terms({self._iri!r})"


DCAT = Terms(str(_DCAT))
DCTERMS = Terms(str(_DCTERMS))
OWL = Terms(str(_OWL))
PROV = Terms(str(_PROV))
RDF = Terms(str(_RDF))
RDFS = Terms(str(_RDFS))
SKOS = Terms(str(_SKOS))
XSD = Terms(str(_XSD))

#: The project's own terms (classes and properties), defined in ontology/claimgraph.ttl.
KG = Terms("https://w3id.org/claimgraph/ns#")
#: The project's SKOS concepts (review methods, statuses, ...), in ontology/vocabularies.ttl.
KGV = Terms("https://w3id.org/claimgraph/vocab#")

SCHEMA = Terms("https://schema.org/")
SPDX = Terms("http://spdx.org/rdf/terms#")
QUDT = Terms("http://qudt.org/schema/qudt/")
UNIT = Terms("http://qudt.org/vocab/unit/")
OA = Terms("http://www.w3.org/ns/oa#")
CITO = Terms("http://purl.org/spar/cito/")
FABIO = Terms("http://purl.org/spar/fabio/")
SH = Terms("http://www.w3.org/ns/shacl#")

#: Prefixes bound when graphs are serialized for people.
PREFIXES: dict[str, str] = {
    name: str(ns) for name, ns in {
        "kg": KG, "kgv": KGV, "prov": PROV, "dcterms": DCTERMS, "dcat": DCAT, "schema": SCHEMA,
        "spdx": SPDX, "qudt": QUDT, "unit": UNIT, "oa": OA, "cito": CITO, "fabio": FABIO,
        "skos": SKOS, "rdfs": RDFS, "owl": OWL, "xsd": XSD,
    }.items()
}

__all__ = [
    "CITO",
    "DCAT",
    "DCTERMS",
    "FABIO",
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
    "XSD",
]
