"""The registry described in VoID at ``/.well-known/void`` (RFC 8615's well-known place
for it, as the VoID guide asks), in any RDF syntax by negotiation.

The counts are the stats query's (``queries/stats.rq``, what ``kg stats`` prints): the
data graphs' triples (as the load counted them, kg.store.figures) and each kind of node;
class partitions come from an internal query over the same data graphs, and linksets
(statements whose object is another site's IRI, by property and site) are the load's
count too (none shown for a store no load has counted them in). The figures are read
once per store version.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pyoxigraph as ox
from flask import Response, request

from ...export.dump import SERVED
from ...rdf.formats import FORMATS, RDF_SYNTAXES, by_media_type, media_types
from ...rdf.namespaces import DCTERMS, FOAF, KG, RDF, RDFS, VOID, XSD
from ...rdf.negotiation import negotiate
from ...rdf.output import write_graph
from ...rdf.vocabulary import ONTOLOGY
from ...read.timeline import loaded_at
from ...store import GraphStore
from ...store.base import solutions
from ...store.figures import Figures
from ...store.queries import canned_query, internal_query
from ..http.documents import VOCABULARY_PATH, as_document
from ..http.request_rules import params
from ..state import state

#: Turtle first: what a client that says nothing (``*/*``) gets.
OFFERED = media_types("ttl", *(name for name in RDF_SYNTAXES if name != "ttl"))
PATH = "/.well-known/void"
#: What the stats query counts, and the class each count is VoID's entities of.
COUNTED = {
    "records": "https://w3id.org/claimgraph/ns#Claim",
    "sources": "https://w3id.org/claimgraph/ns#SourceDocument",
    "agents": "http://www.w3.org/ns/prov#Agent",
    "evaluations": "https://w3id.org/claimgraph/ns#Evaluation",
    "reviews": "https://w3id.org/claimgraph/ns#Review",
    "runs": "https://w3id.org/claimgraph/ns#ReproductionRun",
}


def description(suffix: str | None = None) -> Response:
    media_type = negotiate(request.headers.get("Accept"), OFFERED, suffix or params().get("format"))
    app = state()
    figures = app.derived("void", lambda store: VoidFigures(store, app.settings.base))
    out = io.BytesIO()
    write_graph(list(_quads(figures)), by_media_type(media_type).name, out, app.settings.base)
    response = Response(out.getvalue(), mimetype=media_type)
    response.vary.add("Accept")
    response.headers["Access-Control-Allow-Origin"] = "*"
    return as_document(response, PATH.lstrip("/"), media_type)


class VoidFigures:
    """What the description counts, read from one store version."""

    def __init__(self, store: GraphStore, base: str):
        [row] = list(solutions(store.query(canned_query("stats").text)))
        # graphs and triples are unbound in a store no load has counted (kg.store.figures)
        self.stats = {
            name: int(row[name].value)
            for name in (
                "records",
                "sources",
                "agents",
                "evaluations",
                "reviews",
                "runs",
                "graphs",
                "triples",
            )
            if row[name] is not None
        }
        self.classes = {
            r["class"].value: int(r["entities"].value)
            for r in solutions(store.query(internal_query("void-classes").text))
            if isinstance(r["class"], ox.NamedNode)
        }
        counted = Figures.read(store, base)
        self.links = (counted.links or ()) if counted is not None else ()


def _quads(figures: VoidFigures) -> Iterator[ox.Quad]:
    app = state()
    settings = app.settings
    root = request.url_root
    page = ox.NamedNode(f"{root.rstrip('/')}{PATH}")
    dataset = ox.NamedNode(f"{settings.base}.well-known/void#claimgraph")

    def t(s, p, o) -> ox.Quad:
        return ox.Quad(s, ox.NamedNode(str(p)), o)

    def iri(text) -> ox.NamedNode:
        return ox.NamedNode(str(text))

    def number(n: int) -> ox.Literal:
        return ox.Literal(str(n), datatype=iri(XSD.integer))

    yield t(page, RDF.type, iri(VOID.DatasetDescription))
    yield t(page, DCTERMS.title, ox.Literal("A VoID description of the claimgraph registry"))
    yield t(page, FOAF.primaryTopic, dataset)
    yield t(dataset, RDF.type, iri(VOID.Dataset))
    yield t(dataset, DCTERMS.title, ox.Literal("claimgraph"))
    yield t(
        dataset,
        DCTERMS.description,
        ox.Literal(
            "Published research results as records: each claim with its source document and "
            "the place in it, the reviews that checked it, reproduction runs and its standing, "
            "as PROV-O."
        ),
    )
    yield t(dataset, FOAF.homepage, iri(root))
    yield t(dataset, VOID.uriSpace, ox.Literal(settings.base))
    yield t(dataset, VOID.sparqlEndpoint, iri(f"{root}sparql"))
    yield t(dataset, VOID.rootResource, iri(root))
    for name in SERVED:
        yield t(dataset, VOID.dataDump, iri(f"{root}dumps/{name}"))
    for fmt in FORMATS:
        if fmt.rdf is not None and fmt.iri:
            yield t(dataset, VOID.feature, iri(fmt.iri))
    if settings.licence:
        yield t(dataset, DCTERMS.license, iri(settings.licence))
    modified = loaded_at(app.version)
    if modified is not None:
        yield t(dataset, DCTERMS.modified, ox.Literal(modified, datatype=iri(XSD.dateTime)))
    stats = figures.stats
    if "triples" in stats:
        yield t(dataset, VOID.triples, number(stats["triples"]))
    yield t(dataset, VOID.entities, number(sum(stats[name] for name in COUNTED)))
    yield t(dataset, VOID.classes, number(len(figures.classes)))
    # the registry's own vocabulary, and where this server describes it (/ns)
    vocabularies = {str(KG)}
    yield t(iri(ONTOLOGY), RDFS.isDefinedBy, iri(f"{root}{VOCABULARY_PATH}"))
    for cls, entities in sorted(figures.classes.items()):
        partition = ox.BlankNode()
        yield t(dataset, VOID.classPartition, partition)
        yield t(partition, VOID["class"], iri(cls))
        yield t(partition, VOID.entities, number(entities))
        vocabularies.add(_namespace(cls))
    for vocabulary in sorted(vocabularies):
        yield t(dataset, VOID.vocabulary, iri(vocabulary))
    sites: dict[str, ox.BlankNode] = {}
    for prop, site, triples in figures.links:
        if site not in sites:
            sites[site] = target = ox.BlankNode()
            yield t(target, RDF.type, iri(VOID.Dataset))
            yield t(target, FOAF.homepage, iri(site))
        linkset = ox.BlankNode()
        yield t(dataset, VOID.subset, linkset)
        yield t(linkset, RDF.type, iri(VOID.Linkset))
        yield t(linkset, VOID.subjectsTarget, dataset)
        yield t(linkset, VOID.objectsTarget, sites[site])
        yield t(linkset, VOID.linkPredicate, iri(prop))
        yield t(linkset, VOID.triples, number(triples))


def _namespace(iri: str) -> str:
    """The namespace of a term: up to its last ``#`` or ``/``."""
    cut = max(iri.rfind("#"), iri.rfind("/"))
    return iri[: cut + 1]
