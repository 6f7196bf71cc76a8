"""The SPARQL page's editor (YASGUI, vendored) in Chromium against a real `kg serve`: it
runs a canned query on our /sparql and shows its table, asks nothing of another host,
logs no console error under the Content Security Policy, and without JavaScript the page
is the plain form."""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from playwright.sync_api import expect

from helpers import DATA
from helpers.servers import running_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> str:
    root = tmp_path_factory.mktemp("editor")
    shutil.copytree(DATA, root / "data")
    with running_server(root) as served:
        yield served.url


def test_the_editor_runs_a_canned_query_and_shows_its_table(
    page, site: str, tmp_path: Path
) -> None:
    errors, hosts = [], set()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: hosts.add(urlsplit(r.url).netloc))
    page.goto(f"{site}/sparql")
    page.wait_for_selector("#yasgui .CodeMirror")
    assert page.locator("form.sparql").is_hidden()  # the editor stands in for the form
    page.locator("form.canned[data-query=stats] button.open-in-editor").click()
    assert "Registry statistics" in page.locator("#yasgui .CodeMirror").inner_text()
    page.locator("#yasgui .yasqe_queryButton").click()
    cells = page.locator("#yasgui table.dataTable tbody tr").first.locator("td")
    cells.first.wait_for()
    # the same query through the endpoint itself, as JSON
    text = requests.get(
        f"{site}/sparql",
        params={"canned": "stats"},
        headers={"Accept": "application/sparql-results+json"},
        timeout=30,
    )
    [row] = text.json()["results"]["bindings"]
    shown = " ".join(cells.all_inner_texts())
    assert row["records"]["value"] in shown and row["triples"]["value"] in shown
    # values as values: the number alone, its datatype on hover, as the server's table
    assert "^^" not in shown and "XMLSchema" not in shown
    titles = page.locator("#yasgui table.dataTable tbody td span[title]").evaluate_all(
        "els => els.map(e => e.title)"
    )
    assert "xsd:" + row["records"]["datatype"].rsplit("#", 1)[-1] in titles
    page.screenshot(path=str(tmp_path / "editor.png"), full_page=True)
    # prefix completion offers the registry's own prefixes
    page.evaluate("document.querySelector('#yasgui .CodeMirror').CodeMirror.setValue('')")
    page.locator("#yasgui .CodeMirror").click()
    page.keyboard.type("PREFIX kgv")
    # the list is offered as the word is typed: "kg" lists kg: first, then "kgv" kgv:
    expect(page.locator(".CodeMirror-hints li").first).to_have_text(
        "kgv: <https://w3id.org/claimgraph/vocab#>"
    )
    assert hosts == {urlsplit(site).netloc}, hosts  # no CDN, no LOV, no prefix.cc
    assert not errors, errors


def test_a_query_in_the_address_is_run_once_by_the_server(page, site: str) -> None:
    """The page for ``?query=`` shows the server's table and the query in the editor; the
    editor does not send the query again."""
    asked = []
    page.on(
        "request", lambda r: asked.append(r.method) if urlsplit(r.url).path == "/sparql" else None
    )
    query = "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } LIMIT 3"
    page.goto(f"{site}/sparql?" + requests.compat.urlencode({"query": query}))
    page.wait_for_selector("#yasgui .CodeMirror")
    page.wait_for_load_state("networkidle")
    assert page.locator("section#results table.results tbody tr").count() == 3
    assert "GRAPH ?g" in page.locator("#yasgui .CodeMirror").inner_text()
    assert asked == ["GET"], asked  # the page itself, nothing from the editor
    assert page.locator("#yasgui table.dataTable").count() == 0


def test_without_javascript_the_page_is_the_form(browser, site: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site}/sparql")
    assert page.locator("form.sparql textarea[name=query]").is_visible()
    assert page.locator("#yasgui").count() == 0
    page.locator("form.sparql button[type=submit]").click()
    page.wait_for_url("**/sparql?query=*")
    assert page.locator("table.results tbody tr").count() > 0
    context.close()


def test_one_result_view_the_servers_table_then_the_editors(page, site: str) -> None:
    page.goto(f"{site}/sparql?canned=stats")
    page.wait_for_selector("#yasgui .CodeMirror")
    assert page.locator("#results table.results").is_visible()  # the server ran it
    assert page.locator("#yasgui .yasr").is_hidden()  # no empty pane above it
    page.locator("#yasgui .yasqe_queryButton").click()
    page.locator("#yasgui table.dataTable tbody tr").first.wait_for()
    assert page.locator("#yasgui .yasr").is_visible()
    assert page.locator("#results").is_hidden()
