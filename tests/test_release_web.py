"""Releases in the browser: the app in this process (Flask's test client) while kg release
and kg load run beside it; beside a remote store, a real server."""

from __future__ import annotations

import gzip
import html
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import pytest
import requests
from flask.testing import FlaskClient
from rdflib import Graph, URIRef
from rdflib.namespace import DCAT, DCTERMS, PROV, RDF
from SPARQLWrapper import JSON, SPARQLWrapper

from helpers import BASE, DATA, GRAPHS, NEW_HARDWARE, OLD_HARDWARE, SEED_ID, SEED_RECORD
from helpers.servers import running_server
from helpers.web import app_over

RECORD = f"/record/{SEED_ID}"
#: The seed's hardware, as a release holds it (the seed alone: another record quotes it too).
HARDWARE_QUERY = (
    f"SELECT ?h WHERE {{ <{BASE}record/{SEED_ID}> "
    "<https://w3id.org/claimgraph/ns#hardwareAsReported> ?h }"
)


class Releases(NamedTuple):
    client: FlaskClient
    store: Path
    old: str
    new: str


def kg(store: Path | str, *args: str) -> str:
    """kg in another process, as a curator's command beside a running server would be."""
    done = subprocess.run(
        [sys.executable, "-m", "kg.cli", "--store", str(store), *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def hardware_shown(page: str) -> str:
    """The hardware line of the record page's technical metadata."""
    return html.unescape(re.search(r"<dt>hardware</dt><dd>(.*?)</dd>", page).group(1))


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """The app over data released once, changed (the seed's hardware), loaded and released
    again while it runs."""
    root = tmp_path_factory.mktemp("releases")
    shutil.copytree(DATA, root / "data")
    store = root / "store"
    with app_over(root) as app:
        client = app.test_client()
        assert hardware_shown(client.get(RECORD).text) == OLD_HARDWARE  # the app is reading
        old = kg(store, "release", "--date", "2026-12-01", "--note", "first")
        record = root / "data" / SEED_RECORD
        record.write_text(record.read_text().replace(OLD_HARDWARE, NEW_HARDWARE))
        kg(store, "load", str(root / "data"))
        new = kg(store, "release", "--date", "2026-12-02")
        # The app follows the new live version: a bound on liveness, not a measure of speed.
        deadline = time.monotonic() + 120
        while hardware_shown(client.get(RECORD).text) != NEW_HARDWARE:
            assert time.monotonic() < deadline, "the app never showed the new version"
            time.sleep(0.2)
        yield Releases(client, store, old, new)


def test_a_record_page_at_an_old_release_shows_the_old_value(releases) -> None:
    client, _, old, new = releases
    then = client.get(RECORD, query_string={"release": old})
    assert then.status_code == 200
    assert hardware_shown(then.text) == OLD_HARDWARE
    assert f'the record as claimgraph release <a href="/release/{old}">{old}</a>' in then.text
    # links from a past page stay in that release
    assert f'href="/source/saadat-fellay-2026-genomic-lm-efficiency?release={old}"' in then.text
    assert hardware_shown(client.get(RECORD, query_string={"release": new}).text) == (NEW_HARDWARE)
    assert hardware_shown(client.get(RECORD).text) == NEW_HARDWARE
    turtle = client.get(RECORD + ".ttl", query_string={"release": old}).text
    assert OLD_HARDWARE in turtle and NEW_HARDWARE not in turtle


def test_a_citation_names_the_release_read_or_the_newest(releases) -> None:
    client, _, old, new = releases
    latest = client.get(RECORD + ".csl.json").get_json()
    assert latest[-1]["version"] == new
    then = client.get(RECORD + ".csl.json", query_string={"release": old}).get_json()
    assert then[-1]["version"] == old
    assert then[-1]["issued"] == {"date-parts": [[2026, 12, 1]]}
    bibtex = client.get(RECORD + ".bib", query_string={"release": old}).text
    assert f"version = {{{old}}}" in bibtex


def test_the_record_page_lists_its_releases_with_hashes_and_the_diff(releases) -> None:
    client, _, old, new = releases
    page = client.get(RECORD).text
    section = page.split('id="releases"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(
        r"<tr>\s*<td><a href=\"/release/([^\"]+)\">.*?<code title=\"([0-9a-f]{64})\">"
        r"([0-9a-f]{12})</code>.*?<td>(\w+)",
        section,
        flags=re.S,
    )
    assert [(r[0], r[3]) for r in rows] == [(old, "added"), (new, "changed")]
    assert all(full.startswith(short) for _, full, short, _ in rows)
    assert rows[0][1] != rows[1][1]
    text = html.unescape(re.sub(r"<[^>]+>", "", section))  # as a reader sees it
    assert f'\u2212 kg:hardwareAsReported = "{OLD_HARDWARE}"' in text
    assert f'+ kg:hardwareAsReported = "{NEW_HARDWARE}"' in text
    # The seed's upstream release is shown as the source registry's, apart from ours.
    assert "Source registry: Release 2026-10-22-1b7cf027e4f6" in page
    assert "2026-10-22-1b7cf027e4f6" not in section


def test_sparql_over_a_release(releases) -> None:
    client, _, old, new = releases

    def ask(release: str | None) -> list[str]:
        response = client.get(
            "/sparql",
            query_string={"query": HARDWARE_QUERY, **({"release": release} if release else {})},
            headers={"Accept": "application/sparql-results+json"},
        )
        assert response.status_code == 200, response.text
        return [b["h"]["value"] for b in response.get_json()["results"]["bindings"]]

    assert ask(old) == [OLD_HARDWARE]
    assert ask(new) == [NEW_HARDWARE]
    assert ask(None) == [NEW_HARDWARE]
    form = client.get("/sparql", query_string={"release": old}).text
    assert f'<input type="hidden" name="release" value="{old}">' in form
    canned = client.get(
        "/sparql",
        query_string={
            "release": old,
            "canned": "results-for-model",
            "model": "NT 2.5B",
            "format": "csv",
        },
    )
    assert canned.status_code == 200 and "11.49" in canned.text
    missing = client.get(
        "/sparql", query_string={"release": "2026-01-01-000000000000", "query": HARDWARE_QUERY}
    )
    assert missing.status_code == 404


def test_release_pages_and_files(releases) -> None:
    client, _, old, new = releases
    page = client.get(f"/release/{new}")
    assert page.status_code == 200
    assert f'<a href="/release/{old}">{old}</a>' in page.text  # the revision it is
    assert f'changed record <a href="/record/{SEED_ID}?release={new}">' in page.text
    graph = Graph().parse(data=client.get(f"/release/{new}.ttl").text, format="turtle")
    iri = URIRef(f"{BASE}release/{new}")
    assert set(graph.objects(iri, RDF.type)) == {PROV.Bundle, DCAT.Dataset}
    assert graph.value(iri, PROV.wasRevisionOf) == URIRef(f"{BASE}release/{old}")
    assert len(list(graph.objects(iri, DCTERMS.hasPart))) == GRAPHS
    top = client.get(f"/release/{new}.jsonld").get_json()["@graph"]
    # the release's graph, beside what its documents say of themselves (default graph)
    nodes = [*top, *(inner for n in top for inner in n.get("@graph", []))]
    node = next(n for n in nodes if n["id"] == str(iri) and "@graph" not in n)
    assert node["revisionOf"] == f"{BASE}release/{old}"
    assert sorted(n["graphHash"] for n in nodes if "graphHash" in n) == sorted(
        manifest_hashes := client.get(f"/release/{new}/manifest.json").get_json()["graphs"].values()
    )
    assert len(node["hasPart"]) == len(manifest_hashes)
    manifest = client.get(f"/release/{new}/manifest.json").get_json()
    assert manifest["id"] == new and manifest["previous"] == old
    dump = client.get(f"/release/{new}/dump.nq.gz")
    assert dump.headers["Content-Type"] == "application/gzip"
    assert NEW_HARDWARE.encode() in gzip.decompress(dump.data)
    for path in (
        "/release/2026-10-22-1b7cf027e4f6",
        f"/release/{new}/store",
        "/release/..%2F..%2Fetc%2Fpasswd",
        f"/release/{new}/../../../etc/passwd",
    ):
        assert client.get(path).status_code == 404, path


def test_history_in_the_terminal_matches_the_page(releases) -> None:
    _, store, old, new = releases
    lines = kg(store, "history", SEED_ID).splitlines()
    assert [line.split()[0] for line in lines[:2]] == [old, new]


@pytest.mark.slow
def test_releases_served_beside_a_remote_store(tmp_path) -> None:
    """With the live registry in a remote store (oxigraph serve), pages and /sparql at a
    release read the archive's copy."""
    from helpers.servers import running_oxigraph

    shutil.copytree(DATA, tmp_path / "data")
    with (
        running_oxigraph(tmp_path / "oxigraph") as url,
        running_server(
            tmp_path, {"KG_STORE": url, "KG_ARCHIVE": str(tmp_path / "archive")}
        ) as served,
    ):
        where = ["--archive", str(tmp_path / "archive")]
        release = kg(served.store, *where, "release", "--date", "2026-12-01")
        page = requests.get(served.url + RECORD, params={"release": release})
        assert page.status_code == 200 and hardware_shown(page.text) == OLD_HARDWARE
        client = SPARQLWrapper(served.url + "/sparql")
        client.addParameter("release", release)
        client.setQuery(HARDWARE_QUERY)
        client.setReturnFormat(JSON)
        rows = client.query().convert()["results"]["bindings"]
        assert [b["h"]["value"] for b in rows] == [OLD_HARDWARE]
