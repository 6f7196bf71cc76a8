"""HTTP caching (kg/web/http/cache.py, docs/deployment.md): every answer from data carries a
strong ETag, Last-Modified, Vary and Cache-Control; a repeated conditional request is 304
for every kind of page and format; a `kg load` or a `kg release` changes the tags of what
it changes and the next answer is the new content; `?release=` answers are immutable; dumps
answer Range; gzip is negotiated; the response cache stays within its budget.

One registry (the bundled data, loaded and released as R1) and the app over it, in this
process; the last test asks a real `kg serve` with requests.
"""

from __future__ import annotations

import gzip
import re
import shutil
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
import requests
from click.testing import CliRunner

from helpers import BASE, DATA, OTHER_ID, SEED_ID
from helpers.web import app_over
from kg.cli import main
from kg.web.http.cache import DATED, LIVE, CachedRequest, cache_key

R1, R2 = "2026-12-01", "2026-12-02"
MARK = "scope note changed by test_http_cache"
SPARQL_JSON = "application/sparql-results+json"
ASK = "ASK { ?s ?p ?o }"


class Registry:
    def __init__(self, root: Path):
        self.root = root
        shutil.copytree(DATA, root / "data")
        self.releases: dict[str, str] = {}

    def kg(self, *args: str) -> str:
        result = CliRunner().invoke(
            main,
            [
                "--store",
                str(self.root / "store"),
                "--base",
                BASE,
                "--data",
                str(self.root / "data"),
                *args,
            ],
        )
        assert result.exit_code == 0, result.output
        return result.stdout

    def release(self, day: str) -> str:
        ident = self.kg("release", "--date", day).strip().splitlines()[-1]
        self.releases[day] = ident
        return ident


@pytest.fixture(scope="module")
def registry(tmp_path_factory) -> Registry:
    reg = Registry(tmp_path_factory.mktemp("http-cache"))
    reg.kg("load")
    reg.release(R1)
    return reg


@pytest.fixture(scope="module")
def app(registry):
    # a small sitemap: /sitemap.xml is an index of /sitemap-N.xml
    with app_over(registry.root, query_timeout=5, sitemap_urls=40) as app:
        yield app


def urls(app, registry: Registry) -> list[tuple[str, dict[str, str]]]:
    """A request for every kind of page and format the app serves."""
    client = app.test_client()
    seed = f"/record/{SEED_ID}"
    triples = client.get(f"{seed}.nt").text
    nodes = {
        kind: name
        for kind, name in re.findall(
            rf"<{re.escape(BASE)}(source|agent|evaluation|review|run)/([^>]+)>", triples
        )
    }
    rows = app.extensions["kg"].catalog.rows()
    imported = next(row for row in rows if row.benchmark)
    benchmark = imported.benchmark.removeprefix(f"{BASE}benchmark/")
    model = f"/model/{quote('mistralai/mistral-7b-instruct-v0.3', safe='')}"
    release = registry.releases[R1]
    found = [(seed, {}), (seed, {"Accept": "text/turtle"}), (f"{seed}?release={release}", {})]
    found += [
        (f"{seed}.{suffix}", {})
        for suffix in ("ttl", "jsonld", "nt", "nq", "rdf", "csl.json", "bib", "ris", "wa.jsonld")
    ]
    found += [(f"/{kind}/{name}", {}) for kind, name in sorted(nodes.items())]
    found += [
        (f"/record/{imported.id}.eee.json", {}),
        (f"/record/{imported.id}", {}),
        (f"/benchmark/{benchmark}", {}),
        (f"/benchmark/{benchmark}.ttl", {}),
        *[(f"/benchmark/{benchmark}/leaderboard.{fmt}", {}) for fmt in ("csv", "json", "jsonld")],
        (model, {}),
        (f"{model}.ttl", {}),
        ("/", {}),
        ("/records", {}),
        ("/records?q=memory", {}),
        ("/records.json", {}),
        ("/records.csv", {}),
        ("/benchmarks", {}),
        ("/models.json?q=a&sort=name", {}),
        ("/sources.csv", {}),
        ("/agents", {}),
        ("/agents.json", {}),
        ("/source/crfm-helm-lite/suite", {}),
        ("/source/crfm-helm-lite/suite.csv", {}),
        (f"/compare?record={SEED_ID}&record={OTHER_ID}", {}),
        (f"/compare.csv?record={SEED_ID}&record={OTHER_ID}", {}),
        ("/disagreements", {}),
        ("/sparql", {}),
        (f"/sparql?query={quote(ASK)}", {"Accept": SPARQL_JSON}),
        (f"/sparql?query={quote(ASK)}&release={release}", {"Accept": SPARQL_JSON}),
        ("/sparql?canned=stats", {"Accept": "text/csv"}),
        ("/sparql/prefixes.json", {}),
        (f"/release/{release}", {}),
        (f"/release/{release}.ttl", {}),
        (f"/release/{release}/manifest.json", {}),
        ("/feed.atom", {}),
        (f"/feed/record/{SEED_ID}.atom", {}),
        ("/sitemap.xml", {}),
        ("/sitemap-1.xml", {}),
        ("/robots.txt", {}),
        ("/.well-known/void", {}),
        ("/.well-known/void.ttl", {}),
        ("/context.jsonld", {}),
        ("/ns", {}),
        ("/ns.ttl", {}),
        ("/dumps/manifest.json", {}),
        ("/static/style.css", {}),
    ]
    return found


