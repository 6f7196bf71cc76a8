"""What many records say together, in the app in this process: leaderboards (ranking, ties,
filters, the table as CSV, JSON and JSON-LD, the chart), model pages, comparison,
disagreements, the record page's other claims of the same quantity, the index's sorting.

The data: the bundled slice of Every Eval Ever (higher-is-better benchmarks, a real
disagreement between HELM Lite and HELM Classic) and a small generated lower-is-better board
(`helpers.eee.LOWER_IS_BETTER`), imported beside it.
"""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from flask.testing import FlaskClient
from pyld import jsonld

from helpers import BASE, SEED_ID
from helpers.boards import assert_board_reads_agree
from helpers.eee import LOWER_IS_BETTER, MMLU, TINY, kept_files, query, with_lower_is_better_board
from helpers.web import app_over
from kg.model.upstream.every_eval_ever.mapping import source_reference
from kg.read import boards as boards_module
from kg.read.chart import MAX_BARS, Bars, board_chart
from kg.web.state import state

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return with_lower_is_better_board(tmp_path_factory.mktemp("views"))


@pytest.fixture(scope="module")
def client(root: Path):
    with app_over(root) as app:
        yield app.test_client()


def board(client: FlaskClient, ident: str, **args: str) -> dict:
    response = client.get(f"/benchmark/{ident}/leaderboard.json", query_string=args)
    assert response.status_code == 200, response.data[:400]
    return response.get_json()


def test_a_lower_is_better_board_ranks_the_lowest_first_and_ties_share_a_rank(client) -> None:
    got = board(client, TINY)
    assert got["lower_is_better"] is True
    scores = sorted(Decimal(str(score)) for _, score, _, _ in LOWER_IS_BETTER)
    assert [Decimal(r["value"]) for r in got["rows"]] == scores
    # 0.05, 0.20, 0.20, 0.35, 0.50, 0.90: the tie shares rank 2 and rank 3 is skipped
    assert [r["rank"] for r in got["rows"]] == [1, 2, 2, 4, 5, 6]
    assert [r["tied"] for r in got["rows"]] == [False, True, True, False, False, False]


def test_a_model_submitted_twice_appears_twice_marked(client) -> None:
    rows = board(client, TINY)["rows"]
    alpha = [r for r in rows if r["model"].casefold() == "tiny/alpha"]
    assert len(alpha) == 2 and {r["model_rows"] for r in alpha} == {2}
    assert {r["model_rows"] for r in rows if r not in alpha} == {1}
    page = client.get(f"/benchmark/{TINY}").get_data(as_text=True)
    assert page.count('class="tag repeat"') == 2


def test_a_higher_is_better_board_of_the_snapshot_ranks_the_highest_first(client) -> None:
    expected = sorted(
        (
            Decimal(str(r["score_details"]["score"]))
            for raw in kept_files().values()
            for r in json.loads(raw)["evaluation_results"]
            if r["metric_config"]["evaluation_description"] == "EM on MMLU"
            and r["source_data"]["dataset_name"] == "MMLU"
        ),
        reverse=True,
    )
    got = board(client, MMLU)
    assert got["lower_is_better"] is False and len(expected) > 3
    assert [Decimal(r["value"]) for r in got["rows"]] == expected
    for row in got["rows"]:  # a rank is one more than the number of better rows
        assert row["rank"] == 1 + sum(v > Decimal(row["value"]) for v in expected)


