"""The one negotiation function, as a table of Accept headers and overrides."""

from __future__ import annotations

import pytest

from kg.rdf.negotiation import NotAcceptable, negotiate, split_suffix

OFFERED = ["text/html", "text/turtle", "application/ld+json"]


@pytest.mark.parametrize(
    ("accept", "override", "expected"),
    [
        ("", None, "text/html"),
        ("*/*", None, "text/html"),
        ("text/*", None, "text/html"),
        ("application/*", None, "application/ld+json"),
        ("text/turtle", None, "text/turtle"),
        ("text/turtle;q=0.4, application/ld+json;q=0.8", None, "application/ld+json"),
        ("text/html;q=0, */*;q=0.1", None, "text/turtle"),
        ("text/html", "ttl", "text/turtle"),
        ("text/html", "text/turtle", "text/turtle"),
        ("image/png", None, NotAcceptable),
        ("text/html", "png", NotAcceptable),
        ("text/html", "csv", NotAcceptable),
    ],
)
def test_negotiate(accept: str, override: str | None, expected) -> None:
    header = accept  # as a route passes it: the header's text
    if expected is NotAcceptable:
        with pytest.raises(NotAcceptable) as info:
            negotiate(header, OFFERED, override)
        assert info.value.http_status == 406
        assert "text/turtle" in str(info.value)
    else:
        assert negotiate(header, OFFERED, override) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("x.ttl", ("x", "ttl")),
        ("x.v2", ("x.v2", None)),
        ("x", ("x", None)),
        (".ttl", (".ttl", None)),
        ("a.b.jsonld", ("a.b", "jsonld")),
        ("x.csl.json", ("x", "csl.json")),
        ("x.json", ("x", "json")),
        ("x.bib", ("x", "bib")),
        ("a.b.ris", ("a.b", "ris")),
        (".csl.json", (".csl", "json")),
    ],
)
def test_split_suffix(name: str, expected) -> None:
    assert split_suffix(name) == expected