@pytest.fixture(scope="module")
def every_url(app, registry):
    return urls(app, registry)


def test_the_list_asks_for_every_route(app, every_url) -> None:
    adapter = app.url_map.bind("claimgraph.example")
    asked = {adapter.match(path.split("?")[0])[0] for path, _ in every_url}
    routes = {rule.endpoint for rule in app.url_map.iter_rules() if "GET" in rule.methods}
    # /ontology is a redirect to /ns, no answer from data (tests/test_linked_data.py)
    assert routes - asked == {"healthz", "ontology"}


def test_a_repeated_conditional_request_is_304_for_every_page_and_format(app, every_url) -> None:
    client = app.test_client()
    for path, headers in every_url:
        first = client.get(path, headers=headers)
        assert first.status_code == 200, (path, first.status_code, first.text[:300])
        tag = first.headers.get("ETag")
        assert tag and not tag.startswith("W/"), path  # strong
        again = client.get(path, headers={**headers, "If-None-Match": tag})
        assert again.status_code == 304, path
        assert again.data == b"" and again.headers["ETag"] == tag, path
        head = client.head(path, headers={**headers, "If-None-Match": tag})
        assert head.status_code == 304, path
        if first.headers.get("Last-Modified"):
            since = client.get(
                path, headers={**headers, "If-Modified-Since": first.headers["Last-Modified"]}
            )
            assert since.status_code == 304, path
        stale = client.get(path, headers={**headers, "If-None-Match": '"not-this-one"'})
        assert stale.status_code == 200 and stale.data == first.data, path
        if first.headers.get("Accept-Ranges") == "bytes":
            continue  # a file (a dump, a release's file, static): its own validators
        assert first.headers["Last-Modified"], path
        assert {"Accept", "Accept-Encoding"} <= {
            v.strip() for v in first.headers["Vary"].split(",")
        }, path
        assert "max-age=" in first.headers["Cache-Control"], path


def test_head_answers_the_headers_of_get(app, every_url) -> None:
    client = app.test_client()
    for path, headers in every_url[:12]:
        got, head = client.get(path, headers=headers), client.head(path, headers=headers)
        assert head.status_code == 200 and head.data == b""
        for name in ("ETag", "Content-Type", "Content-Length", "Cache-Control"):
            assert head.headers.get(name) == got.headers.get(name), (path, name)