def test_filters_change_rows_and_counts_and_stay_in_the_url(client) -> None:
    everything = board(client, TINY)
    small = board(client, TINY, params_max="7")
    assert {r["model"] for r in small["rows"]} == {
        m for m, _, params, _ in LOWER_IS_BETTER if params <= 7
    }
    assert small["filter"] == {"params_max": "7"} and small["total"] < everything["total"]
    assert [r["rank"] for r in small["rows"]] == [  # ranks stay those of the whole board
        r["rank"] for r in everything["rows"] if r["id"] in {s["id"] for s in small["rows"]}
    ]
    half = board(client, TINY, precision="bfloat16")
    assert {r["precision"] for r in half["rows"]} == {"bfloat16"}
    page = client.get(f"/benchmark/{TINY}", query_string={"precision": "bfloat16"})
    text = page.get_data(as_text=True)
    assert f"{half['total']} records" in text
    # the precision facet counts the rows the other filters admit: both values, with counts
    assert re.search(r'<option value="float16">float16 \(3\)</option>', text)
    assert re.search(r'<option value="bfloat16" selected>bfloat16 \(3\)</option>', text)
    downloads = re.findall(r'href="([^"]*/leaderboard\.csv[^"]*)"', text)
    assert downloads and parse_qs(urlsplit(downloads[0].replace("&amp;", "&")).query) == {
        "precision": ["bfloat16"]
    }
    assert board(client, TINY, checked="1")["total"] == 0  # nothing is checked by machine


def test_a_bad_filter_is_a_clear_400(client) -> None:
    response = client.get(f"/benchmark/{TINY}", query_string={"params_min": "seven"})
    assert response.status_code == 400 and b"params_min" in response.data
    assert client.get("/benchmark/no-such-benchmark").status_code == 404


def test_the_table_as_csv_and_json_ld_says_what_the_json_says(client) -> None:
    rows = board(client, MMLU)["rows"]
    response = client.get(f"/benchmark/{MMLU}/leaderboard.csv")
    assert response.mimetype == "text/csv"
    table = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert [(t["id"], t["rank"], t["printed_value"]) for t in table] == [
        (r["id"], str(r["rank"]), r["printed_value"]) for r in rows
    ]
    response = client.get(f"/benchmark/{MMLU}/leaderboard.jsonld")
    assert response.mimetype == "application/ld+json"
    [doc] = jsonld.expand(response.get_json())
    items = doc["https://schema.org/itemListElement"]
    got = [
        (i["https://schema.org/item"][0]["@id"], i["https://schema.org/position"][0]["@value"])
        for i in items
    ]
    assert got == [(r["record"], r["rank"]) for r in rows]
    assert doc["https://schema.org/about"][0]["@id"] == f"{BASE}benchmark/{MMLU}"


def chart(html: str) -> ET.Element:
    return ET.fromstring(re.search(r"<svg .*?</svg>", html, re.S).group(0))


def test_the_chart_has_a_mark_per_row_its_axis_named_and_the_record_marked(client) -> None:
    rows = board(client, MMLU)["rows"]
    current = rows[2]["id"]
    html = client.get(f"/benchmark/{MMLU}", query_string={"record": current}).get_data(as_text=True)
    svg = chart(html)
    marks = [r for r in svg.iter(f"{SVG}rect") if "mark" in r.get("class", "").split()]
    assert [m.get("data-record") for m in marks] == [r["id"] for r in rows]
    assert [m.get("data-record") for m in marks if "current" in m.get("class")] == [current]
    titles = [t.text for t in svg.iter(f"{SVG}text") if t.get("class") == "axis-title"]
    assert "MMLU" in titles and any(t.startswith("rank") for t in titles)
    heights = [float(m.get("height")) for m in marks]
    assert heights == sorted(heights, reverse=True)  # higher is better: the best is tallest


def test_the_model_page_lists_its_results_from_every_source(client) -> None:
    model = "mistralai/mistral-7b-instruct-v0.3"
    expected = set()
    for raw in kept_files().values():
        doc = json.loads(raw)
        if doc["model_info"]["id"].strip().casefold() == model:
            expected |= {
                (source_reference(doc["source_metadata"], "")[0], str(r["score_details"]["score"]))
                for r in doc["evaluation_results"]
            }
    html = client.get(f"/model/{quote(model, safe='')}").get_data(as_text=True)
    shown = set(
        re.findall(
            r'<td class="num"><a href="/record/[^"]+">([^<]+)</a></td>\s*'
            r'<td><a href="/source/([^"]+)">[^<]+</a>',
            html,
        )
    )
    assert {(source, value) for value, source in shown} == expected
    assert len({source for source, _ in expected}) > 1
    assert client.get(f"/model/{quote(model, safe='')}.ttl").mimetype == "text/turtle"


