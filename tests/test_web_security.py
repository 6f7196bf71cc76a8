"""The app against hostile clients and hostile data: security headers, CORS only for reads,
no write over HTTP (in this process, Flask's test client), no path traversal (raw paths to a
real server), and no script from a record's values (checked in Chromium)."""

from __future__ import annotations

import http.client
import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests

from helpers import DATA, SEED_ID, SEED_RECORD, SEED_SOURCE
from helpers.servers import running_server
from helpers.variants import break_file, setter

RECORD = f"/record/{SEED_ID}"
PAGES = [
    "/",
    "/records.json",
    "/records.csv",
    RECORD,
    RECORD + ".ttl",
    "/sparql",
    "/sparql?query=ASK%7B%7D",
    "/static/style.css",
    "/healthz",
    "/record/no-such-record",
    "/nothing/here",
]


@pytest.mark.parametrize("path", PAGES)
def test_security_headers_on_every_response(client, path: str) -> None:
    response = client.get(path)
    csp = response.headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))

    def effective(name: str) -> str:  # a directive not given falls back to default-src
        return directives.get(name, directives["default-src"])

    assert "unsafe" not in csp  # no 'unsafe-inline', no 'unsafe-eval'
    assert directives["frame-ancestors"] == "'none'"
    assert effective("object-src") == "'none'"
    if response.mimetype == "text/html":  # a page runs our own scripts alone
        assert effective("script-src") == "'self'"
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["Cross-Origin-Opener-Policy"] == "same-origin"
    else:  # data (results, RDF, JSON, CSS) loads and runs nothing, wherever it is shown
        assert directives == {"default-src": "'none'", "frame-ancestors": "'none'"}
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Access-Control-Allow-Origin"] == "*"  # GET only reads


def test_a_304_of_a_page_keeps_the_pages_policy(client) -> None:
    """A browser merges a 304's headers into the page it kept: a 304 (which has no
    Content-Type) must not bring data's policy, under which the page's images and styles
    would not load."""
    page = client.get(RECORD)
    again = client.get(RECORD, headers={"If-None-Match": page.headers["ETag"]})
    assert again.status_code == 304
    assert again.headers["Content-Security-Policy"] == page.headers["Content-Security-Policy"]
    assert "img-src 'self'" in again.headers["Content-Security-Policy"]


def test_no_inline_script_or_handler_in_the_pages(client) -> None:
    for path in [
        "/",
        RECORD,
        "/sparql",
        "/sparql?canned=results-for-model&model=NT+2.5B",
        f"/source/{Path(SEED_SOURCE).stem}",
        "/agent/claude",
    ]:
        html = client.get(path).text
        for tag in re.findall(r"<script\b[^>]*>", html):
            # Data blocks (a JSON type: schema.org, the SPARQL editor's settings) are never
            # executed; a script of ours comes from a static file.
            assert re.search(r'type="application/(ld\+)?json"', tag) or " src=" in tag, (path, tag)
        assert not re.search(r"<[^>]+\son[a-z]+\s*=", html), path
        assert "javascript:" not in html and " style=" not in html, path


def test_cors_for_reads_only(client) -> None:
    for method in ("HEAD", "GET"):
        response = client.open("/records.json", method=method)
        assert response.headers["Access-Control-Allow-Origin"] == "*"
    query = client.post(
        "/sparql", data={"query": "ASK {}"}, headers={"Accept": "application/sparql-results+json"}
    )
    assert query.status_code == 200
    assert query.headers["Access-Control-Allow-Origin"] == "*"  # a query by POST only reads
    bad = client.post("/sparql", data={"query": "SELECT WHERE"})
    assert bad.status_code == 400 and bad.headers["Access-Control-Allow-Origin"] == "*"
    preflight = client.options(
        "/sparql",
        headers={
            "Origin": "https://elsewhere.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "PUT" not in preflight.headers["Access-Control-Allow-Methods"]
    assert "content-type" in preflight.headers["Access-Control-Allow-Headers"].lower()
    # what a script may read of an answer: the row count and the cut
    assert {"X-Truncated", "X-Rows"} <= {
        h.strip() for h in query.headers["Access-Control-Expose-Headers"].split(",")
    }
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        response = client.open("/records.json", method=method)
        assert "Access-Control-Allow-Origin" not in response.headers, method
    assert "Access-Control-Allow-Origin" not in client.options(RECORD).headers


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "POST"])
@pytest.mark.parametrize(
    "path", ["/", RECORD, "/records.json", "/static/style.css", "/record/new-record", "/healthz"]
)
def test_no_write_over_http(client, method: str, path: str) -> None:
    response = client.open(
        path,
        method=method,
        data=b"kind: record\nid: x\n",
        headers={"Content-Type": "application/yaml"},
    )
    assert response.status_code == 405, (method, path, response.status_code)


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
def test_no_write_to_the_sparql_endpoint(client, method: str) -> None:
    assert client.open("/sparql", method=method, data="x").status_code == 405


