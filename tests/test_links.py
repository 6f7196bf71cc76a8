"""Links out and PROV a generic reader understands (docs/links.md): each link from a rule
over what the data says; the claim's generation, attribution and time as the W3C ``prov``
library reads them from the RDF a record's URL serves."""

from __future__ import annotations

import warnings
from decimal import Decimal

import prov.model as pm
import pytest
from flask.testing import FlaskClient
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import FOAF, OWL, RDF, RDFS

from helpers import BASE, DATA, SEED_ID
from kg.model.mapping.links import HUGGING_FACE, link

SCHEMA_URL = URIRef("https://schema.org/url")
SCHEMA_FAMILY = URIRef("https://schema.org/familyName")
SEED_SOURCE = f"{BASE}source/saadat-fellay-2026-genomic-lm-efficiency"
#: A record of the bundled import (HELM Lite, GPT-4o, GSM8K): docs/imports.md names it.
IMPORTED_ID = "eee-helm-lite-openai-gpt-4o-2024-08-06-29a3345a-gsm8k"


def turtle(client: FlaskClient, path: str) -> Graph:
    answer = client.get(path, headers={"Accept": "text/turtle"})
    assert answer.status_code == 200, path
    return Graph().parse(data=answer.get_data(as_text=True), format="turtle")


def test_the_seed_paper_links_to_its_openreview_forum(client: FlaskClient) -> None:
    graph = turtle(client, "/source/saadat-fellay-2026-genomic-lm-efficiency")
    assert (
        URIRef(SEED_SOURCE),
        FOAF.page,
        URIRef("https://openreview.net/forum?id=NUleWh1GFx"),
    ) in graph
    # no DOI is known for it: no identity is claimed
    assert not list(graph.objects(URIRef(SEED_SOURCE), OWL.sameAs))


def test_authors_are_named_people_not_blank_nodes(client: FlaskClient) -> None:
    graph = turtle(client, "/source/saadat-fellay-2026-genomic-lm-efficiency")
    authors = list(graph.objects(URIRef(SEED_SOURCE), URIRef("http://purl.org/dc/terms/creator")))
    assert sorted(str(a) for a in authors) == [f"{SEED_SOURCE}#author-1", f"{SEED_SOURCE}#author-2"]
    first = URIRef(f"{SEED_SOURCE}#author-1")
    assert (first, RDF.type, FOAF.Person) in graph
    assert graph.value(first, SCHEMA_FAMILY) == Literal("Saadat")
    assert graph.value(first, RDFS.label) == Literal("Saadat")  # no given name is invented


@pytest.mark.parametrize(
    ("source", "page"),
    [
        ("crfm-helm-lite", "https://crfm.stanford.edu/helm/lite/latest/"),
        (
            "allen-institute-for-ai-rewardbench",
            "https://huggingface.co/spaces/allenai/reward-bench",
        ),
        (
            "hugging-face-hf-open-llm-v2",
            "https://huggingface.co/spaces/open-llm-leaderboard/open_llm_leaderboard",
        ),
    ],
)
def test_leaderboards_link_to_their_public_pages(
    client: FlaskClient, source: str, page: str
) -> None:
    graph = turtle(client, f"/source/{source}")
    assert graph.value(URIRef(f"{BASE}source/{source}"), SCHEMA_URL) == URIRef(page)


