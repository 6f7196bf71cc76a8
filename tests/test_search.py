"""Search ranked by relevance, judged on the bundled data: exact model ids and benchmark
names first, field-weighted matches next, the last word matched as a prefix while it is
typed, a misspelt word corrected within one edit; the index page, its JSON and the snippet
agree."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlencode

import pyoxigraph as ox
import pytest
from flask.testing import FlaskClient

from helpers import BASE, DATA, open_test_store
from kg.rdf.facts import Facts
from kg.rdf.vocabulary import load_terms
from kg.read.catalog import Catalog
from kg.read.node import node_rows
from kg.store import EmbeddedStore
from kg.store.index import query as query_module
from kg.store.index.query import MARK_START
from kg.store.load import load_paths
from kg.store.records import describe


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root: Path = tmp_path_factory.mktemp("search")
    with open_test_store(root / "store") as store:
        load_paths(store, [DATA], BASE)
    with open_test_store(root / "store", read_only=True) as reader:
        return Catalog.from_store(reader)


def _first(catalog: Catalog, query: str, n: int = 50) -> list:
    return catalog.page(query, {}, None, n).rows


def _leading(rows: list, holds) -> int:
    """How many rows at the head of ``rows`` ``holds``."""
    count = 0
    for row in rows:
        if not holds(row):
            break
        count += 1
    return count


# (query, what each leading row must be, how many rows of the bundled data are that)
JUDGED = [
    (
        "mistral-7b-instruct-v0.3",
        lambda r: r.model.casefold() == "mistralai/mistral-7b-instruct-v0.3",
        None,
    ),
    ("openai/gpt-4o-2024-08-06", lambda r: r.model == "openai/gpt-4o-2024-08-06", None),
    ("gpt-4o-2024-08-06 mmlu", lambda r: r.model == "openai/gpt-4o-2024-08-06", None),
    ("MMLU", lambda r: r.benchmark_label == "MMLU", None),
    ("ifeval", lambda r: r.benchmark_label == "IFEval", None),
]


@pytest.mark.parametrize(("query", "holds", "_"), JUDGED, ids=[q for q, _, _ in JUDGED])
def test_exact_names_come_first(catalog: Catalog, query: str, holds, _) -> None:
    every = catalog.matching(query)
    expected = sum(1 for r in every if holds(r))
    assert expected > 0  # the judged list is about the bundled data
    rows = _first(catalog, query, n=max(expected, 1) + 5)
    assert _leading(rows, holds) == min(expected, len(rows))


def test_an_exact_model_beats_its_fine_tunes(catalog: Catalog) -> None:
    """'gpt-4o-2024-08-06' is also the prefix of nothing else, but 'gpt-4o' words are in
    gpt-4o-mini's id too: the model named whole comes before the one that only holds
    its words."""
    rows = _first(catalog, "openai/gpt-4o-2024-08-06", n=200)
    models = [r.model for r in rows]
    assert models[0] == "openai/gpt-4o-2024-08-06"
    assert all("mini" not in m for m in models[: models.count("openai/gpt-4o-2024-08-06")])


@pytest.mark.parametrize(
    ("typed", "label"),
    [("ifev", "IFEval"), ("narrativ", "NarrativeQA"), ("hellas", "HellaSwag"), ("gsm8", "GSM8K")],
)
def test_the_last_word_matches_as_a_prefix(catalog: Catalog, typed: str, label: str) -> None:
    rows = _first(catalog, typed)
    assert rows and any(r.benchmark_label == label for r in rows)
    assert catalog.page(typed + "zzzq").total == 0  # a prefix, not anything at all


@pytest.mark.parametrize(
    ("misspelt", "meant"), [("ifevl", "ifeval"), ("narativeqa", "narrativeqa"), ("gsm8kk", "gsm8k")]
)
def test_a_word_one_edit_away_is_corrected(catalog: Catalog, misspelt: str, meant: str) -> None:
    page = catalog.page(misspelt + " ")  # a whole word: no prefix can match it
    assert page.corrected == meant
    assert page.total == catalog.page(meant + " ").total > 0


def test_a_word_far_from_every_other_finds_nothing(catalog: Catalog) -> None:
    page = catalog.page("qqqqqqqqzzzz ")
    assert page.total == 0 and page.corrected is None and page.rows == []


def test_relevance_pages_follow_on(catalog: Catalog) -> None:
    whole = catalog.page("mmlu", {}, None, 1000)
    walked, after = [], None
    while True:
        page = catalog.page("mmlu", {}, after, 20)
        walked += [r.id for r in page.rows]
        if page.next_after is None:
            break
        after = page.next_after
    assert walked == [r.id for r in whole.rows] and len(walked) == whole.total


def test_a_search_of_many_matches_keeps_exact_names_first_and_pages_every_match(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past RANKED_UP_TO matches a search is not scored: the exact names still lead, and
    its pages walk every match once, each with its snippet (here every search is past it)."""
    monkeypatch.setattr(query_module, "RANKED_UP_TO", 0)
    for query, holds, _ in JUDGED:
        every = catalog.matching(query)
        expected = sum(1 for r in every if holds(r))
        rows = _first(catalog, query, n=expected + 5)
        assert _leading(rows, holds) == min(expected, len(rows)), query
    walked, after = [], None
    while True:
        page = catalog.page("mmlu", {}, after, 7)
        walked += [r.id for r in page.rows]
        assert all(MARK_START in page.snippets[r.id] for r in page.rows)
        if page.next_after is None:
            break
        after = page.next_after
    assert sorted(walked) == sorted(r.id for r in catalog.matching("mmlu"))
    assert len(walked) == len(set(walked)) == catalog.page("mmlu").total


