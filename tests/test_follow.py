"""Following the registry: Atom feeds paged as RFC 5005 archives (read by feedparser), VoID
(read by rdflib, its counts those of kg stats), the sitemap (every URL answers), and
tombstones (410 Gone, with the last release that held the record).

One registry goes through four steps, the app (in this process) reading each:

1. the sampled data, one run held back and one extra record, loaded and released (R1);
2. the run restored and the seed retracted, loaded (nothing released is removed);
3. the extra record's file removed, loaded: its address is gone;
4. released again (R2).
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

import feedparser
import pytest
from click.testing import CliRunner
from rdflib import Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDF

from helpers import BASE, DATA, SEED_ID, SEED_RECORD, copy_sampled
from helpers.web import app_over
from kg.cli import main

VOID = Namespace("http://rdfs.org/ns/void#")
KG = Namespace("https://w3id.org/claimgraph/ns#")
FH = "{http://purl.org/syndication/history/1.0}"
AT = "{http://purl.org/atompub/tombstones/1.0}"
ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
HELD_RUN = "nt-peak-memory-20261130t085235z-3ca60460"
EXTRA = "test-follow-extra-record"
CURATOR = "test-curator"
PAGE = 7
R1, R2 = "2026-12-01", "2026-12-03"
SOURCE = "saadat-fellay-2026-genomic-lm-efficiency"  # the seed's


def make_data(root: Path) -> Path:
    data = copy_sampled(root / "data")
    (data / "agents" / f"{CURATOR}.yaml").write_text(
        f"kind: agent\nid: {CURATOR}\nagent_type: person\nlabel: A test curator\n"
    )
    seed = (DATA / SEED_RECORD).read_text()
    (data / "records" / f"{EXTRA}.yaml").write_text(seed.replace(SEED_ID, EXTRA))
    shutil.move(data / "runs" / f"{HELD_RUN}.yaml", root / f"{HELD_RUN}.yaml")
    return data


class Registry:
    """The registry of the four steps: ``kg`` over it, and the app as each step leaves it."""

    def __init__(self, root: Path):
        self.root = root
        self.data = make_data(root)
        self.runner = CliRunner()
        self.steps: dict[int, dict] = {}

    def kg(self, *args: str) -> str:
        result = self.runner.invoke(
            main,
            ["--store", str(self.root / "store"), "--base", BASE, "--data", str(self.data), *args],
        )
        assert result.exit_code == 0, result.output
        return result.stdout

    def timelines(self) -> list[str]:
        """The timeline files in the index folder (the default, beside the store)."""
        return sorted(p.name for p in (self.root / "store-index").glob("*.timeline.sqlite"))

    def read(self, step: int) -> None:
        """What the app answers now, kept for the tests: the feeds, the sitemap, VoID."""
        timelines = self.timelines()
        with app_over(self.root, feed_page=PAGE, licence="https://example.org/licence") as app:
            client = app.test_client()
            seen = {
                "feed": read_feed(client, "/feed.atom"),
                "archive1": client.get("/feed.atom?archive=1").data,
                "seed": read_feed(client, f"/feed/record/{SEED_ID}.atom"),
                "extra": client.get(f"/record/{EXTRA}"),
                "extra_json": client.get(
                    f"/record/{EXTRA}", headers={"Accept": "application/json"}
                ),
                "extra_ttl": client.get(f"/record/{EXTRA}.ttl"),
                "extra_feed": read_feed(client, f"/feed/record/{EXTRA}.atom"),
                "source_feed": read_feed(client, f"/feed/source/{SOURCE}.atom"),
                "source_records": quoted_from(client, f"{BASE}source/{SOURCE}"),
                "sitemap": sitemap_urls(client),
                "void": client.get("/.well-known/void"),
                "seed_page": client.get(f"/record/{SEED_ID}").text,
            }
            with app_over(self.root, sitemap_urls=40) as small:
                seen["sitemap_parts"] = sitemap_urls(small.test_client())
        seen["timelines"] = (timelines, self.timelines())
        self.steps[step] = seen


def read_feed(client, path: str) -> dict:
    """The feed at ``path``: its subscription document, then every archive page by
    following ``prev-archive`` to the end (each parsed by feedparser, as a reader would)."""
    answer = client.get(path)
    assert answer.status_code == 200, answer.text
    assert answer.mimetype == "application/atom+xml"
    documents = [feedparser.parse(answer.data)]
    raw = [answer.data]
    while True:
        previous = [link.href for link in documents[-1].feed.links if link.rel == "prev-archive"]
        if not previous:
            break
        url = urlsplit(previous[0])
        answer = client.get(f"{url.path}?{url.query}")
        assert answer.status_code == 200
        documents.append(feedparser.parse(answer.data))
        raw.append(answer.data)
        assert ET.fromstring(answer.data).find(f"{FH}archive") is not None
    for document in documents:
        assert not document.bozo, document.bozo_exception
    entries = {}
    for document in documents:
        for entry in document.entries:
            entries.setdefault(entry.id, entry)
    tombstones = [
        t.get("ref") for body in raw for t in ET.fromstring(body).iter(f"{AT}deleted-entry")
    ]
    return {"documents": documents, "entries": entries, "tombstones": tombstones}


def quoted_from(client, source: str) -> set[str]:
    """The claims quoted from ``source``, as the SPARQL endpoint answers."""
    query = (
        "SELECT ?r WHERE { ?r <http://www.w3.org/ns/prov#wasQuotedFrom> "
        f"<{source}> ; a <{KG}Claim> }}"
    )
    answer = client.get(
        "/sparql",
        query_string={"query": query},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert answer.status_code == 200, answer.text
    return {b["r"]["value"] for b in answer.get_json()["results"]["bindings"]}


def sitemap_urls(client) -> list[str]:
    """Every URL the sitemap lists (through its index, when it is one)."""
    answer = client.get("/sitemap.xml")
    assert answer.status_code == 200
    root = ET.fromstring(answer.data)
    if root.tag == f"{SITEMAP}sitemapindex":
        urls = []
        for loc in root.iter(f"{SITEMAP}loc"):
            part = client.get(urlsplit(loc.text).path)
            assert part.status_code == 200
            urls += [u.text for u in ET.fromstring(part.data).iter(f"{SITEMAP}loc")]
        return urls
    assert root.tag == f"{SITEMAP}urlset"
    return [u.text for u in root.iter(f"{SITEMAP}loc")]


@pytest.fixture(scope="module")
def registry(tmp_path_factory) -> Registry:
    reg = Registry(tmp_path_factory.mktemp("follow"))
    reg.kg("load")
    reg.kg("release", "--date", R1, "--note", "first")
    reg.read(1)
    shutil.move(reg.root / f"{HELD_RUN}.yaml", reg.data / "runs" / f"{HELD_RUN}.yaml")
    reg.kg(
        "retract",
        SEED_ID,
        "--agent",
        CURATOR,
        "--reason",
        "the authors retracted it",
        "--at",
        "2026-12-02T10:00:00Z",
    )
    reg.kg("load")
    reg.read(2)
    (reg.data / "records" / f"{EXTRA}.yaml").unlink()
    reg.kg("load")
    reg.read(3)
    reg.kg("release", "--date", R2, "--note", "second: a record removed")
    reg.read(4)
    return reg


def kinds(feed: dict) -> dict[str, list]:
    found: dict[str, list] = {}
    for entry in feed["entries"].values():
        found.setdefault(entry.tags[0].term, []).append(entry)
    return found


def test_the_feed_pages_to_the_end_and_holds_each_entry_once(registry) -> None:
    feed = registry.steps[4]["feed"]
    documents = feed["documents"]
    assert len(documents) > 2  # the subscription document and archive pages
    assert len(documents[0].entries) == PAGE
    # every archive page is whole; entries are told apart by id
    assert all(len(d.entries) == PAGE for d in documents[1:])
    records = kinds(feed)["record"]
    # each record of the registry, and the removed one, was announced once
    with_removed = {f"{BASE}record/{EXTRA}", f"{BASE}record/{SEED_ID}"}
    assert with_removed <= {e.id for e in records}
    for entry in feed["entries"].values():
        assert entry.updated_parsed is not None
        assert any(link.rel == "alternate" and link.type == "text/html" for link in entry.links)


@pytest.mark.parametrize("step", [1, 2, 4])
def test_a_source_feed_holds_the_entries_about_its_records(registry, step: int) -> None:
    seen = registry.steps[step]
    feed, whole = kinds(seen["source_feed"]), kinds(seen["feed"])
    records = seen["source_records"]
    assert len(records) > 1
    # a record entry each of its records, and none of another source's
    assert {e.id for e in feed["record"]} == records
    # the seed's retraction (the registry's only change of standing), once made
    standing = {e.id for e in feed.get("standing", [])}
    assert standing == {e.id for e in whole.get("standing", [])}
    assert bool(standing) == (step > 1)


def test_the_feed_has_the_releases_the_retraction_and_the_new_run(registry) -> None:
    before, after = kinds(registry.steps[1]["feed"]), kinds(registry.steps[4]["feed"])
    assert [e.id for e in before["release"]] and "standing" not in before
    assert f"{BASE}activity/{HELD_RUN}" not in {e.id for e in before["run"]}
    releases = sorted(after["release"], key=lambda e: e.updated)
    assert [e.updated[:10] for e in releases] == [R1, R2]
    assert "1 record removed" in releases[1].summary
    assert "second: a record removed" in releases[1].title
    [retraction] = after["standing"]
    assert retraction.updated == "2026-12-02T10:00:00Z"
    assert "retracted" in retraction.title
    assert retraction.summary == "the authors retracted it"
    run = {e.id: e for e in after["run"]}[f"{BASE}activity/{HELD_RUN}"]
    assert "inconsistent" in run.title  # the fp32 run contradicts the claim
    # the record's own feed: its retraction, the runs on it, its first appearance
    seed = kinds(registry.steps[4]["seed"])
    assert [e.id for e in seed["standing"]] == [retraction.id]
    assert f"{BASE}activity/{HELD_RUN}" in {e.id for e in seed["run"]}
    assert [e.id for e in seed["record"]] == [f"{BASE}record/{SEED_ID}"]


def test_an_archive_page_of_released_entries_does_not_change(registry) -> None:
    """A load that adds entries (a run, a retraction) leaves the archive pages of what
    R1 released as they were: the new entries come after them."""
    assert registry.steps[1]["archive1"] == registry.steps[2]["archive1"]
    assert b"<fh:archive" in registry.steps[1]["archive1"]


def test_a_removed_record_answers_410_with_its_last_release(registry) -> None:
    assert registry.steps[1]["extra"].status_code == 200
    for step in (3, 4):
        seen = registry.steps[step]
        assert seen["extra"].status_code == 410
        assert seen["extra_ttl"].status_code == 410
        answer = seen["extra_json"].get_json()
        assert answer["status"] == 410
        details = {d["what"]: d for d in answer["details"]}
        last = details["Last release that held it"]
        release_id = last["link"].rsplit("/", 1)[1]
        assert release_id.startswith(R1)
        assert details["What it was"]["link"].endswith(f"?release={release_id}")
        assert "Peak memory" in details["What it was"]["text"]
        page = seen["extra"].text
        assert release_id in page and "Peak memory" in page
    when3 = {d["what"]: d for d in registry.steps[3]["extra_json"].get_json()["details"]}
    when4 = {d["what"]: d for d in registry.steps[4]["extra_json"].get_json()["details"]}
    assert when3["When it went"]["link"] is None  # removed by a load, not yet released
    assert when4["When it went"]["link"].startswith(f"/release/{R2}")


def test_the_removal_is_in_the_feeds_as_a_tombstone(registry) -> None:
    record = f"{BASE}record/{EXTRA}"
    assert registry.steps[2]["feed"]["tombstones"] == []
    for step in (3, 4):
        feed = registry.steps[step]["feed"]
        assert feed["tombstones"] == [record]
        [removal] = kinds(feed)["removal"]
        assert R1 in removal.summary
        own = registry.steps[step]["extra_feed"]
        assert own["tombstones"] == [record]
        assert record in own["entries"]  # its first appearance, kept


def test_the_sitemap_lists_every_live_page_and_each_answers(registry) -> None:
    with app_over(registry.root) as app:
        client = app.test_client()
        urls = sitemap_urls(client)
        assert len(urls) == len(set(urls))
        for url in urls:
            assert client.get(urlsplit(url).path).status_code == 200, url
    paths = {urlsplit(u).path for u in urls}
    assert f"/record/{SEED_ID}" in paths
    assert f"/record/{EXTRA}" not in paths  # gone: it answers 410
    assert f"/record/{EXTRA}" in {urlsplit(u).path for u in registry.steps[1]["sitemap"]}
    # past sitemap_urls, the same URLs through a sitemap index
    assert len(urls) > 40
    assert registry.steps[4]["sitemap_parts"] == registry.steps[4]["sitemap"] == urls


def test_void_counts_are_those_of_kg_stats(registry) -> None:
    answer = registry.steps[4]["void"]
    assert answer.status_code == 200 and answer.mimetype == "text/turtle"
    graph = Graph().parse(data=answer.data, format="turtle")
    [dataset] = [s for s in graph.subjects(RDF.type, VOID.Dataset) if graph.value(s, VOID.triples)]
    stats = json.loads(registry.kg("stats", "--format", "json"))
    [row] = stats["results"]["bindings"]
    counts = {name: int(value["value"]) for name, value in row.items()}
    assert int(graph.value(dataset, VOID.triples)) == counts["triples"]
    partitions = {
        graph.value(p, VOID["class"]): int(graph.value(p, VOID.entities))
        for p in graph.objects(dataset, VOID.classPartition)
    }
    for name, cls in {
        "records": KG.Claim,
        "sources": KG.SourceDocument,
        "evaluations": KG.Evaluation,
        "reviews": KG.Review,
        "runs": KG.ReproductionRun,
        "agents": URIRef("http://www.w3.org/ns/prov#Agent"),
    }.items():
        assert partitions[cls] == counts[name], name
    assert int(graph.value(dataset, VOID.classes)) == len(partitions)
    assert graph.value(dataset, URIRef("http://purl.org/dc/terms/license")) == URIRef(
        "https://example.org/licence"
    )
    assert graph.value(dataset, VOID.uriSpace) == Literal(BASE)
    assert str(graph.value(dataset, VOID.sparqlEndpoint)).endswith("/sparql")
    dumps = list(graph.objects(dataset, VOID.dataDump))
    assert dumps and all("/dumps/" in str(d) for d in dumps)
    assert graph.value(dataset, URIRef("http://purl.org/dc/terms/modified")) is not None
    linksets = list(graph.subjects(RDF.type, VOID.Linkset))
    assert linksets
    for linkset in linksets:
        assert graph.value(linkset, VOID.subjectsTarget) == dataset
        assert int(graph.value(linkset, VOID.triples)) > 0


def test_each_write_and_release_leaves_the_timeline_its_feeds_read(registry) -> None:
    """kg load, kg retract and kg release write the timeline file of the store version and
    the release they leave, so the app reads it and writes none; each step, a file of its
    own."""
    names = []
    for step in range(1, 5):
        before, after = registry.steps[step]["timelines"]
        assert before == after and before
        names.append(set(before))
    assert all(not (names[n] >= names[n + 1]) for n in range(3))  # a new pair each step


def test_void_is_negotiated(registry) -> None:
    with app_over(registry.root) as app:
        client = app.test_client()
        jsonld = client.get("/.well-known/void", headers={"Accept": "application/ld+json"})
        assert jsonld.mimetype == "application/ld+json"
        graph = Graph().parse(data=jsonld.data, format="json-ld")
        assert any(graph.subjects(RDF.type, VOID.Dataset))
        assert client.get("/.well-known/void", headers={"Accept": "image/png"}).status_code == 406


def test_pages_link_their_feeds(registry) -> None:
    page = registry.steps[4]["seed_page"]
    assert 'type="application/atom+xml"' in page
    assert f'href="/feed/record/{SEED_ID}.atom"' in page
    assert 'href="/feed.atom"' in page


def test_unknown_feeds_and_pages_are_404(registry) -> None:
    with app_over(registry.root, feed_page=PAGE) as app:
        client = app.test_client()
        assert client.get("/feed/record/no-such-record.atom").status_code == 404
        assert client.get("/feed/agent/claude.atom").status_code == 404
        assert client.get("/feed.atom?archive=100000").status_code == 404
        assert client.get("/feed.atom?archive=x").status_code == 400
        assert client.get("/record/no-such-record").status_code == 404
        assert client.get("/sitemap-1.xml").status_code == 404  # one file: no parts
