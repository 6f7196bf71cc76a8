"""A leaderboard's table sorted by any of its columns (``?sort=``), in the app in this
process, over the bundled slice of Every Eval Ever: the rows each sort shows against the
board's own JSON table, the order kept across pages, and the headings that say it."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from helpers.eee import MMLU, TINY, with_lower_is_better_board
from helpers.web import app_over


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root: Path = with_lower_is_better_board(tmp_path_factory.mktemp("board-sort"))
    with app_over(root) as app:
        yield app.test_client()


def shown(client: FlaskClient, board: str = MMLU, **args: str) -> list[str]:
    """The record ids of a board page's rows, in the order shown."""
    response = client.get(f"/benchmark/{board}", query_string=args)
    assert response.status_code == 200, response.data[:300]
    return re.findall(r'<tr id="([^"]+)"', response.get_data(as_text=True))


@pytest.fixture(scope="module")
def rows(client) -> list[dict]:
    table = client.get(f"/benchmark/{MMLU}/leaderboard.json").get_json()["rows"]
    assert len(table) > 4
    return table


def test_a_board_sorts_by_model_name_either_way(client, rows) -> None:
    names = {r["id"]: r["model"].casefold() for r in rows}
    ascending = shown(client, sort="model")
    assert sorted(ascending) == sorted(names)  # every row, once
    assert [names[i] for i in ascending] == sorted(names[i] for i in ascending)
    descending = shown(client, sort="-model")
    assert [names[i] for i in descending] == sorted((names[i] for i in descending), reverse=True)


def test_a_board_sorts_by_size_as_numbers(client) -> None:
    # the generated board: sizes 0.5 to 70 billion, where text order would put 13 before 7
    rows = client.get(f"/benchmark/{TINY}/leaderboard.json").get_json()["rows"]
    sizes = {r["id"]: Decimal(r["params_billions"]) for r in rows}
    for sort, reverse in (("params", False), ("-params", True)):
        order = [sizes[i] for i in shown(client, TINY, sort=sort)]
        assert len(order) == len(rows)
        assert order == sorted(order, reverse=reverse)


def test_a_board_puts_rows_of_no_stated_size_last(client, rows) -> None:
    # the bundled MMLU board mixes models of a stated size and models of none
    sizes = {r["id"]: r.get("params_billions") or "" for r in rows}
    for sort in ("params", "-params"):
        order = shown(client, sort=sort)
        first_unknown = next((n for n, i in enumerate(order) if not sizes[i]), len(order))
        assert all(not sizes[i] for i in order[first_unknown:])


def test_worst_first_is_rank_order_reversed(client, rows) -> None:
    assert shown(client, sort="-rank") == [r["id"] for r in rows][::-1]
    assert shown(client) == [r["id"] for r in rows]


def test_the_headings_link_each_sort_and_mark_the_current_one(client) -> None:
    html = client.get(f"/benchmark/{MMLU}", query_string={"sort": "source"}).get_data(as_text=True)
    head = re.search(r"<thead>(.*?)</thead>", html, re.S).group(1)
    # the current column sorts the other way next; the others by themselves
    assert 'aria-sort="ascending"' in head
    assert "sort=-source" in head
    assert "sort=model" in head and "sort=params" in head
    assert "sorted by Source" in html


def test_an_unknown_sort_is_a_bad_request_that_names_the_choices(client) -> None:
    response = client.get(f"/benchmark/{MMLU}", query_string={"sort": "colour"})
    assert response.status_code == 400
    assert "colour" in response.get_data(as_text=True)
    assert "params" in response.get_data(as_text=True)


def test_records_ticked_on_two_pages_of_a_board_stay_ticked(client, monkeypatch) -> None:
    from kg.web.pages import benchmark as board_page

    monkeypatch.setattr(board_page, "BOARD_PAGE", 3)  # pages of 3 rows on the small board
    first = shown(client, sort="model")[:3]
    # "Next rows, keeping the ticked records": the compare form sent to the board
    asked = {"sort": "model", "keep": "3", "record": [first[0]]}
    response = client.get(f"/benchmark/{MMLU}", query_string=asked)
    html = response.get_data(as_text=True)
    second = re.findall(r'<tr id="([^"]+)"', html)
    assert second and not set(second) & set(first)  # the next rows, in the same order
    assert second == shown(client, sort="model")[3:6]
    # the one ticked before rides along hidden; none is marked as the current record
    assert f'<input type="hidden" name="record" value="{first[0]}">' in html
    assert 'class="current"' not in html
    assert "1 record ticked so far, some on other pages" in html
    # ticked here too, both go to compare
    both = {"keep": "6", "record": [first[0], second[0]]}
    html = client.get(f"/benchmark/{MMLU}", query_string=both).get_data(as_text=True)
    assert "2 records ticked so far" in html