UPDATE = "INSERT DATA { GRAPH <urn:x> { <urn:a> <urn:b> <urn:c> } }"


@pytest.mark.parametrize(
    "request_args",
    [
        {"method": "POST", "data": {"update": UPDATE}},
        {
            "method": "POST",
            "data": UPDATE,
            "headers": {"Content-Type": "application/sparql-update"},
        },
        {"method": "POST", "data": UPDATE, "headers": {"Content-Type": "application/sparql-query"}},
        {"method": "POST", "data": {"query": "DROP ALL"}},
        {"method": "GET", "query_string": {"query": "CLEAR DEFAULT"}},
        {"method": "GET", "query_string": {"update": UPDATE}},
        {"method": "GET", "query_string": {"query": "LOAD <http://127.0.0.1:1/x.ttl>"}},
    ],
    ids=[
        "form-update",
        "sparql-update",
        "update-as-query",
        "drop-all",
        "get-clear",
        "get-update",
        "load",
    ],
)
def test_sparql_updates_are_refused(client, request_args: dict) -> None:
    count = {"query": "SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }"}
    before = client.get("/sparql", query_string=count, headers={"Accept": "text/csv"}).text
    args = dict(request_args)
    response = client.open("/sparql", method=args.pop("method"), **args)
    assert response.status_code == 403, response.text[:300]
    assert "read-only" in response.text
    after = client.get("/sparql", query_string=count, headers={"Accept": "text/csv"}).text
    assert after == before


TRAVERSALS = [
    "/static/../../pyproject.toml",
    "/static/%2e%2e/%2e%2e/pyproject.toml",
    "/static/..%2f..%2fpyproject.toml",
    "/static/..%252f..%252fpyproject.toml",
    "/static/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/static//etc/passwd",
    "/static/%2fetc%2fpasswd",
    "/static/..\\..\\pyproject.toml",
    "/static/style.css/../../../pyproject.toml",
    "/record/..%2f..%2f..%2fetc%2fpasswd",
    "/record/../../../etc/passwd",
    "/record/%2e%2e/%2e%2e/etc/passwd.ttl",
    "/source/..%2f..%2fdata%2fsources",
    "/records.%2e%2e%2fpyproject",
    "/../../../../etc/passwd",
    "/%2e%2e/%2e%2e/etc/passwd",
    "//etc/passwd",
]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_no_path_traversal(served, path: str) -> None:
    # http.client sends the path exactly as written (requests would normalize "../").
    where = urlsplit(served.url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read().decode("utf-8", "replace")
    finally:
        connection.close()
    assert "root:x:0:0" not in body and "[project]" not in body and "kind: source" not in body
    assert response.getheader("Content-Security-Policy")
    if response.status == 308:  # "//" merged into "/": a redirect within the site, to a 404
        location = response.getheader("Location")
        assert location.startswith((served.url + "/", "/")) and ".." not in location
        assert requests.get(requests.compat.urljoin(served.url, location)).status_code == 404
    else:
        assert response.status in (400, 404, 405), (path, response.status)


def test_static_files_are_served(client) -> None:
    response = client.get("/static/style.css")
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/css")


# -- hostile values in the data, in a real browser -------------------------------------------

TITLE = (
    "<script>window.__xss = 'title'</script>\"><img src=x onerror=\"window.__xss='img'\">"
    "<!--<script>"
)
QUOTE = "</script><script>window.__xss='quote'</script>'><img src=x onerror=alert(1)>"
SOURCE_TITLE = "\"><script>window.__xss='meta'</script><meta http-equiv=refresh content=0;url=//x>"
AGENT_LABEL = "<svg onload=\"window.__xss='svg'\"></svg>&amp; <b>bold</b>"


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory):
    """`kg serve` over data whose record, source and agent hold markup."""
    root = tmp_path_factory.mktemp("hostile-web")
    data = root / "data"
    shutil.copytree(DATA, data)
    break_file(data, SEED_RECORD, setter("title", value=TITLE))
    break_file(data, SEED_RECORD, setter("locator", "quote", value=QUOTE))
    break_file(data, SEED_SOURCE, setter("title", value=SOURCE_TITLE))
    break_file(data, "agents/claude.yaml", setter("label", value=AGENT_LABEL))
    with running_server(root) as served:
        yield served.url