def test_compare_marks_the_fields_that_differ(client) -> None:
    alpha = [r for r in board(client, TINY)["rows"] if r["model"].casefold() == "tiny/alpha"]
    ids = [r["id"] for r in alpha]
    html = client.get("/compare", query_string={"record": ids}).get_data(as_text=True)
    lines = {
        field: css for css, field in re.findall(r'<tr class="([\w ]+)" data-field="([^"]+)">', html)
    }
    assert "differs" in lines["Value as printed"] and "differs" not in lines["Metric"]
    assert "differs" in lines["Evaluation"] and "differs" not in lines["Benchmark"]
    response = client.get("/compare.csv", query_string={"record": ids})
    table = {row[0]: row for row in csv.reader(io.StringIO(response.get_data(as_text=True)))}
    assert table["Value as printed"][1:3] == [r["printed_value"] for r in alpha]
    assert table["Value as printed"][-1] == "yes" and table["Metric"][-1] == ""
    assert client.get("/compare", query_string={"record": ids[:1]}).status_code == 400
    assert client.get("/compare", query_string={"record": [ids[0], "nope"]}).status_code == 404


def test_disagreements_list_the_real_case_and_agree_with_the_canned_query(client, root) -> None:
    html = client.get("/disagreements").get_data(as_text=True)
    # HELM Classic and HELM Lite print different MMLU scores for one model
    case = re.search(r"openai/gpt-3\.5-turbo-0613</a> on <a [^>]+>MMLU</a>.*?</table>", html, re.S)
    assert case and "0.391" in case.group(0) and "0.614" in case.group(0)
    assert "HELM Classic" in case.group(0) and "HELM Lite" in case.group(0)
    rows = query(
        root / "store", (Path(__file__).parents[1] / "queries" / "disagreements.rq").read_text()
    )
    from_query = {(r["model"], r["benchmark"]) for r in rows}
    listed = set(re.findall(r'<h2><a href="/model/([^"]+)">.*?<a href="/benchmark/([^"]+)">', html))
    assert {(f"{BASE}model/{m}", f"{BASE}benchmark/{b}") for m, b in listed} == from_query
    assert (f"{BASE}model/tiny%2Falpha", f"{BASE}benchmark/{TINY}") in from_query
    # the same spread against the same scale as the page's
    with client.application.app_context():
        boards = state(client.application).catalog.boards
        listed_share = {
            (d.model, d.benchmark): d.relative
            for d in boards.disagreements(0, boards.disagreement_count())
        }
    for r in rows:
        assert float(r["share"]) == pytest.approx(listed_share[(r["model"], r["benchmark"])])


def test_a_record_page_shows_its_rank_and_the_other_claims_of_its_quantity(client) -> None:
    rows = board(client, MMLU)["rows"]
    [lite, classic] = sorted(
        (r for r in rows if r["model"] == "openai/gpt-3.5-turbo-0613"),
        key=lambda r: r["source_title"],
        reverse=True,
    )
    html = client.get(f"/record/{lite['id']}").get_data(as_text=True)
    rank = re.search(r'<dd id="board-rank">(.*?)</dd>', html).group(1)
    assert rank.startswith(f"{lite['rank']} of {len(rows)}") and f"record={lite['id']}" in rank
    same = re.search(r'<section id="same-quantity">.*?</section>', html, re.S).group(0)
    assert classic["id"] in same and classic["printed_value"] in same
    assert f"{Decimal(classic['value']) - Decimal(lite['value']):+}" in same
    seed = client.get(f"/record/{SEED_ID}")  # a hand-made record is on no board
    assert seed.status_code == 200 and b'id="imported"' not in seed.data
    assert b"board-rank" not in seed.data and b"same-quantity" not in seed.data


