"""A model's page links out to where its node does (its Hugging Face repository, where its
files name one: docs/links.md), in the app in this process over the bundled data; a model
whose files name no repository links nowhere."""

from __future__ import annotations

import re
from urllib.parse import quote

import rdflib

FOAF_PAGE = rdflib.URIRef("http://xmlns.com/foaf/0.1/page")


def pages_of(client, ident: str) -> set[str]:
    """The model node's foaf:page links, from its Turtle."""
    answer = client.get(f"/model/{quote(ident, safe='')}", headers={"Accept": "text/turtle"})
    graph = rdflib.Graph().parse(data=answer.get_data(as_text=True), format="turtle")
    return {str(o) for s, o in graph.subject_objects(FOAF_PAGE) if "/model/" in str(s)}


def test_a_model_page_links_to_the_pages_its_node_names(client) -> None:
    ident = "mistralai/mistral-7b-instruct-v0.3"
    pages = pages_of(client, ident)
    assert pages == {"https://huggingface.co/mistralai/Mistral-7B-Instruct-v0.3"}
    html = client.get(f"/model/{quote(ident, safe='')}").get_data(as_text=True)
    shown = re.search(r'<p class="model-links">(.*?)</p>', html, re.S)
    assert shown is not None
    assert set(re.findall(r'href="([^"]+)" rel="external"', shown.group(1))) == pages
    assert "Hugging Face" in shown.group(1)


def test_a_model_whose_files_name_no_repository_links_nowhere(client) -> None:
    ident = "openai/gpt-3.5-turbo-0613"
    assert pages_of(client, ident) == set()
    html = client.get(f"/model/{quote(ident, safe='')}").get_data(as_text=True)
    assert "<h1>" in html and 'class="model-links"' not in html