def test_a_kept_answer_is_the_answer_the_view_gave(registry) -> None:
    with app_over(registry.root) as app:
        client = app.test_client()
        path = f"/record/{SEED_ID}"
        first, second = client.get(path), client.get(path)
        assert (first.headers["X-Cache"], second.headers["X-Cache"]) == ("miss", "hit")
        assert second.data == first.data
        assert second.headers["ETag"] == first.headers["ETag"]
        assert second.headers["Content-Type"] == first.headers["Content-Type"]
    with app_over(registry.root, cache_mb=0) as app:  # no cache: still validated
        client = app.test_client()
        first, second = client.get(path), client.get(path)
        assert second.headers["X-Cache"] == "miss" and second.data == first.data
        assert client.get(path, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304


def test_the_response_cache_stays_within_its_budget(registry, every_url) -> None:
    with app_over(registry.root, cache_mb=1) as app:
        client = app.test_client()
        for path, headers in every_url:
            client.get(path, headers=headers)
        for number in range(60):
            client.get(f"/records?q=memory&page_size={number}")
        stats = app.extensions["kg"].response_cache.stats()
        assert 0 < stats["bytes"] <= 2**20
        assert stats["entries"] > 1


def test_gzip_is_negotiated(app) -> None:
    client = app.test_client()
    path = f"/record/{SEED_ID}.ttl"
    plain = client.get(path)
    packed = client.get(path, headers={"Accept-Encoding": "gzip, deflate"})
    refused = client.get(path, headers={"Accept-Encoding": "gzip;q=0, identity"})
    assert "Content-Encoding" not in plain.headers
    assert packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.data) == plain.data
    assert len(packed.data) < len(plain.data)
    assert "Content-Encoding" not in refused.headers and refused.data == plain.data
    # each encoding is its own representation, with its own tag
    assert packed.headers["ETag"] != plain.headers["ETag"]
    assert (
        client.get(
            path, headers={"Accept-Encoding": "gzip", "If-None-Match": packed.headers["ETag"]}
        ).status_code
        == 304
    )


def test_release_answers_are_immutable_and_live_ones_are_not(app, registry) -> None:
    client = app.test_client()
    release = registry.releases[R1]
    for path, headers in [
        (f"/record/{SEED_ID}.ttl?release={release}", {}),
        (f"/record/{SEED_ID}.jsonld?release={release}", {}),
        (f"/sparql?query={quote(ASK)}&release={release}", {"Accept": SPARQL_JSON}),
        (f"/release/{release}/manifest.json", {}),
    ]:
        control = client.get(path, headers=headers).headers["Cache-Control"]
        assert "immutable" in control and "max-age=31536000" in control, path
    for path in [
        f"/record/{SEED_ID}",
        f"/record/{SEED_ID}.ttl",
        f"/record/{SEED_ID}?release={release}",
        "/records",
    ]:
        control = client.get(path).headers["Cache-Control"]
        assert "immutable" not in control and "max-age=60" in control, path


def test_a_citation_expires_at_midnight(app) -> None:
    answer = app.test_client().get(f"/record/{SEED_ID}.bib")
    age = int(re.search(r"max-age=(\d+)", answer.headers["Cache-Control"]).group(1))
    now = datetime.now(UTC)
    midnight = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    assert age <= (midnight - now).total_seconds() + 1
    assert answer.headers["ETag"] != app.test_client().get(f"/record/{SEED_ID}.ttl").headers["ETag"]


def test_a_citations_tag_and_cache_key_change_with_the_day() -> None:
    """Across midnight (the same request, the same store, the next day): a citation's tag,
    its Last-Modified and the response cache's key change, since its body prints the
    access date; a live page's tag and Last-Modified do not."""
    written = datetime(2026, 12, 1, 15, 30, tzinfo=UTC)
    days = [
        CachedRequest(
            ("code", "v-1", "r-1"),
            "https://r.example/record/a.bib",
            written,
            True,
            date(2026, 12, 1) + timedelta(days=n),
        )
        for n in (0, 1)
    ]
    today, tomorrow = days
    assert today.tag(DATED) != tomorrow.tag(DATED)
    assert today.tag(LIVE) == tomorrow.tag(LIVE)
    assert today.last_modified(DATED) == written  # written after that day's midnight
    assert tomorrow.last_modified(DATED) == datetime(2026, 12, 2, tzinfo=UTC)
    assert today.last_modified(LIVE) == tomorrow.last_modified(LIVE) == written
    assert cache_key(today) != cache_key(tomorrow)


