"""``kg board`` and ``kg model`` print what the leaderboard and model pages show: the same
rows, ranks and filters, read from the same store (kg/read), and clear errors for an id the
store lacks."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from helpers import BASE
from helpers.eee import TINY, with_lower_is_better_board
from helpers.web import app_over
from kg.cli import main

MODEL = "mistralai/mistral-7b-instruct-v0.3"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return with_lower_is_better_board(tmp_path_factory.mktemp("boards"))


@pytest.fixture(scope="module")
def client(root: Path):
    with app_over(root) as app:
        yield app.test_client()


def kg(root: Path, *args: str, code: int = 0) -> str:
    env = {"KG_BASE": BASE, "KG_STORE": str(root / "store"), "KG_DATA": str(root / "data")}
    result = CliRunner().invoke(main, list(args), env=env)
    assert result.exit_code == code, result.output
    return result.output


def test_the_board_as_json_is_the_pages_table(root: Path, client: FlaskClient) -> None:
    page = client.get(f"/benchmark/{TINY}/leaderboard.json").get_json()
    assert json.loads(kg(root, "board", TINY, "--format", "json")) == page
    assert [r["rank"] for r in page["rows"]] == [1, 2, 2, 4, 5, 6]


def test_a_filtered_board_as_csv_is_the_pages(root: Path, client: FlaskClient) -> None:
    rows = list(csv.DictReader(io.StringIO(kg(root, "board", TINY, "-f", "csv"))))
    precision = next(r["precision"] for r in rows if r["precision"])
    filtered = kg(root, "board", TINY, "-f", "csv", "--filter", f"precision={precision}")
    page = client.get(f"/benchmark/{TINY}/leaderboard.csv", query_string={"precision": precision})
    # the same table (the runner reads \r\n line ends as \n)
    assert list(csv.reader(io.StringIO(filtered))) == list(csv.reader(io.StringIO(page.text)))
    assert 0 < len(list(csv.DictReader(io.StringIO(filtered)))) < len(rows)


def test_the_board_as_a_table_lists_each_row_ranked(root: Path) -> None:
    lines = kg(root, "board", TINY).splitlines()
    assert "lower is better" in lines[0]
    assert lines[1].split()[:3] == ["rank", "model", "printed_value"]
    assert lines[-1] == "(6 rows)"
    assert [line.split()[0] for line in lines[3:-1]] == ["1", "2", "2", "4", "5", "6"]


def test_a_benchmark_id_without_its_digest_is_an_error_that_names_it(root: Path) -> None:
    stem = TINY.rpartition("-")[0]
    out = kg(root, "board", stem, code=1)
    assert TINY in out
    assert "no benchmark" in kg(root, "board", "no-such-benchmark", code=1)


def test_a_filter_that_is_not_name_equals_value_is_a_usage_error(root: Path) -> None:
    assert "--filter" in kg(root, "board", TINY, "--filter", "precision", code=2)


def test_the_model_lists_its_results_with_the_pages_ranks(root: Path, client: FlaskClient) -> None:
    got = json.loads(kg(root, "model", MODEL, "--format", "json"))
    page = client.get(f"/model/{quote(MODEL, safe='')}").text
    assert got["model"] == f"{BASE}model/{quote(MODEL, safe='')}"
    assert got["results"]
    for result in got["results"]:
        assert f'<tr data-record="{result["id"]}">' in page
        assert f">{result['rank']}</a> of {result['of']}</td>" in page
        ident = result["benchmark_iri"].removeprefix(f"{BASE}benchmark/")
        board = client.get(f"/benchmark/{ident}/leaderboard.json").get_json()
        assert next(r for r in board["rows"] if r["id"] == result["id"])["rank"] == result["rank"]
    table = kg(root, "model", MODEL)
    assert table.splitlines()[-1] == f"({len(got['results'])} rows)"
    assert len(list(csv.DictReader(io.StringIO(kg(root, "model", MODEL, "-f", "csv"))))) == len(
        got["results"]
    )


def test_an_unknown_model_is_an_error(root: Path) -> None:
    assert "no-such/model" in kg(root, "model", "no-such/model", code=1)
