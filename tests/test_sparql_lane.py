"""The short way for known queries (kg/web/sparql/lane.py), over a real store on disk: a
POST /sparql whose query a worker answered fast is answered again before Flask, with the
same status, headers and bytes Flask gave; whatever else comes (pages, errors, GETs, a
new version) is Flask's, as before."""

from __future__ import annotations

import csv
import io
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask, request_started

from helpers import write_values
from kg.web import create_app
from kg.web.state import close

JSON = "application/sparql-results+json"
SELECT = "SELECT ?o WHERE { ?s <urn:p> ?o } ORDER BY ?o"
FORM = "application/x-www-form-urlencoded"


class Counted:
    """The app, its test client, and how many requests Flask itself has handled."""

    def __init__(self, app: Flask):
        self.app, self.client, self.by_flask = app, app.test_client(), 0
        request_started.connect(self._started, app)

    def _started(self, _sender: Flask, **_extra: object) -> None:
        self.by_flask += 1

    def post(self, **kwargs: object):
        """The response, and whether Flask answered it."""
        before = self.by_flask
        response = self.client.post("/sparql", **kwargs)
        return response, self.by_flask > before


def counted(store_dir: Path, **settings: object) -> Iterator[Counted]:
    app = create_app(
        {"store": str(store_dir), "cache_mb": 0, "query_workers": 1, "max_rows": 2, **settings}
    )
    try:
        yield Counted(app)
    finally:
        close(app)


@pytest.fixture
def served(store_dir: Path) -> Iterator[Counted]:
    write_values(store_dir, ["a", "b"])
    yield from counted(store_dir, query_inline_ms=60_000)  # every query is "fast" here


REQUESTS = {
    "form, SPARQL JSON": {"data": {"query": SELECT}, "headers": {"Accept": JSON}},
    "direct body, CSV": {
        "data": SELECT,
        "content_type": "application/sparql-query",
        "headers": {"Accept": "text/csv"},
    },
    "form, format=xml": {"data": {"query": SELECT, "format": "xml"}},
    "a dataset named": {
        "data": {"query": SELECT, "default-graph-uri": "urn:g"},
        "headers": {"Accept": "text/tab-separated-values"},
    },
    "CONSTRUCT, N-Triples": {
        "data": {"query": "CONSTRUCT WHERE { ?s <urn:p> ?o }"},
        "headers": {"Accept": "application/n-triples"},
    },
    "ASK": {"data": {"query": "ASK { ?s <urn:p> 'a' }"}, "headers": {"Accept": JSON}},
}


@pytest.mark.parametrize("name", REQUESTS)
def test_a_known_query_gets_flasks_answer_without_flask(served: Counted, name: str) -> None:
    first, by_flask = served.post(**REQUESTS[name])
    assert first.status_code == 200 and by_flask
    again, by_flask = served.post(**REQUESTS[name])
    assert not by_flask
    assert again.status_code == 200
    assert again.data == first.data
    assert sorted(again.headers.items()) == sorted(first.headers.items())


def test_the_row_cap_is_marked_the_same(store_dir: Path) -> None:
    write_values(store_dir, ["a", "b", "c"])
    for app in counted(store_dir, query_inline_ms=60_000):
        for _ in range(2):
            response, _ = app.post(
                data=SELECT, content_type="application/sparql-query", headers={"Accept": "text/csv"}
            )
            assert response.headers["X-Truncated"] == "true"
            assert response.headers["X-Rows"] == "2"
            assert [row[0] for row in csv.reader(io.StringIO(response.text))] == ["o", "a", "b"]
        assert app.by_flask == 1


# What the lane leaves to Flask, each asked twice (the query known after the first time):
# the status Flask gives.
LEFT_TO_FLASK = {
    "the HTML page": ({"data": {"query": SELECT}, "headers": {"Accept": "text/html"}}, 200),
    "an update": ({"data": {"query": "INSERT DATA { <urn:a> <urn:b> <urn:c> }"}}, 403),
    "update= given": ({"data": {"query": SELECT, "update": "x"}}, 403),
    "a body type not read": ({"data": SELECT, "content_type": "text/plain"}, 415),
    "query and canned": ({"data": {"query": SELECT, "canned": "stats"}}, 400),
    "two formats": ({"data": {"query": SELECT, "format": ["csv", "xml"]}}, 400),
    "no acceptable format": ({"data": {"query": SELECT}, "headers": {"Accept": "image/png"}}, 406),
    "a body over the limit": ({"data": {"query": SELECT + "#" + "x" * 500_000}}, 413),
}


@pytest.mark.parametrize("name", LEFT_TO_FLASK)
def test_what_the_lane_does_not_answer_is_flasks(served: Counted, name: str) -> None:
    kwargs, status = LEFT_TO_FLASK[name]
    for _ in range(2):
        response, by_flask = served.post(**kwargs)
        assert by_flask
        assert response.status_code == status
    if status == 200:  # the body the lane read was put back for Flask: the query ran
        assert re.search(r"<td[^>]*>a</td>", response.text) is not None


def test_a_get_is_flasks(served: Counted) -> None:
    for _ in range(2):
        before = served.by_flask
        response = served.client.get(
            "/sparql", query_string={"query": SELECT}, headers={"Accept": JSON}
        )
        assert response.status_code == 200 and "ETag" in response.headers
        assert served.by_flask == before + 1


def test_a_new_version_is_answered_anew(served: Counted, store_dir: Path) -> None:
    """After a load the query is another's (its version changed): Flask answers it, from
    the new version, and never the old answer after that."""
    ask = {"data": {"query": SELECT}, "headers": {"Accept": JSON}}
    served.post(**ask)
    old, by_flask = served.post(**ask)
    assert not by_flask
    write_values(store_dir, ["c"])
    deadline = time.monotonic() + 30
    while True:  # the app looks for a new version at most once a second
        response, by_flask = served.post(**ask)
        if response.data != old.data:
            break
        assert time.monotonic() < deadline, "the new version was never served"
        time.sleep(0.1)
    assert by_flask
    assert [b["o"]["value"] for b in json.loads(response.data)["results"]["bindings"]] == ["c"]
    again, by_flask = served.post(**ask)
    assert not by_flask and again.data == response.data


def test_no_lane_where_no_query_runs_in_the_thread(store_dir: Path) -> None:
    write_values(store_dir, ["a"])
    for app in counted(store_dir, query_inline_ms=0):
        for _ in range(3):
            response, by_flask = app.post(data={"query": SELECT}, headers={"Accept": JSON})
            assert response.status_code == 200 and by_flask


def test_a_kept_plan_serves_only_the_same_request(served: Counted) -> None:
    """The same body asked with another Accept header, or sent to another host (which
    relative IRIs resolve against), plans anew: each is answered as Flask answers it."""
    relative = "SELECT ?iri WHERE { BIND(<record/x> AS ?iri) }"
    asked = [({"Accept": JSON}, JSON), ({"Accept": "text/csv"}, "text/csv")]
    for _ in range(3):
        for headers, media_type in asked:
            response, _ = served.post(data={"query": SELECT}, headers=headers)
            assert response.mimetype == media_type
        for host in ("a.example", "b.example"):
            response, _ = served.post(
                data={"query": relative}, headers={"Accept": JSON, "Host": host}
            )
            value = json.loads(response.data)["results"]["bindings"][0]["iri"]["value"]
            assert value == f"http://{host}/record/x"
    assert served.by_flask == 4  # each of the four asked by Flask once, then known