def test_range_on_a_dump(app) -> None:
    client = app.test_client()
    manifest = client.get("/dumps/manifest.json").json
    name = sorted(manifest["files"])[0]
    whole = client.get(f"/dumps/{name}")
    assert whole.status_code == 200 and whole.headers["Accept-Ranges"] == "bytes"
    part = client.get(f"/dumps/{name}", headers={"Range": "bytes=10-109"})
    assert part.status_code == 206
    assert part.data == whole.data[10:110]
    assert part.headers["Content-Range"] == f"bytes 10-109/{len(whole.data)}"
    resumed = client.get(
        f"/dumps/{name}", headers={"Range": "bytes=100-", "If-Range": whole.headers["ETag"]}
    )
    assert resumed.status_code == 206 and resumed.data == whole.data[100:]
    beyond = client.get(f"/dumps/{name}", headers={"Range": f"bytes={len(whole.data) + 5}-"})
    assert beyond.status_code == 416


def wait_for_new_answer(client, path: str, tag: str) -> object:
    """The answer once the app serves the new version (it looks at most once a second and
    switches when the new version's index is built)."""
    deadline = time.monotonic() + 120
    while True:
        answer = client.get(path, headers={"If-None-Match": tag})
        if answer.status_code != 304 or time.monotonic() > deadline:
            return answer
        time.sleep(0.3)


def test_a_load_changes_the_tag_and_a_release_the_tags_of_pages_that_list_releases(
    registry,
) -> None:
    with app_over(registry.root) as app:
        client = app.test_client()
        record, listing, at_r1 = (
            f"/record/{OTHER_ID}",
            "/records",
            f"/record/{SEED_ID}.ttl?release={registry.releases[R1]}",
        )
        before = {path: client.get(path) for path in (record, listing, at_r1)}
        assert MARK not in before[record].text
        assert client.get(record).headers["X-Cache"] == "hit"

        path = registry.root / "data" / "records" / f"{OTHER_ID}.yaml"
        text = path.read_text()
        assert "\nscope_note:" in text
        path.write_text(re.sub(r"\nscope_note:.*", f"\nscope_note: {MARK}", text, count=1))
        registry.kg("load")
        after = wait_for_new_answer(client, record, before[record].headers["ETag"])
        assert after.status_code == 200 and MARK in after.text
        assert after.headers["ETag"] != before[record].headers["ETag"]
        assert after.headers["X-Cache"] == "miss"
        # what a release holds did not change: its tag neither
        same = client.get(at_r1, headers={"If-None-Match": before[at_r1].headers["ETag"]})
        assert same.status_code == 304

        page = client.get(record)
        assert registry.releases[R1] in page.text
        ident = registry.release(R2)
        changed = client.get(record, headers={"If-None-Match": page.headers["ETag"]})
        assert changed.status_code == 200 and ident in changed.text
        assert (
            client.get(at_r1, headers={"If-None-Match": before[at_r1].headers["ETag"]}).status_code
            == 304
        )


def test_a_real_server_answers_gzip_and_304_to_requests(server) -> None:
    path = f"{server}/record/{SEED_ID}"
    first = requests.get(path, timeout=30)  # requests asks for gzip and unpacks it
    assert first.status_code == 200 and first.headers["Content-Encoding"] == "gzip"
    assert SEED_ID in first.text
    again = requests.get(path, headers={"If-None-Match": first.headers["ETag"]}, timeout=30)
    assert again.status_code == 304 and again.content == b""
    since = requests.get(
        path, timeout=30, headers={"If-Modified-Since": first.headers["Last-Modified"]}
    )
    assert since.status_code == 304