@pytest.fixture
def watched(page):
    """A page that records every dialog, page error and CSP report."""
    events: list[str] = []
    page.on("dialog", lambda dialog: (events.append(f"dialog {dialog.message}"), dialog.dismiss()))
    page.on("pageerror", lambda error: events.append(f"pageerror {error}"))
    page.on(
        "console",
        lambda message: (
            events.append(f"console {message.text}")
            if "Content Security Policy" in message.text
            else None
        ),
    )
    return page, events


def assert_nothing_ran(page, events: list[str]) -> None:
    assert page.evaluate("window.__xss") is None
    assert events == []
    assert page.locator("img[src=x]").count() == 0
    # the markup's own element (our pages draw SVG charts and icons, never with a handler)
    assert page.locator("svg[onload]").count() == 0
    # Data blocks, and scripts of ours from static files (the "Copy BibTeX" button, the
    # SPARQL editor) only.
    scripts = page.locator("script").evaluate_all(
        "els => els.map(e => e.src ? new URL(e.src).pathname : e.type)"
    )
    assert all(
        s in ("application/ld+json", "application/json") or s.startswith("/static/")
        for s in scripts
    ), scripts


@pytest.mark.browser
def test_markup_in_a_record_is_shown_as_text(hostile_server: str, watched) -> None:
    page, events = watched
    page.goto(f"{hostile_server}{RECORD}")
    for summary in page.locator("details > summary").all():
        summary.click()
    assert_nothing_ran(page, events)
    assert page.inner_text("h1") == TITLE
    assert page.title().startswith(TITLE)
    body = page.inner_text("body")
    assert QUOTE in body and SOURCE_TITLE in body and AGENT_LABEL in body
    assert page.locator("meta[name=citation_title]").get_attribute("content") == SOURCE_TITLE
    assert page.locator("meta[http-equiv]").count() == 0
    data = page.locator("script[type='application/ld+json']").evaluate("e => JSON.parse(e.text)")
    assert data["name"] == TITLE and data["citation"]["name"] == SOURCE_TITLE
    # Everything after the JSON-LD block is still there: "<!--<script>" did not swallow it.
    assert page.locator("body > footer").count() == 1


@pytest.mark.browser
@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/?model=NT+2.5B", TITLE),  # the index, on the page the record is on
        ("/?q=%3Cscript%3Ewindow.__xss%3D1%3C%2Fscript%3E", "<script>window.__xss=1</script>"),
        (f"/source/{Path(SEED_SOURCE).stem}", SOURCE_TITLE),
        ("/agent/claude", AGENT_LABEL),
        (
            "/sparql?query=SELECT+%3Ft+WHERE+%7B+%3Fr+%3Chttp%3A%2F%2Fpurl.org%2Fdc%2Fterms%2Ftitle%3E+%3Ft+%7D",
            TITLE,
        ),
    ],
    ids=["index", "search", "source", "agent", "sparql"],
)
def test_markup_on_other_pages_is_shown_as_text(
    hostile_server: str,
    watched,
    path: str,
    shown: str,
) -> None:
    page, events = watched
    page.goto(hostile_server + path)
    assert_nothing_ran(page, events)
    assert shown in page.inner_text("body")


@pytest.mark.browser
def test_markup_in_the_editors_results_is_shown_as_text(hostile_server: str, watched) -> None:
    """The editor's own table (YASR) of a query run in the browser. Its sanitizer parses
    each value in an inert document, where Chromium reports the inline handler it will never
    run as a CSP violation: what must hold is that nothing ran and no element of the markup
    reached the page."""
    page, events = watched
    page.goto(f"{hostile_server}/sparql")
    page.wait_for_selector("#yasgui .CodeMirror")
    query = "SELECT ?t WHERE { ?r <http://purl.org/dc/terms/title> ?t }"
    page.evaluate(
        "q => document.querySelector('#yasgui .CodeMirror').CodeMirror.setValue(q)", query
    )
    page.locator("#yasgui .yasqe_queryButton").click()
    page.locator("#yasgui table.dataTable tbody tr").first.wait_for()
    page.wait_for_load_state("networkidle")
    cells = page.locator("#yasgui table.dataTable tbody td").all_inner_texts()
    assert TITLE in cells
    # dialogs and page errors, not the sanitizer's CSP console report
    assert_nothing_ran(page, [e for e in events if not e.startswith("console ")])


@pytest.mark.browser
def test_a_query_made_javascript_iri_is_no_link(hostile_server: str, watched) -> None:
    page, events = watched
    query = "SELECT ?x WHERE { BIND(IRI(\"javascript:window.__xss='link'\") AS ?x) }"
    page.goto(hostile_server + "/sparql?" + requests.compat.urlencode({"query": query}))
    cell = page.locator("table.results td").first
    assert cell.inner_text() == "javascript:window.__xss='link'"
    assert cell.locator("a").count() == 0
    assert_nothing_ran(page, events)
