"""The home page and the lists (``/benchmarks``, ``/models``, ``/sources``, ``/developers``,
``/metrics``, ``/agents``) in the app in this process over the bundled data: every count is
the records' own, paging visits every value once, sorting and searching select what they
say, every format agrees, every link answers, and bad parameters get clear errors."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter

import pytest
from flask.testing import FlaskClient

from kg.read.lists import LIST_OF_FACET, LISTS
from kg.store.index.schema import FACETS
from kg.web.state import state

NAMES = list(LISTS)


def every_value(client: FlaskClient, facet: str) -> Counter[str]:
    """How many records have each value of ``facet``, counted from the rows themselves."""
    key = FACETS[facet][0]
    counted: Counter[str] = Counter()
    for row in state(client.application).catalog.rows():
        value = getattr(row, key)
        if value:
            counted[value] += 1
    return counted


def pages(client: FlaskClient, name: str, **args: object) -> list[dict]:
    """Every item of a list, page after page (its ``next`` links followed)."""
    items: list[dict] = []
    got = client.get(f"/{name}.json", query_string=args)
    assert got.status_code == 200, got.data[:300]
    while True:
        body = got.get_json()
        items += body["items"]
        if not body["next"]:
            return items
        got = client.get(body["next"])
        assert got.status_code == 200


@pytest.mark.parametrize("name", NAMES)
def test_a_list_holds_every_value_once_with_its_records_count(
    client: FlaskClient, name: str
) -> None:
    expected = every_value(client, LISTS[name].facet)
    assert expected, name  # the bundled data has some of each
    items = pages(client, name, limit=7)
    assert Counter(i["value"] for i in items) == Counter(set(expected))
    assert {i["value"]: i["records"] for i in items} == dict(expected)
    assert client.get(f"/{name}.json").get_json()["total"] == len(expected)


@pytest.mark.parametrize("name", NAMES)
def test_a_list_sorts_by_count_and_by_name(client: FlaskClient, name: str) -> None:
    by_count = [i["records"] for i in pages(client, name, limit=5)]
    assert by_count == sorted(by_count, reverse=True)
    fewest = [i["records"] for i in pages(client, name, limit=5, sort="-count")]
    assert fewest == sorted(fewest)
    names = [i["label"].casefold() for i in pages(client, name, limit=5, sort="name")]
    assert names == sorted(names)
    backwards = [i["label"].casefold() for i in pages(client, name, limit=5, sort="-name")]
    assert backwards == sorted(backwards, reverse=True)


@pytest.mark.parametrize("name", ["models", "benchmarks", "metrics"])
def test_a_search_selects_the_values_holding_every_word(client: FlaskClient, name: str) -> None:
    everything = pages(client, name)
    word = re.split(r"[\W_]+", everything[0]["label"])[0][:4]
    found = pages(client, name, q=word.upper())
    held = [i for i in everything if word.casefold() in (i["label"] + " " + i["value"]).casefold()]
    assert found and sorted(i["value"] for i in found) == sorted(i["value"] for i in held)
    assert pages(client, name, q=f"{word} zzzz-nothing-has-this") == []


@pytest.mark.parametrize("name", NAMES)
def test_each_value_links_to_its_page_and_to_its_records(client: FlaskClient, name: str) -> None:
    for item in pages(client, name)[:4]:
        assert client.get(item["page"]).status_code == 200, item
        records = client.get(item["records_page"], headers={"Accept": "application/json"})
        assert records.status_code == 200
        assert records.get_json()["total"] == item["records"], item


@pytest.mark.parametrize("name", NAMES)
def test_the_page_and_the_csv_show_what_the_json_says(client: FlaskClient, name: str) -> None:
    items = client.get(f"/{name}.json").get_json()["items"]
    rows = list(csv.DictReader(io.StringIO(client.get(f"/{name}.csv").get_data(as_text=True))))
    assert [(r["value"], int(r["records"])) for r in rows] == [
        (i["value"], i["records"]) for i in items
    ]
    html = client.get(f"/{name}").get_data(as_text=True)
    for item in items:
        assert f'href="{item["records_page"].replace("&", "&amp;")}"' in html
        assert f">{item['records']:,}</a>" in html


def test_the_models_list_says_each_models_developer(client: FlaskClient) -> None:
    developers = {}
    for row in state(client.application).catalog.rows():
        developers.setdefault(row.model, set()).add(row.developer)
    nodes = {row.model: row.model_node for row in state(client.application).catalog.rows()}
    for item in pages(client, "models"):
        assert item["developer"] in developers[item["value"]] | {""}
        # the page of the model node its records name, whatever the name's case (a
        # hand-made record names no model node: its records)
        node = nodes[item["value"]]
        expected = "/model/" + node.rsplit("/model/", 1)[1] if node else item["records_page"]
        assert item["page"] == expected


def test_every_listed_model_links_to_a_page_that_answers(client: FlaskClient) -> None:
    listed = pages(client, "models")
    assert any(item["value"] != item["value"].casefold() for item in listed)  # names in case
    for item in listed:
        assert client.get(item["page"]).status_code == 200, item


def test_bad_parameters_are_refused_clearly(client: FlaskClient) -> None:
    refused = client.get("/models?sort=size")
    assert refused.status_code == 400
    assert "sort" in refused.get_data(as_text=True)
    assert client.get("/models?limit=0").status_code == 400
    assert client.get("/models?page=abc").status_code == 400
    assert client.get("/models?page=999").status_code == 404
    assert client.get("/models.xml").status_code == 404
    assert client.get("/nothing-listed").status_code == 404


def test_the_agents_list_counts_each_agents_activities(client: FlaskClient) -> None:
    body = client.get("/agents.json").get_json()
    agents = {a["agent"].rpartition("/")[2]: a for a in body["items"]}
    assert {"claude", "claimgraph-runner", "claimgraph-import-0.1.0"} <= set(agents)
    # the runner ran every bundled reproduction run; claude reviewed one record
    runs = (
        state(client.application)
        .catalog.index.execute("SELECT count(*) FROM activities WHERE kind = 'run'")
        .fetchone()[0]
    )
    assert agents["claimgraph-runner"]["activities"] == runs > 0
    assert agents["claude"]["type"] == "software"
    for agent in body["items"]:
        assert client.get(agent["page"]).status_code == 200
    assert [a["label"] for a in client.get("/agents.json?q=RUNNER").get_json()["items"]] == [
        agents["claimgraph-runner"]["label"]
    ]
    rows = list(csv.DictReader(io.StringIO(client.get("/agents.csv").get_data(as_text=True))))
    assert [r["agent"] for r in rows] == [a["agent"] for a in body["items"]]


def test_the_home_page_shows_what_the_registry_holds(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    total = client.get("/records.json").get_json()["total"]
    assert f"<strong>{total:,}</strong> record" in html
    for name, facet in [("sources", "source"), ("benchmarks", "benchmark"), ("models", "model")]:
        assert f'<a href="/{name}"><strong>{len(every_value(client, facet)):,}</strong>' in html
    for item in client.get("/sources.json").get_json()["items"][:3]:
        assert f'<a href="{item["page"]}">{item["label"]}</a>' in html
        assert f'<a href="{item["records_page"]}">{item["records"]:,}</a>' in html
    # the latest changes are the feed's first entries, each linking to a page that answers
    feed = client.get("/feed.atom").get_data(as_text=True)
    first = re.search(r"<entry>.*?<title[^>]*>(.*?)</title>", feed, re.S)
    assert first is not None and first.group(1) in html
    changes = re.search(r'<ul class="changes">(.*?)</ul>', html, re.S)
    assert changes is not None
    for href in re.findall(r'href="([^"]+)"', changes.group(1)):
        assert client.get(href).status_code in (200, 410), href


def test_the_home_page_with_a_search_or_as_data_is_the_records_index(client: FlaskClient) -> None:
    searched = client.get("/?q=memory", headers={"Accept": "application/json"})
    assert searched.get_json() == client.get("/records.json?q=memory").get_json()
    page = client.get("/?q=memory").get_data(as_text=True)
    assert "<h1>Published results</h1>" in page
    as_data = client.get("/", headers={"Accept": "application/json"}).get_json()
    assert as_data["total"] == client.get("/records.json").get_json()["total"]
    assert "<h1>Published results</h1>" in client.get("/records").get_data(as_text=True)


def test_a_facet_that_shows_its_limit_links_to_its_list(client: FlaskClient) -> None:
    html = client.get("/records").get_data(as_text=True)
    sections = re.findall(r'<section class="facet" data-facet="(\w+)">(.*?)</section>', html, re.S)
    assert sections
    for facet, body in sections:
        shown = body.count("<li")
        linked = re.search(r'<p class="all"><a href="/(\w+)">', body)
        if facet in {kind.facet for kind in LISTS.values()} and shown >= 30:
            assert linked is not None and LISTS[linked.group(1)].facet == facet
        else:
            assert linked is None, facet


def test_no_two_boards_share_a_heading_and_every_page_names_a_board_alike(
    client: FlaskClient,
) -> None:
    items = pages(client, "benchmarks")
    labels = [i["label"] for i in items]
    assert len(set(labels)) == len(labels) > 1
    facet = client.get("/records.json").get_json()["facets"]["benchmark"]
    named = {f["value"]: f["label"] for f in facet}
    for item in items[:5]:
        page = client.get(item["page"]).get_data(as_text=True)
        assert f"<h1>{item['label']}</h1>" in page
        assert named.get(item["value"], item["label"]) == item["label"]


def test_a_value_shows_its_units_symbol_and_nothing_for_a_unitless_one(
    client: FlaskClient,
) -> None:
    rows = list(state(client.application).catalog.rows())
    with_symbol = next(r for r in rows if r.unit_symbol)
    unitless = next(r for r in rows if r.unit == "unitless")
    assert unitless.unit_symbol == ""
    page = client.get(f"/record/{with_symbol.id}").get_data(as_text=True)
    headline = re.search(r'<p class="headline">(.*?)</p>', page, re.S)
    assert headline is not None and f">{with_symbol.unit_symbol}</abbr>" in headline.group(1)
    listing = client.get("/records", query_string={"model": with_symbol.model})
    assert f'{with_symbol.printed} <abbr title="{with_symbol.unit}">' in listing.get_data(
        as_text=True
    )
    assert "unitless" not in client.get("/records").get_data(as_text=True).split("<tbody>")[1]


def test_a_record_page_lists_its_sections_first(client: FlaskClient) -> None:
    rows = list(state(client.application).catalog.rows())
    page = client.get(f"/record/{rows[0].id}").get_data(as_text=True)
    toc = re.search(r'<nav class="toc"[^>]*>(.*?)</nav>', page, re.S)
    assert toc is not None
    for anchor in re.findall(r'href="#([\w-]+)"', toc.group(1)):
        assert f'<section id="{anchor}">' in page, anchor


def test_the_header_search_holds_a_search_never_a_sparql_query(client: FlaskClient) -> None:
    query = 'SELECT (1 AS ?n) ("x"@en AS ?t) WHERE {}'
    page = client.get(
        "/sparql", query_string={"query": query}, headers={"Accept": "text/html"}
    ).get_data(as_text=True)
    header = re.search(r'<header class="site">.*?</header>', page, re.S)
    assert header is not None and 'value=""' in header.group(0)
    # each value shows as a value, its type on hover
    cells = re.findall(r'<td title="([^"]+)">([^<]*)</td>', page)
    assert ("xsd:integer", "1") in cells and ("text @en", "x") in cells
    searched = client.get("/records?q=memory").get_data(as_text=True)
    header = re.search(r'<header class="site">.*?</header>', searched, re.S)
    assert header is not None and 'value="memory"' in header.group(0)


def test_the_records_as_data_without_facets_for_a_caller_that_shows_none(
    client: FlaskClient,
) -> None:
    full = client.get("/records.json?q=memory").get_json()
    bare = client.get("/records.json?q=memory&facets=none").get_json()
    assert bare["facets"] == {} and full["facets"]
    assert bare["rows"] == full["rows"] and bare["total"] == full["total"]


def test_the_sparql_page_shows_a_long_result_a_page_at_a_time(client: FlaskClient) -> None:
    # IRIs only: a blank node's label may differ from one run of the query to the next
    query = "SELECT ?s ?t WHERE { ?s a ?t FILTER(isIRI(?s)) } ORDER BY ?s ?t LIMIT 450"
    every = client.get(
        "/sparql",
        query_string={"query": query},
        headers={"Accept": "application/sparql-results+json"},
    ).get_json()["results"]["bindings"]
    assert len(every) == 450
    seen = []
    for page in (1, 2, 3):
        answer = client.get(
            "/sparql", query_string={"query": query, "page": page}, headers={"Accept": "text/html"}
        )
        assert answer.status_code == 200
        html = answer.get_data(as_text=True)
        rows = re.findall(r"<tr><td[^>]*>(?:<a [^>]+>)?([^<]*)", html.split("<tbody>")[1])
        seen += rows
        assert f"page {page} of 3" in html
        assert ('rel="next"' in html) == (page < 3)
    assert seen == [b["s"]["value"] for b in every]


def test_a_versioned_static_file_is_immutable_and_gzipped(client: FlaskClient) -> None:
    import gzip
    from pathlib import Path

    import kg.web

    page = client.get("/sparql", headers={"Accept": "text/html"}).get_data(as_text=True)
    found = re.search(
        r'<script src="(/static/vendor/yasgui/yasgui\.min\.js\?v=[0-9a-f]{12})"', page
    )
    assert found is not None
    url = found.group(1)
    on_disk = (Path(kg.web.__file__).parent / "static/vendor/yasgui/yasgui.min.js").read_bytes()
    zipped = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert zipped.status_code == 200 and zipped.headers["Content-Encoding"] == "gzip"
    assert "immutable" in zipped.headers["Cache-Control"]
    assert gzip.decompress(zipped.data) == on_disk and len(zipped.data) < len(on_disk) / 2
    again = client.get(
        url, headers={"Accept-Encoding": "gzip", "If-None-Match": zipped.headers["ETag"]}
    )
    assert again.status_code == 304
    plain = client.get(url)  # no gzip asked: the file itself, still immutable
    assert plain.data == on_disk and "immutable" in plain.headers["Cache-Control"]
    for other in (url.split("?")[0], url.split("?")[0] + "?v=000000000000"):
        old = client.get(other, headers={"Accept-Encoding": "gzip"})
        assert old.data == on_disk and "immutable" not in old.headers.get("Cache-Control", "")


def test_every_facet_of_free_text_has_a_list_and_the_others_few_values(client) -> None:
    """A facet whose values are not a vocabulary's can have thousands (a link to all of
    them: its list); a vocabulary's facet has a few, all shown."""
    vocabulary = {
        "evidence_kind",
        "review_status",
        "evaluator",
        "method",
        "verification",
        "standing",
    }
    assert set(FACETS) - set(LIST_OF_FACET) == vocabulary
    html = client.get("/records").get_data(as_text=True)
    for facet in vocabulary:
        shown = re.search(rf'data-facet="{facet}">(.*?)</section>', html, re.S)
        if shown:
            assert 'class="all"' not in shown.group(1)


def test_a_list_links_each_of_its_pages_by_number(client) -> None:
    html = client.get("/models", query_string={"limit": "2", "page": "2"}).get_data(as_text=True)
    numbers = re.search(r'<nav class="page-numbers"[^>]*>(.*?)</nav>', html, re.S).group(1)
    total = client.get("/models.json", query_string={"limit": "2"}).get_json()["pages"]
    linked = [int(n) for n in re.findall(r'page=(\d+)[^"]*">\d+</a>', numbers)]
    # every page but this one (the first's link has no page=) is one click away
    assert sorted({1, *linked}) == [n for n in range(1, total + 1) if n != 2]
    assert '<strong aria-current="page">2</strong>' in numbers