def test_a_benchmark_and_a_model_are_still_linked_data(client) -> None:
    response = client.get(f"/benchmark/{TINY}", headers={"Accept": "text/turtle"})
    assert response.mimetype == "text/turtle" and b"Benchmark" in response.data
    assert client.get(f"/benchmark/{TINY}.nt").mimetype == "application/n-triples"


def test_the_index_sorts_by_a_column_with_keyset_paging(client) -> None:
    benchmark = f"{BASE}benchmark/{TINY}"
    seen, url = [], "/records.json"
    args = {"benchmark": benchmark, "sort": "-value", "limit": "4"}
    while url:
        got = client.get(url, query_string=args).get_json()
        seen += [r["printed_value"] for r in got["rows"]]
        url, args = got["next"], None
    assert [Decimal(v) for v in seen] == sorted((Decimal(v) for v in seen), reverse=True)
    assert len(seen) == len(LOWER_IS_BETTER)
    html = client.get("/", query_string={"sort": "model"}).get_data(as_text=True)
    assert 'aria-sort="ascending"' in html
    assert client.get("/", query_string={"sort": "colour"}).status_code == 400


def test_pages_are_reachable_from_the_index_and_the_record_pages(client) -> None:
    rows = board(client, TINY)["rows"]
    html = client.get("/", query_string={"q": rows[0]["id"]}).get_data(as_text=True)
    assert f"/benchmark/{TINY}?record={rows[0]['id']}" in html
    assert 'action="/compare"' in html and 'href="/disagreements"' in html


def test_a_board_read_in_pieces_says_what_its_rows_say(client) -> None:
    """Counts, facets, pages, places and the chart's values, read from the index's board
    indexes, are what the board's rows give one by one, under every filter a page offers."""
    with client.application.app_context():
        assert_board_reads_agree(state(client.application).catalog.boards)


