"""What a request may carry (kg/web/http/request_rules.py), on every route of the running server."""

from __future__ import annotations

import pytest
import requests

from helpers import SEED_ID

RECORD = f"/record/{SEED_ID}"
ASK = "ASK { ?s ?p ?o }"
DESCRIBE = "query=DESCRIBE%20%3Chttps%3A%2F%2Fclaimgraph.example%2Fagent%2Fclaude%3E"
#: What SPARQLWrapper sends beside ``format=json-ld`` (an Accept header's list).
JSONLD_LIST = "application%2Fld%2Bjson%2Capplication%2Fx-json%2Bld"
JSON = {"Accept": "application/json"}


def _message(response: requests.Response) -> str:
    return response.json()["message"]


@pytest.mark.parametrize(
    "path,query",
    [
        ("/records.json", "q=memory&q=training"),
        ("/records.json", "limit=5&limit=6"),
        ("/", "format=json&format=csv"),
        (RECORD, "format=ttl&format=nt"),
        (RECORD + ".ttl", "release=a&release=b"),
        ("/sparql", "query=ASK%20%7B%7D&query=SELECT%20%2A%20%7B%7D"),
        ("/sparql", "format=json&format=xml&query=ASK%20%7B%7D"),
        ("/sparql", f"format=json-ld&format=text/turtle&{DESCRIBE}"),
        (RECORD, f"format=ttl&format={JSONLD_LIST}"),
    ],
)
def test_a_parameter_read_once_and_given_twice_is_400(server: str, path: str, query: str) -> None:
    response = requests.get(f"{server}{path}?{query}", headers=JSON)
    assert response.status_code == 400, (path, query, response.status_code)
    name = query.split("=", 1)[0]
    assert f"the parameter {name} is given 2 times" in _message(response)


@pytest.mark.parametrize(
    "path,query,media_type",
    [
        ("/records", "format=json&format=application/json", "application/json"),
        (RECORD, "format=ttl&format=text/turtle", "text/turtle"),
        (
            "/sparql",
            "query=ASK%20%7B%7D&format=tsv&format=text/tab-separated-values",
            "text/tab-separated-values",
        ),
        ("/records.json", "utm_source=a&utm_source=b", "application/json"),  # read by no view
        # SPARQLWrapper's JSON-LD: the name, then the media types it would accept
        ("/sparql", f"format=json-ld&format={JSONLD_LIST}&{DESCRIBE}", "application/ld+json"),
        (RECORD, f"format=json-ld&format={JSONLD_LIST}", "application/ld+json"),
        (RECORD, f"format={JSONLD_LIST}&format=jsonld", "application/ld+json"),
        # and its SELECT as JSON-LD: the name, then nothing (no media type for it)
        ("/sparql", "format=json&format=&query=ASK%20%7B%7D", "application/json"),
        # XML of a graph is RDF/XML (SPARQLWrapper's default return format)
        ("/sparql", f"format=xml&{DESCRIBE}", "application/rdf+xml"),
    ],
)
def test_values_that_agree_and_parameters_no_view_reads_are_fine(
    server: str, path: str, query: str, media_type: str
) -> None:
    response = requests.get(f"{server}{path}?{query}")
    assert response.status_code == 200, response.text[:300]
    assert response.headers["Content-Type"].split(";")[0] == media_type


def test_the_dataset_parameters_repeat(server: str) -> None:
    graphs = "&".join(f"default-graph-uri=urn%3Ax%3A{i}" for i in range(3))
    response = requests.get(f"{server}/sparql?query=ASK%20%7B%7D&{graphs}", headers=JSON)
    assert response.status_code == 200 and response.json()["boolean"] is True


@pytest.mark.parametrize(
    "data,headers,status,words",
    [
        (
            ASK,
            {"Content-Type": "text/plain"},
            415,
            "takes a body of type application/x-www-form-urlencoded or application/sparql-query, "
            "not text/plain",
        ),
        (ASK.encode(), {}, 415, "this request has no Content-Type"),
        ("query=ASK+%7B%7D", {}, 415, "this request has no Content-Type"),
        (
            ASK.encode("utf-16"),
            {"Content-Type": "application/sparql-query; charset=UTF-16"},
            415,
            "must be UTF-8, not utf-16",
        ),
        (
            "query=ASK+%7B%7D",
            {"Content-Type": "application/x-www-form-urlencoded; charset=latin-1"},
            415,
            "must be UTF-8",
        ),
        (
            b"ASK { ?s ?p '\xe9' }",
            {"Content-Type": "application/sparql-query"},
            400,
            "is not UTF-8",
        ),
        (
            "query=ASK+%7B%7D&q=%E9",
            {"Content-Type": "application/x-www-form-urlencoded"},
            400,
            "is not percent-encoded UTF-8",
        ),
        ("CLEAR ALL", {"Content-Type": "application/sparql-update"}, 403, "read-only"),
        (
            "update=CLEAR+ALL",
            {"Content-Type": "application/x-www-form-urlencoded"},
            403,
            "read-only",
        ),
    ],
)
def test_post_bodies(server: str, data, headers: dict, status: int, words: str) -> None:
    response = requests.post(server + "/sparql", data=data, headers={**JSON, **headers})
    assert response.status_code == status, response.text[:300]
    assert words in _message(response)


def test_a_query_in_the_url_and_in_the_body_is_given_twice(server: str) -> None:
    for data, content_type in (
        (ASK, "application/sparql-query"),
        ("query=ASK+%7B%7D", "application/x-www-form-urlencoded"),
    ):
        response = requests.post(
            server + "/sparql?query=ASK%20%7B%7D",
            data=data,
            headers={**JSON, "Content-Type": content_type},
        )
        assert response.status_code == 400
        assert "the parameter query is given 2 times" in _message(response)


def test_a_form_post_counts_its_url_parameters(server: str) -> None:
    response = requests.post(server + "/sparql?format=csv", data={"query": "SELECT (1 AS ?one) {}"})
    assert response.status_code == 200
    assert response.text.splitlines() == ["one", "1"]


def test_query_and_canned_exclude_each_other(server: str) -> None:
    response = requests.get(
        server + "/sparql", params={"query": ASK, "canned": "stats"}, headers=JSON
    )
    assert response.status_code == 400
    assert "give one of the parameters canned and query, not both" in _message(response)


def test_a_query_string_that_is_not_utf8_is_400(server: str) -> None:
    response = requests.get(server + "/records.json?q=%FF", headers=JSON)
    assert response.status_code == 400
    assert "the query string is not percent-encoded UTF-8" in _message(response)


def test_a_post_with_nothing_in_it_reads_its_url(server: str) -> None:
    response = requests.post(server + "/sparql", params={"query": ASK}, headers=JSON)
    assert response.status_code == 200 and response.json()["boolean"] is True


def test_routing_answers_first(server: str) -> None:
    """A wrong method is 405 and an unknown path 404, whatever the body."""
    assert (
        requests.put(
            server + "/sparql", data="x", headers={"Content-Type": "text/plain"}
        ).status_code
        == 405
    )
    assert requests.get(server + "/nowhere?q=1&q=2").status_code == 404
