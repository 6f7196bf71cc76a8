"""The RDF namespaces claimgraph uses, reused vocabularies first."""

from rdflib import Namespace
from rdflib.namespace import DCAT, DCTERMS, OWL, PROV, RDF, RDFS, SKOS, XSD

#: The project's own terms (classes and properties), defined in ontology/claimgraph.ttl.
KG = Namespace("https://w3id.org/claimgraph/ns#")
#: The project's SKOS concepts (review methods, statuses, ...), in ontology/vocabularies.ttl.
KGV = Namespace("https://w3id.org/claimgraph/vocab#")

SCHEMA = Namespace("https://schema.org/")
SPDX = Namespace("http://spdx.org/rdf/terms#")
QUDT = Namespace("http://qudt.org/schema/qudt/")
UNIT = Namespace("http://qudt.org/vocab/unit/")
OA = Namespace("http://www.w3.org/ns/oa#")
CITO = Namespace("http://purl.org/spar/cito/")
FABIO = Namespace("http://purl.org/spar/fabio/")
SH = Namespace("http://www.w3.org/ns/shacl#")

#: Prefixes bound when graphs are serialized for people.
PREFIXES: dict[str, Namespace] = {
    "kg": KG,
    "kgv": KGV,
    "prov": Namespace(str(PROV)),
    "dcterms": Namespace(str(DCTERMS)),
    "dcat": Namespace(str(DCAT)),
    "schema": SCHEMA,
    "spdx": SPDX,
    "qudt": QUDT,
    "unit": UNIT,
    "oa": OA,
    "cito": CITO,
    "fabio": FABIO,
    "skos": Namespace(str(SKOS)),
    "rdfs": Namespace(str(RDFS)),
    "owl": Namespace(str(OWL)),
    "xsd": Namespace(str(XSD)),
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
