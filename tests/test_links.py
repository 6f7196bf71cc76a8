"""Links out and PROV a generic reader understands (docs/links.md): each link from a rule
over what the data says; the claim's generation, attribution and time as the W3C ``prov``
library reads them from the RDF a record's URL serves."""

from __future__ import annotations

import warnings

import prov.model as pm
import pytest
from flask.testing import FlaskClient
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import FOAF, OWL, RDF, RDFS

from helpers import BASE, SEED_ID

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


def test_prov_finds_the_import_that_generated_an_imported_record(client: FlaskClient) -> None:
    claim = f"{BASE}record/{IMPORTED_ID}"
    graph = turtle(client, f"/record/{IMPORTED_ID}")
    doc = prov_document(graph)
    [generation] = records_of(doc, pm.ProvGeneration, claim)
    activity = generation.get_attribute(pm.PROV_ATTR_ACTIVITY).pop()
    assert str(activity.uri) == f"{BASE}import/every-eval-ever"
