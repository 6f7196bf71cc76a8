"""A record page shows what else an upstream file says of a result as nested lists, not raw
JSON: every value the record's kept remainder holds is on the page, as the file writes it
(kg/read/json_outline.py), in the app in this process over the bundled data."""

from __future__ import annotations

import html
import re

import rdflib

from kg.model.upstream.jsondoc import JsonNumber, loads, walk

KG = "https://w3id.org/claimgraph/ns#"


def remainders(client, ident: str) -> list[str]:
    """The record's and its evaluation's kept remainders (JSON text), from its Turtle."""
    turtle = client.get(f"/record/{ident}", headers={"Accept": "text/turtle"})
    graph = rdflib.Graph().parse(data=turtle.get_data(as_text=True), format="turtle")
    return [str(o) for o in graph.objects(None, rdflib.URIRef(KG + "upstreamRemainder"))]


def test_the_upstream_remainder_is_lists_holding_every_value_as_written(client) -> None:
    found = client.get("/records.json", query_string={"q": "helm", "limit": "40"}).get_json()
    checked = 0
    for row in found["rows"]:
        kept = remainders(client, row["id"])
        if not kept:
            continue
        page = client.get(f"/record/{row['id']}").get_data(as_text=True)
        shown = re.findall(r'<details class="upstream-json">(.*?)</details>', page, re.S)
        assert shown and all("<pre>" not in part for part in shown)
        text = html.unescape(" ".join(shown))
        assert "json-outline" in " ".join(shown)
        for raw in kept:
            for _, value in walk(loads(raw.encode())):
                if isinstance(value, JsonNumber):
                    assert f"<code>{value.lexeme}</code>" in text, value.lexeme
                elif isinstance(value, str):
                    assert value in text, value
        checked += 1
    assert checked >= 5
