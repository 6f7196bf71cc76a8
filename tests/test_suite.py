"""A source's suite, ``/source/<id>/suite`` (docs/views.md), in the app in this process over
the bundled data: its columns are the source's benchmarks, its rows every current
submission once, its cells the records' own values, and its order the boards' ranks."""

from __future__ import annotations

import csv
import io
from collections import defaultdict

import pytest
from flask.testing import FlaskClient

from kg.model.standing import CURRENT
from kg.web.state import state


def source_rows(client: FlaskClient, source: str) -> list:
    return [
        r for r in state(client.application).catalog.rows() if r.source == source and r.benchmark
    ]


def suites(client: FlaskClient) -> list[dict]:
    return [
        s
        for s in client.get("/sources.json").get_json()["items"]
        if client.get(s["page"] + "/suite.json").status_code == 200
    ]


def walk(client: FlaskClient, path: str, **args: object) -> list[dict]:
    got = client.get(path + "/suite.json", query_string=args).get_json()
    found = got["submissions"]
    while got["next"]:
        got = client.get(got["next"]).get_json()
        found += got["submissions"]
    return found


def test_every_source_with_boards_has_a_suite_and_its_page_links_it(client: FlaskClient) -> None:
    found = suites(client)
    assert len(found) >= 3
    for source in client.get("/sources.json").get_json()["items"]:
        has = any(r.benchmark for r in source_rows(client, source["value"]))
        page = client.get(source["page"]).get_data(as_text=True)
        assert (f'href="{source["page"]}/suite"' in page) == has, source["value"]
        assert (source in found) == has


def test_a_suites_columns_are_its_sources_benchmarks(client: FlaskClient) -> None:
    for source in suites(client):
        body = client.get(source["page"] + "/suite.json").get_json()
        counted: dict[str, int] = defaultdict(int)
        for row in source_rows(client, source["value"]):
            counted[row.benchmark] += 1
        assert {c["benchmark"]: c["rows"] for c in body["columns"]} == counted
        rows = [c["rows"] for c in body["columns"]]
        assert rows == sorted(rows, reverse=True)


@pytest.mark.parametrize("worst_first", [False, True])
def test_every_current_submission_shows_once_with_its_records_values(
    client: FlaskClient, worst_first: bool
) -> None:
    for source in suites(client):
        body = client.get(source["page"] + "/suite.json").get_json()
        for column in body["columns"][:3]:
            sort = ("-" if worst_first else "") + column["key"]
            shown = walk(client, source["page"], sort=sort, limit=2)
            rows = [r for r in source_rows(client, source["value"]) if r.standing in CURRENT]
            expected = {
                r.evaluation or r.record for r in rows if r.benchmark == column["benchmark"]
            }
            keys = [s["submission"] for s in shown]
            assert sorted(keys) == sorted(expected), (source["value"], sort)
            values = {(r.evaluation or r.record, r.benchmark.rpartition("/")[2]): r for r in rows}
            for s in shown:
                for key, cell in s["results"].items():
                    row = values[(s["submission"], key)]
                    assert (cell["value"], cell["record"]) == (row.printed, row.id)
            ranks = [s["results"][column["key"]]["rank"] for s in shown]
            held = [r for r in ranks if r is not None]
            assert held == sorted(held, reverse=worst_first), (source["value"], sort)
            # unranked rows (no number) come after the ranked ones, best first
            if not worst_first:
                assert ranks == held + [None] * (len(ranks) - len(held))


def test_the_page_and_the_csv_show_the_json(client: FlaskClient) -> None:
    source = suites(client)[0]
    body = client.get(source["page"] + "/suite.json").get_json()
    html = client.get(source["page"] + "/suite").get_data(as_text=True)
    table = list(
        csv.reader(io.StringIO(client.get(source["page"] + "/suite.csv").get_data(as_text=True)))
    )
    assert table[0] == ["model", "submission", *(c["heading"] for c in body["columns"])]
    for line, s in zip(table[1:], body["submissions"], strict=True):
        assert line[:2] == [s["model"], s["submission"]]
        for c, value in zip(body["columns"], line[2:], strict=True):
            cell = s["results"].get(c["key"])
            assert value == (cell["value"] if cell else "")
            if cell:
                assert f'href="/record/{cell["record"]}"' in html


def test_a_bad_suite_request_is_refused_clearly(client: FlaskClient) -> None:
    source = suites(client)[0]["page"]
    refused = client.get(source + "/suite?sort=no-such-column")
    assert refused.status_code == 400 and "sort" in refused.get_data(as_text=True)
    assert client.get(source + "/suite?page=9999").status_code == 404
    assert client.get(source + "/suite.xml").status_code == 404
    assert client.get("/source/no-such-source/suite").status_code == 404