def test_a_long_board_is_charted_in_a_bounded_number_of_bars() -> None:
    values = [2000.0 - i for i in range(MAX_BARS * 3 + 7)]
    svg = ET.fromstring(str(board_chart(Bars(values, current=500), "score", False)))
    marks = [r for r in svg.iter(f"{SVG}rect") if "mark" in r.get("class", "").split()]
    assert len(marks) <= MAX_BARS < len(values)
    assert [m for m in marks if "current" in m.get("class")] == [marks[500 // 4]]
    assert "each bar stands for 4 neighbouring ranks" in svg.find(f"{SVG}title").text
    heights = [float(m.get("height")) for m in marks]
    assert heights == sorted(heights, reverse=True)


def test_disagreements_come_widest_first_a_page_at_a_time(client) -> None:
    with client.application.app_context():
        boards = state(client.application).catalog.boards
        every = boards.disagreements(0, boards.disagreement_count())
        assert len(every) == boards.disagreement_count() >= 2
        # widest against the metric's scale first: the declared one where its rows declare it
        assert [d.relative for d in every] == sorted((d.relative for d in every), reverse=True)
        for d in every:
            scales = {(r.min_score, r.max_score) for r in d.rows if r.min_score and r.max_score}
            assert len(scales) == 1 and d.scale == " to ".join(*scales)
            low, high = (Decimal(v) for v in next(iter(scales)))
            assert d.relative == pytest.approx(float(d.spread / (high - low)))
        # the generated board's 0.15 on a 0-100 scale is narrower than HELM's few hundredths
        # on a 0-1 one, though larger as a number
        tiny = next(d for d in every if d.benchmark.endswith(TINY))
        helm = [d for d in every if d.scale == "0 to 1" and d.spread < tiny.spread]
        assert helm and all(every.index(d) < every.index(tiny) for d in helm)
        assert [d.model for d in boards.disagreements(1, 1)] == [every[1].model]


def test_a_filter_offers_its_most_frequent_values_and_the_chosen_one(client, monkeypatch) -> None:
    monkeypatch.setattr(boards_module, "BOARD_FACET_TOP", 1)
    everything = board(client, TINY)
    precisions = {r["precision"] for r in everything["rows"]}
    assert len(precisions) == 2  # float16 and bfloat16: one is left out of the list
    # (an argument of its own: the page without one is kept in the response cache)
    html = client.get(f"/benchmark/{TINY}", query_string={"start": "0"}).get_data(as_text=True)
    options = re.search(r'<select name="precision">(.*?)</select>', html, re.S).group(1)
    assert len(re.findall(r'<option value="[^"]', options)) == 1
    assert "(1 of 2 values, the most frequent)" in html
    for value in precisions:  # whichever is chosen is offered, selected
        asked = {"precision": value, "start": "0"}
        html = client.get(f"/benchmark/{TINY}", query_string=asked).get_data(as_text=True)
        assert f'<option value="{value}" selected>' in html


def current_rows(html: str) -> list[str]:
    """The ids of the rows a board page marks."""
    return re.findall(r'<tr id="([^"]+)" class="current"', html)


def test_a_board_jumps_to_a_models_best_row_and_to_a_rank(client) -> None:
    rows = board(client, MMLU)["rows"]
    # a model with more than one row on the board: its best is found, by any part of its name
    target = rows[-1]
    best = next(r for r in rows if r["model"] == target["model"])
    part = target["model"].split("/")[-1][:-2].upper()
    page = client.get(f"/benchmark/{MMLU}", query_string={"find": part}).get_data(as_text=True)
    found = current_rows(page)
    assert len(found) == 1
    first = next(r for r in rows if part.casefold() in r["model"].casefold())
    assert found == [first["id"]]
    exact = client.get(f"/benchmark/{MMLU}", query_string={"find": target["model"].upper()})
    assert current_rows(exact.get_data(as_text=True)) == [best["id"]]
    # a rank: its rows marked
    rank = rows[len(rows) // 2]["rank"]
    page = client.get(f"/benchmark/{MMLU}", query_string={"rank": rank}).get_data(as_text=True)
    assert current_rows(page) == [r["id"] for r in rows if r["rank"] == rank]
    # nothing found: said so, the board as it was
    missing = client.get(f"/benchmark/{MMLU}", query_string={"find": "no-such-model-here"})
    assert missing.status_code == 200
    assert "No model matching “no-such-model-here”" in missing.get_data(as_text=True)
    assert client.get(f"/benchmark/{MMLU}", query_string={"rank": "first"}).status_code == 400


def test_a_board_offers_only_filters_that_narrow(client) -> None:
    html = client.get(f"/benchmark/{MMLU}").get_data(as_text=True)
    selects = re.findall(r'<select name="(\w+)">(.*?)</select>', html, re.S)
    assert selects
    for name, options in selects:
        offered = re.findall(r'<option value="([^"]*)"', options)
        choices = [o for o in offered if o not in ("", "all")]
        assert len(choices) > 1, name


def test_a_models_two_results_on_one_board_say_what_tells_them_apart(client) -> None:
    model = "openai/gpt-3.5-turbo-0613"
    rows = [r for r in board(client, MMLU)["rows"] if r["model"] == model]
    assert len(rows) == 2  # HELM Lite's and HELM Classic's
    html = client.get(f"/model/{quote(model, safe='')}").get_data(as_text=True)
    labels = {}
    for row in rows:
        found = re.search(
            rf'<tr data-record="{re.escape(row["id"])}">.*?<span class="differs">(.*?)</span>',
            html,
            re.S,
        )
        assert found is not None, row["id"]
        labels[row["id"]] = found.group(1)
    assert len(set(labels.values())) == 2
    for row in rows:
        assert f"source {row['source_title']}" in labels[row["id"]]
    assert f"<h1>{model}</h1>" in html
    assert 'class="model-facts">Developer: <a href="/records?developer=openai">openai</a>' in html


def test_compare_names_what_differs_in_its_headings_and_links_its_values(client) -> None:
    model = "openai/gpt-3.5-turbo-0613"
    rows = [r for r in board(client, MMLU)["rows"] if r["model"] == model]
    html = client.get("/compare", query_string={"record": [r["id"] for r in rows]}).get_data(
        as_text=True
    )
    heads = re.findall(r'<th scope="col"><a href="/record/[^"]+">(.*?)</a>(.*?)</th>', html)
    assert len(heads) == 2
    if heads[0][0] == heads[1][0]:  # one title: the heading says what tells them apart
        assert heads[0][1] != heads[1][1] and "differs" in heads[0][1]
    values = re.search(r'data-field="Value as printed">(.*?)</tr>', html, re.S)
    assert values is not None
    for row in rows:  # each value links to its record
        assert f'<a href="/record/{quote(row["id"], safe="")}">' in values.group(1)
    assert re.search(r'data-field="Source">.*?<td><a href="/source/', html, re.S)


def test_a_selection_compare_cannot_take_gets_a_page_saying_how_to_pick(client) -> None:
    one = board(client, MMLU)["rows"][0]["id"]
    answer = client.get("/compare", query_string={"record": [one]})
    assert answer.status_code == 400
    page = answer.get_data(as_text=True)
    assert "Pick two to 12 records to compare" in page
    assert f'href="/record/{one}"' in page and f"/records?record={one}" in page
    assert client.get("/compare").status_code == 400


def test_ticked_records_follow_the_index_from_page_to_page(client) -> None:
    first = client.get("/records?limit=5").get_data(as_text=True)
    ids = re.findall(r'name="record" value="([^"]+)"', first)[:2]
    following = re.search(r'formaction="/records" name="after" value="([^"]+)"', first)
    assert following is not None
    # the form sends the ticked boxes with the next page's start
    page = client.get(
        "/records", query_string={"limit": 5, "after": following.group(1), "record": ids}
    ).get_data(as_text=True)
    for ident in ids:  # not on this page: carried on, hidden
        assert f'<input type="hidden" name="record" value="{ident}">' in page
    assert "2 records ticked so far" in page
    back = client.get("/records", query_string={"limit": 5, "record": ids}).get_data(as_text=True)
    for ident in ids:
        assert f'value="{ident}" aria-label="compare {ident}" checked>' in back


def disagreement_sections(html: str) -> list[str]:
    return re.findall(r'<section class="disagreement">(.*?)</section>', html, re.S)


def test_the_disagreements_narrow_to_a_source_a_benchmark_or_a_developer(client) -> None:
    every = client.get("/disagreements").get_data(as_text=True)
    everything = disagreement_sections(every)
    assert everything
    options = dict(re.findall(r'<select name="(\w+)">(.*?)</select>', every, re.S))
    assert set(options) == {"source", "benchmark", "developer"}
    for name, body in options.items():
        for value, count in re.findall(r'<option value="([^"]+)">[^<]*\((\d+)\)</option>', body):
            html = client.get("/disagreements", query_string={name: value}).get_data(as_text=True)
            kept = disagreement_sections(html)
            assert f"{count} quantit" in html and len(kept) == int(count), (name, value)
            if name == "benchmark":
                expected = [
                    s for s in everything if f'href="/benchmark/{value.rpartition("/")[2]}"' in s
                ]
            elif name == "source":
                expected = [
                    s for s in everything if f'href="/source/{value.rpartition("/")[2]}"' in s
                ]
            else:  # a quantity of a model whose records name that developer
                developers: dict[str, set[str]] = {}
                for row in state(client.application).catalog.rows():
                    path = "/model/" + row.model_node.rpartition("/model/")[2]
                    developers.setdefault(path, set()).add(row.developer)
                expected = [
                    s
                    for s in everything
                    if value in developers[re.search(r'href="(/model/[^"]+)"', s).group(1)]
                ]
            assert len(expected) == len(kept), (name, value)
            assert f'value="{value}" selected' in html
