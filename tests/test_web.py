"""The linked-data pages, their content negotiation and errors, through the app in this
process (Flask's test client; serving itself is tested in test_serving.py)."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from pyld import jsonld
from rdflib import Dataset

from helpers import BASE, OTHER_ID, ROOT, SEED_ID
from kg.rdf.canonical import canonical_nquads, parse_nquads

RECORD = f"/record/{SEED_ID}"
SOURCE = "/source/saadat-fellay-2026-genomic-lm-efficiency"
REVIEW = f"/activity/{SEED_ID}-review-1"


def test_healthz(client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200 and response.text == "ok\n"
    client.get(RECORD)
    figures = client.get("/healthz", headers={"Accept": "application/json"}).json
    assert figures["status"] == "ok" and figures["version"]
    cache = figures["response_cache"]
    assert 0 < cache["bytes"] <= cache["limit"] and cache["entries"] >= 1


NEGOTIATION = [
    # (path, Accept header, status, content type)
    (RECORD, None, 200, "text/html"),
    (RECORD, "text/html,application/xhtml+xml,*/*;q=0.8", 200, "text/html"),
    (RECORD, "*/*", 200, "text/html"),
    (RECORD, "text/turtle", 200, "text/turtle"),
    (RECORD, "application/n-triples", 200, "application/n-triples"),
    (RECORD, "application/n-quads", 200, "application/n-quads"),
    (RECORD, "application/ld+json", 200, "application/ld+json"),
    (RECORD, "application/rdf+xml", 200, "application/rdf+xml"),
    (RECORD, "text/turtle;q=0.5, application/ld+json;q=0.9", 200, "application/ld+json"),
    (RECORD, "application/ld+json;q=0.1, text/turtle", 200, "text/turtle"),
    (RECORD, "text/html;q=0, text/turtle;q=0.2", 200, "text/turtle"),
    (RECORD + ".ttl", "text/html", 200, "text/turtle"),
    (RECORD + ".nt", None, 200, "application/n-triples"),
    (RECORD + ".nq", None, 200, "application/n-quads"),
    (RECORD + ".jsonld", None, 200, "application/ld+json"),
    (RECORD + ".rdf", None, 200, "application/rdf+xml"),
    (RECORD + "?format=ttl", "text/html", 200, "text/turtle"),
    (RECORD, "image/png", 406, None),
    (RECORD + "?format=png", None, 406, None),
    (SOURCE, "text/turtle", 200, "text/turtle"),
    (SOURCE + ".jsonld", None, 200, "application/ld+json"),
    ("/agent/claude", None, 200, "text/html"),
    ("/agent/claude.nt", None, 200, "application/n-triples"),
    ("/evaluation/nt-2-5b-training-peak-memory-stage-deepspeed.ttl", None, 200, "text/turtle"),
    (REVIEW, None, 200, "text/html"),
    (REVIEW + ".ttl", None, 200, "text/turtle"),
    ("/record/no-such-record", None, 404, "text/html"),
    ("/record/no-such-record", "application/json", 404, "application/json"),
    ("/release/2026-10-22-1b7cf027e4f6", None, 404, "text/html"),
    ("/nothing/here", None, 404, "text/html"),
    ("/", None, 200, "text/html"),
    ("/records.json", None, 200, "application/json"),
    ("/records.csv", None, 200, "text/csv"),
    ("/", "application/json", 200, "application/json"),
    ("/", "image/png", 406, None),
    # citations of records and sources, by suffix and by Accept (as DOI resolvers do)
    (RECORD + ".bib", None, 200, "application/x-bibtex"),
    (RECORD + ".csl.json", None, 200, "application/vnd.citationstyles.csl+json"),
    (RECORD + ".ris", None, 200, "application/x-research-info-systems"),
    (RECORD, "application/x-bibtex", 200, "application/x-bibtex"),
    (
        RECORD,
        "application/vnd.citationstyles.csl+json",
        200,
        "application/vnd.citationstyles.csl+json",
    ),
    (RECORD, "application/x-research-info-systems", 200, "application/x-research-info-systems"),
    (RECORD + "?format=bibtex", None, 200, "application/x-bibtex"),
    (SOURCE + ".bib", None, 200, "application/x-bibtex"),
    (SOURCE + ".csl.json", None, 200, "application/vnd.citationstyles.csl+json"),
    ("/agent/claude.bib", None, 406, None),
    (REVIEW, "application/x-bibtex", 406, None),
]


@pytest.mark.parametrize(("path", "accept", "status", "media_type"), NEGOTIATION)
def test_negotiation(
    client, path: str, accept: str | None, status: int, media_type: str | None
) -> None:
    headers = {"Accept": accept} if accept else {}
    response = client.get(path, headers=headers)
    assert response.status_code == status, response.text[:500]
    if media_type:
        assert response.headers["Content-Type"].split(";")[0] == media_type
    if status in (200, 406) and not path.startswith("/records") and path != "/":
        assert "Accept" in response.headers.get("Vary", "")


RDF_FORMATS = {
    "text/turtle": "turtle",
    "application/n-triples": "nt",
    "application/rdf+xml": "xml",
    "application/ld+json": "json-ld",
}


@pytest.mark.parametrize("path", [RECORD, SOURCE, "/agent/claude", REVIEW])
@pytest.mark.parametrize("media_type", list(RDF_FORMATS))
def test_rdf_parses_back_with_rdflib(client, path: str, media_type: str) -> None:
    response = client.get(path, headers={"Accept": media_type})
    graph = Dataset().parse(data=response.text, format=RDF_FORMATS[media_type])
    assert len(graph) > 3
    subjects = {str(q[0]) for q in graph.quads()}
    assert BASE + path.lstrip("/") in subjects


def test_nquads_keep_the_named_graphs(client) -> None:
    response = client.get(RECORD + ".nq")
    dataset = Dataset().parse(data=response.text, format="nquads")
    names = {str(g.identifier) for g in dataset.graphs()}
    assert f"{BASE}record/{SEED_ID}" in names
    assert f"{BASE}source/saadat-fellay-2026-genomic-lm-efficiency" in names


def test_jsonld_has_its_context_inline_and_expands_offline(client) -> None:
    doc = client.get(RECORD + ".jsonld").get_json()
    assert isinstance(doc["@context"], dict)
    assert doc["@context"]["kg"] == "https://w3id.org/claimgraph/ns#"

    def no_remote(url, options=None):
        raise AssertionError(f"tried to fetch {url}")

    expanded = jsonld.expand(doc, {"documentLoader": no_remote})
    text = json.dumps(expanded)
    assert "https://w3id.org/claimgraph/ns#printedValue" in text
    # a record's JSON-LD is framed: the claim on top, the union of its graphs' triples
    assert doc["id"] == f"{BASE}record/{SEED_ID}" and "Claim" in doc["type"]
    assert isinstance(doc["quotedFrom"]["artifact"], dict) and doc["reviews"]
    triples = client.get(RECORD + ".nt").text
    assert canonical_nquads(
        parse_nquads(
            jsonld.to_rdf(doc, {"format": "application/n-quads", "documentLoader": no_remote})
        )
    ) == canonical_nquads(parse_nquads(triples))


def test_the_context_is_served_as_the_ontology_has_it(client) -> None:
    response = client.get("/context.jsonld")
    assert response.headers["Content-Type"] == "application/ld+json"
    assert response.get_json() == json.loads((ROOT / "ontology" / "context.jsonld").read_text())
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_citation_downloads(client) -> None:
    response = client.get(RECORD + ".ris")
    assert response.headers["Content-Disposition"] == f'attachment; filename="{SEED_ID}.ris"'
    assert response.text.startswith("TY  - CONF\n") and response.text.rstrip().endswith("ER  -")
    items = client.get(
        RECORD, headers={"Accept": "application/vnd.citationstyles.csl+json"}
    ).get_json()
    assert [i["type"] for i in items] == ["paper-conference", "dataset"]
    assert items[0]["locator"] == "6"
    assert items[1]["URL"] == f"{BASE}record/{SEED_ID}"
    source = client.get(SOURCE + ".csl.json").get_json()
    assert [i["id"] for i in source] == ["saadat-fellay-2026-genomic-lm-efficiency"]
    bib = client.get(RECORD + ".bib").text
    assert bib.startswith("@inproceedings{saadat-fellay-2026-genomic-lm-efficiency,")


def test_record_page_links_its_citations(client) -> None:
    html = client.get(RECORD).text
    for suffix in ("bib", "csl.json", "ris"):
        assert f'href="{RECORD}.{suffix}" download' in html
    assert re.search(r'<script src="/static/cite.js\?v=[0-9a-f]{12}" defer></script>', html)
    assert "<script>" not in html  # no inline script: the pages run under a CSP


def test_friendly_404(client) -> None:
    response = client.get("/record/no-such-record")
    assert "no record with id" in response.text and "Search the registry" in response.text


def test_record_page_has_citation_tags_and_schema_org(client) -> None:
    html = client.get(RECORD).text
    assert (
        '<meta name="citation_title" content="Optimizing genomic language models for '
        'efficient training, fine-tuning, and inference">' in html
    )
    assert '<meta name="citation_author" content="Saadat">' in html
    assert '<meta name="citation_author" content="Fellay">' in html
    assert '<meta name="citation_publication_date" content="2026">' in html
    assert '<meta name="citation_conference_title" content="ICLR 2026 workshop">' in html
    assert (
        '<meta name="citation_pdf_url" content="https://openreview.net/pdf?id=NUleWh1GFx">' in html
    )
    block = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S).group(1)
    data = json.loads(block)
    assert data["@type"] == "Dataset" and data["identifier"] == SEED_ID
    assert data["citation"]["@type"] == "ScholarlyArticle"
    source_html = client.get(SOURCE).text
    assert '<meta name="citation_title"' in source_html
    assert SEED_ID in source_html  # the records quoted from it are listed


def test_every_link_on_the_record_page_resolves(client) -> None:
    html = client.get(RECORD).text
    links = set(re.findall(r'href="(/[^"#]*)', html))
    assert {
        SOURCE,
        "/agent/claude",
        REVIEW,
        "/evaluation/nt-2-5b-training-peak-memory-stage-deepspeed",
    } <= links
    for link in links:
        assert client.get(link).status_code == 200, link


def test_values_are_escaped(client) -> None:
    response = client.get("/", query_string={"q": "<script>alert(1)</script>"})
    assert "<script>alert(1)</script>" not in response.text
    assert "&lt;script&gt;" in response.text


def test_index_search_facets_and_listings(client) -> None:
    found = client.get("/records.json", query_string={"q": "ZeRO Stage-2"}).get_json()
    assert found["total"] == 1 and found["rows"][0]["id"] == SEED_ID
    assert client.get("/records.json", query_string={"q": "ResNet"}).get_json()["total"] == 0
    facets = found["facets"]
    assert facets["metric"] == [{"value": "peak-memory", "label": "Peak memory", "count": 1}]
    assert facets["review_status"][0]["label"] == "source checked"
    # both numbers of the sentence, each with its status
    both = client.get("/records.json", query_string={"q": "ZeRO offload"}).get_json()
    assert {r["id"] for r in both["rows"]} == {SEED_ID, OTHER_ID}
    assert {f["label"] for f in both["facets"]["review_status"]} == {
        "source checked",
        "transcribed by claimgraph, not checked upstream",
    }
    assert {f["label"] for f in facets["method"]} == {
        "source-hash-verification",
        "pdf-text-parse",
        "independent-cell-check",
        "rendered-source-visual-check",
    }
    filtered = client.get("/records.json", query_string={"model": "NT 500M"}).get_json()
    assert filtered["total"] == 0
    listed = client.get("/records.csv", query_string={"model": "NT 2.5B"}).text
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(listed))}
    assert set(rows) == {SEED_ID, OTHER_ID}
    assert rows[SEED_ID]["printed_value"] == "11.49"
    assert rows[OTHER_ID]["printed_value"] == "33.88"


def test_bad_parameters_are_400(client) -> None:
    response = client.get("/records.json", query_string={"limit": "many"})
    assert response.status_code == 400
    assert "takes a whole number" in response.get_json()["message"]


def test_record_page_shows_the_runs(client) -> None:
    html = client.get(RECORD).text
    assert "Reproduction runs (claimgraph)" in html
    assert "NVIDIA H200" in html and "12.12" in html and "24.17" in html
    assert "Verdict: <strong>consistent</strong>" in html
    assert "Verdict: <strong>inconsistent</strong>" in html
    run = re.search(r'href="(/activity/nt-peak-memory-[^"]+)"', html).group(1)
    page = client.get(run).text
    assert "transformers" in page and "5.17.0" in page and "deepspeed" in page


def test_listing_columns_are_the_declared_ones(client) -> None:
    from kg.store.index.rows import LISTING_FIELDS

    header = client.get("/records.csv").text.splitlines()[0]
    assert header.split(",") == list(LISTING_FIELDS)
    row = client.get("/records.json").get_json()["rows"][0]
    assert tuple(row) == LISTING_FIELDS


def test_an_argument_named_like_a_route_variable_is_not_passed_on(client) -> None:
    # ?suffix= and ?_anchor= are what url_for reads itself: the index ignores them
    for path in (
        "/?suffix=json&q=memory",
        "/records?_anchor=x&q=memory",
        "/records.json?suffix=csv&q=memory",
    ):
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert "suffix=" not in answer.text and "_anchor" not in answer.text, path