def test_the_page_and_its_json_rank_and_mark_alike(client: FlaskClient) -> None:
    html = client.get("/?q=ifeval").get_data(as_text=True)
    listing = client.get("/records.json?q=ifeval").get_json()
    assert listing["total"] > 0 and listing["corrected"] is None
    first = listing["rows"][0]
    assert first["benchmark"] and "<mark>" in first["snippet"]
    assert (
        html.index(first["id"]) < html.index(listing["rows"][-1]["id"]) or len(listing["rows"]) == 1
    )
    assert '<span class="snippet">' in html and "<mark>" in html
    corrected = client.get("/records.json?q=ifevl%20").get_json()
    assert corrected["corrected"] == "ifeval" and corrected["total"] == listing["total"]
    assert "showing results for" in client.get("/?q=ifevl").get_data(as_text=True)
    # the facets are those of the rows shown, the corrected search's
    assert corrected["facets"] == listing["facets"]
    by_value = client.get("/records.json?q=ifeval&sort=-value").get_json()
    assert by_value["total"] == listing["total"]
    assert all("<mark>" in row["snippet"] for row in by_value["rows"])  # in any order


def test_the_page_and_its_json_say_when_facets_count_a_sample(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kg.store.index.facets

    listing = client.get("/records.json?q=ifeval").get_json()
    assert listing["facets_sampled"] == {}
    monkeypatch.setattr(kg.store.index.facets, "FACET_SAMPLE", 2)
    kind = listing["facets"]["evidence_kind"][0]["value"]
    query = "/?" + urlencode({"q": "ifeval", "evidence_kind": kind})
    listing = client.get(query.replace("/?", "/records.json?")).get_json()
    sampled = listing["facets_sampled"]
    assert sampled["model"] == {"counted": 2, "of": listing["total"]}
    assert sum(v["count"] for v in listing["facets"]["model"]) <= 2
    html = client.get(query).get_data(as_text=True)
    assert f"Counted over the first 2 of {listing['total']:,} records" in html


def test_a_node_page_lists_the_same_records_from_the_index_as_from_the_store(
    catalog: Catalog, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A source's, model's and benchmark's page lists the records naming it: the live page
    reads them from the index, a release's page from its store; both say the same."""
    store_dir = catalog.index.path.parent
    first = catalog.matching("mmlu")[0]
    nodes = [("source", first.source), ("model", first.model_node), ("benchmark", first.benchmark)]
    with EmbeddedStore(store_dir, read_only=True) as store:
        for kind, iri in nodes:
            ident = unquote(iri.removeprefix(f"{BASE}{kind}/"))
            facts = Facts(describe(store, BASE, kind, ident), load_terms().graph)
            node = ox.NamedNode(iri)
            from_store = node_rows(facts, node, BASE, store)[0]
            from_index = node_rows(facts, node, BASE, store, index=catalog.index)[0]
            assert from_index == from_store, kind
            assert any(label.startswith(("quoted by", "records of")) for label, _ in from_index)