def prov_document(graph: Graph) -> pm.ProvDocument:
    """What the ``prov`` library reads of ``graph`` through its RDF serializer (it warns of
    every non-PROV class it keeps as an attribute: not what is tested here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return pm.ProvDocument.deserialize(
            content=graph.serialize(format="turtle"), format="rdf", rdf_format="turtle"
        )


def records_of(doc: pm.ProvDocument, kind: type, entity: str) -> list[pm.ProvRecord]:
    return [
        r
        for r in doc.get_records(kind)
        if str(r.get_attribute(pm.PROV_ATTR_ENTITY).pop().uri) == entity
    ]


def test_prov_finds_the_seed_claims_generation_attribution_and_time(client: FlaskClient) -> None:
    claim = f"{BASE}record/{SEED_ID}"
    doc = prov_document(turtle(client, f"/record/{SEED_ID}"))
    [generation] = records_of(doc, pm.ProvGeneration, claim)
    activity = generation.get_attribute(pm.PROV_ATTR_ACTIVITY).pop()
    assert str(activity.uri) == f"{BASE}activity/{SEED_ID}-review-1"
    [attribution] = records_of(doc, pm.ProvAttribution, claim)
    assert str(attribution.get_attribute(pm.PROV_ATTR_AGENT).pop().uri) == f"{BASE}agent/claude"
    [entity] = [e for e in doc.get_records(pm.ProvEntity) if str(e.identifier.uri) == claim]
    [at] = entity.get_attribute("prov:generatedAtTime")
    assert at.isoformat() == "2026-10-15T22:00:00+00:00"


def test_prov_finds_the_runs_that_used_the_claim_they_measured(client: FlaskClient) -> None:
    claim = f"{BASE}record/{SEED_ID}"
    doc = prov_document(turtle(client, f"/record/{SEED_ID}"))
    users = {
        str(u.get_attribute(pm.PROV_ATTR_ACTIVITY).pop().uri)
        for u in records_of(doc, pm.ProvUsage, claim)
    }
    runs = {f"{BASE}activity/{p.stem}" for p in (DATA / "runs").glob("*.yaml")}
    seed_runs = {
        r for r in runs if SEED_ID in (DATA / "runs" / f"{r.rsplit('/', 1)[1]}.yaml").read_text()
    }
    assert seed_runs and seed_runs <= users


def test_prov_finds_the_import_that_generated_an_imported_record(client: FlaskClient) -> None:
    claim = f"{BASE}record/{IMPORTED_ID}"
    graph = turtle(client, f"/record/{IMPORTED_ID}")
    doc = prov_document(graph)
    [generation] = records_of(doc, pm.ProvGeneration, claim)
    activity = generation.get_attribute(pm.PROV_ATTR_ACTIVITY).pop()
    assert str(activity.uri) == f"{BASE}import/every-eval-ever"
    [attribution] = records_of(doc, pm.ProvAttribution, claim)
    importer = f"{BASE}agent/claimgraph-import-0.1.0"
    assert str(attribution.get_attribute(pm.PROV_ATTR_AGENT).pop().uri) == importer
    # the import's time (its end: no record of it has a time of its own) and agent, which
    # the record's closure serves with it
    [imported] = [a for a in doc.get_records(pm.ProvActivity) if a.identifier == activity]
    assert imported.get_endTime() is not None
    [association] = [
        a
        for a in doc.get_records(pm.ProvAssociation)
        if a.get_attribute(pm.PROV_ATTR_ACTIVITY).pop() == activity
    ]
    agent = association.get_attribute(pm.PROV_ATTR_AGENT).pop()
    assert str(agent.uri) == importer


HF_MODEL = f"{BASE}model/mistralai%2Fmistral-7b-instruct-v0.3"
API_MODEL = f"{BASE}model/openai%2Fgpt-4o-2024-08-06"
KG_NS = "https://w3id.org/claimgraph/ns#"


def test_a_model_of_the_open_llm_leaderboard_links_to_its_hugging_face_repository(
    client: FlaskClient,
) -> None:
    """The leaderboard's source file says it names models by repository id: the model
    links to the repository as that leaderboard's file writes the id; it has a label, its
    developer and its parameter count, as data."""
    graph = turtle(client, "/model/mistralai%2Fmistral-7b-instruct-v0.3")
    model = URIRef(HF_MODEL)
    assert list(graph.objects(model, FOAF.page)) == [
        URIRef("https://huggingface.co/mistralai/Mistral-7B-Instruct-v0.3")
    ]
    assert graph.value(model, RDFS.label) == Literal("Mistral Instruct v0.3 7B")
    assert graph.value(model, URIRef(KG_NS + "modelDeveloper")) == Literal("mistralai")
    params = graph.value(model, URIRef(KG_NS + "parametersBillions"))
    assert params is not None and params.toPython() == Decimal("7.248")


def test_a_model_only_api_sources_name_has_no_repository_link(client: FlaskClient) -> None:
    """openai/gpt-4o-2024-08-06 looks like owner/name, but no source that names models by
    Hugging Face repository evaluates it: no link, a label all the same."""
    graph = turtle(client, "/model/openai%2Fgpt-4o-2024-08-06")
    assert not list(graph.objects(URIRef(API_MODEL), FOAF.page))
    assert graph.value(URIRef(API_MODEL), RDFS.label) == Literal("GPT-4o 2024-08-06")


def test_a_benchmark_links_to_its_data_set_page(client: FlaskClient) -> None:
    graph = turtle(client, "/benchmark/ifeval-ccb018")
    assert list(graph.objects(URIRef(f"{BASE}benchmark/ifeval-ccb018"), FOAF.page)) == [
        URIRef("https://huggingface.co/datasets/google/IFEval")
    ]


def test_the_models_are_stated_once_in_the_imports_models_graph(
    client: FlaskClient,
) -> None:
    """The model's label is in one graph, the import's, whichever file names the model."""
    query = f"SELECT ?g WHERE {{ GRAPH ?g {{ <{HF_MODEL}> <{RDFS.label}> ?label }} }}"
    answer = client.get(
        "/sparql",
        query_string={"query": query},
        headers={"Accept": "application/sparql-results+json"},
    )
    rows = answer.get_json()["results"]["bindings"]
    assert [r["g"]["value"] for r in rows] == [f"{BASE}import/every-eval-ever#models"]


VOID_NS = "http://rdfs.org/ns/void#"
LINK_PREDICATES = [FOAF.page, OWL.sameAs, SCHEMA_URL, URIRef(KG_NS + "modelRegistry")]


@pytest.mark.parametrize("predicate", LINK_PREDICATES)
def test_voids_linksets_count_the_links_out(client: FlaskClient, predicate: URIRef) -> None:
    """VoID's linksets of each link predicate, by site, are what a count over the data
    graphs gives (statements whose object is another site's IRI), an import's lists of
    models and benchmarks included."""
    void = turtle(client, "/.well-known/void")
    said: dict[str, int] = {}
    for linkset in void.subjects(URIRef(VOID_NS + "linkPredicate"), predicate):
        target = void.value(linkset, URIRef(VOID_NS + "objectsTarget"))
        site = str(void.value(target, FOAF.homepage))
        said[site] = said.get(site, 0) + int(void.value(linkset, URIRef(VOID_NS + "triples")))
    query = f"""SELECT ?site (COUNT(*) AS ?n) WHERE {{
      GRAPH ?g {{ ?s <{predicate}> ?o }} FILTER(STRSTARTS(STR(?g), "{BASE}"))
      FILTER(isIRI(?o) && !STRSTARTS(STR(?o), "{BASE}"))
      BIND(REPLACE(STR(?o), "^([a-z]+://[^/?#]*).*$", "$1") AS ?site)
    }} GROUP BY ?site"""
    answer = client.get(
        "/sparql",
        query_string={"query": query},
        headers={"Accept": "application/sparql-results+json"},
    )
    rows = answer.get_json()["results"]["bindings"]
    counted = {r["site"]["value"]: int(r["n"]["value"]) for r in rows}
    assert said == counted
    if predicate == FOAF.page:  # the models' and data sets' pages are among them
        assert counted["https://huggingface.co"] >= 2
    if predicate != OWL.sameAs:  # the bundled data know no DOI or ORCID iD
        assert counted


@pytest.mark.parametrize(
    ("ident", "linked"),
    [
        ("mistralai/Mistral-7B-Instruct-v0.3", True),
        ("LeroyDyer/_Spydaz_Web_AI_12", True),  # a name of the snapshot that starts with _
        ("ai2/tulu-2-7b-rm-v0-nectar-binarized-3.8m-check...", False),  # truncated
        ("gpt-4o", False),
        ("org/name with spaces", False),
        ("-org/name", False),
    ],
)
def test_only_an_id_of_a_repositorys_form_is_linked(ident: str, linked: bool) -> None:
    assert (link("hf", ident, HUGGING_FACE) is not None) is linked
