"""Releases served for real: kg serve on 127.0.0.1, kg release beside it, real HTTP clients."""

from __future__ import annotations

import gzip
import html
import re
import shutil
import subprocess
import sys
import time

import pytest
import requests
from rdflib import Graph, URIRef
from rdflib.namespace import DCAT, DCTERMS, PROV, RDF
from SPARQLWrapper import JSON, SPARQLWrapper

from helpers import BASE, DATA, NEW_HARDWARE, OLD_HARDWARE, SEED_ID, SEED_RECORD
from helpers.servers import running_server

RECORD = f"/record/{SEED_ID}"


def kg(served, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "kg.cli", "--store", str(served.store), *args],
                          check=True, capture_output=True, text=True)
    return done.stdout.strip()


def hardware_shown(page: str) -> str:
    """The hardware line of the record page's technical metadata."""
    return html.unescape(re.search(r"<dt>hardware</dt><dd>(.*?)</dd>", page).group(1))


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """A server over data released once, changed (the seed's hardware), loaded and
    released again while it runs."""
    root = tmp_path_factory.mktemp("releases")
    shutil.copytree(DATA, root / "data")
    with running_server(root) as served:
        old = kg(served, "release", "--date", "2026-12-01", "--note", "first")
        record = root / "data" / SEED_RECORD
        record.write_text(record.read_text().replace(OLD_HARDWARE, NEW_HARDWARE))
        kg(served, "load", str(root / "data"))
        new = kg(served, "release", "--date", "2026-12-02")
        deadline = time.monotonic() + 10  # the server follows the new live version
        while hardware_shown(requests.get(served.url + RECORD).text) != NEW_HARDWARE:
            assert time.monotonic() < deadline, "the server never showed the new version"
            time.sleep(0.2)
        yield served, old, new


def test_a_record_page_at_an_old_release_shows_the_old_value(releases) -> None:
    served, old, new = releases
    then = requests.get(served.url + RECORD, params={"release": old})
    assert then.status_code == 200
    assert hardware_shown(then.text) == OLD_HARDWARE
    assert f"the record as claimgraph release <a href=\"/release/{old}\">{old}</a>" in then.text
    # links from a past page stay in that release
    assert f'href="/source/saadat-fellay-2026-genomic-lm-efficiency?release={old}"' in then.text
    assert hardware_shown(requests.get(served.url + RECORD, params={"release": new}).text) == (
        NEW_HARDWARE)
    assert hardware_shown(requests.get(served.url + RECORD).text) == NEW_HARDWARE
    turtle = requests.get(served.url + RECORD + ".ttl", params={"release": old}).text
    assert OLD_HARDWARE in turtle and NEW_HARDWARE not in turtle


def test_a_citation_names_the_release_read_or_the_newest(releases) -> None:
    served, old, new = releases
    latest = requests.get(served.url + RECORD + ".csl.json").json()
    assert latest[-1]["version"] == new
    then = requests.get(served.url + RECORD + ".csl.json", params={"release": old}).json()
    assert then[-1]["version"] == old
    assert then[-1]["issued"] == {"date-parts": [[2026, 12, 1]]}
    bibtex = requests.get(served.url + RECORD + ".bib", params={"release": old}).text
    assert f"version = {{{old}}}" in bibtex


def test_the_record_page_lists_its_releases_with_hashes_and_the_diff(releases) -> None:
    served, old, new = releases
    page = requests.get(served.url + RECORD).text
    section = page.split('id="releases"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>\s*<td><a href=\"/release/([^\"]+)\">.*?<code title=\"([0-9a-f]{64})\">"
                      r"([0-9a-f]{12})</code>.*?<td>(\w+)", section, flags=re.S)
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
    served, old, new = releases
    query = "SELECT ?h WHERE { ?r <https://w3id.org/claimgraph/ns#hardwareAsReported> ?h }"

    def ask(release: str | None) -> list[str]:
        client = SPARQLWrapper(served.url + "/sparql")
        if release:
            client.addParameter("release", release)
        client.setQuery(query)
        client.setReturnFormat(JSON)
        return [b["h"]["value"] for b in client.query().convert()["results"]["bindings"]]
    assert ask(old) == [OLD_HARDWARE]
    assert ask(new) == [NEW_HARDWARE]
    assert ask(None) == [NEW_HARDWARE]
    form = requests.get(served.url + "/sparql", params={"release": old}).text
    assert f'<input type="hidden" name="release" value="{old}">' in form
    canned = requests.get(served.url + "/sparql", params={
        "release": old, "canned": "results-for-model", "model": "NT 2.5B", "format": "csv"})
    assert canned.status_code == 200 and "11.49" in canned.text
    missing = requests.get(served.url + "/sparql", params={
        "release": "2026-01-01-000000000000", "query": query})
    assert missing.status_code == 404


def test_release_pages_and_files(releases) -> None:
    served, old, new = releases
    page = requests.get(served.url + f"/release/{new}")
    assert page.status_code == 200
    assert f'<a href="/release/{old}">{old}</a>' in page.text  # the revision it is
    assert f"changed record <a href=\"/record/{SEED_ID}?release={new}\">" in page.text
    graph = Graph().parse(data=requests.get(served.url + f"/release/{new}.ttl").text,
                          format="turtle")
    iri = URIRef(f"{BASE}release/{new}")
    assert set(graph.objects(iri, RDF.type)) == {PROV.Bundle, DCAT.Dataset}
    assert graph.value(iri, PROV.wasRevisionOf) == URIRef(f"{BASE}release/{old}")
    assert len(list(graph.objects(iri, DCTERMS.hasPart))) == len(list(DATA.rglob("*.yaml")))
    nodes = requests.get(served.url + f"/release/{new}.jsonld").json()["@graph"]
    node = next(n for n in nodes if n["id"] == str(iri))  # short names from our context
    assert node["revisionOf"] == f"{BASE}release/{old}"
    assert sorted(n["graphHash"] for n in nodes if "graphHash" in n) == sorted(
        manifest_hashes := requests.get(served.url + f"/release/{new}/manifest.json").json()[
            "graphs"].values())
    assert len(node["hasPart"]) == len(manifest_hashes)
    manifest = requests.get(served.url + f"/release/{new}/manifest.json").json()
    assert manifest["id"] == new and manifest["previous"] == old
    dump = requests.get(served.url + f"/release/{new}/dump.nq.gz")
    assert dump.headers["Content-Type"] == "application/gzip"
    assert NEW_HARDWARE.encode() in gzip.decompress(dump.content)
    for path in ("/release/2026-10-22-1b7cf027e4f6", f"/release/{new}/store",
                 "/release/..%2F..%2Fetc%2Fpasswd", f"/release/{new}/../../../etc/passwd"):
        assert requests.get(served.url + path).status_code == 404, path


def test_history_in_the_terminal_matches_the_page(releases) -> None:
    served, old, new = releases
    lines = kg(served, "history", SEED_ID).splitlines()
    assert [line.split()[0] for line in lines[:2]] == [old, new]


def test_releases_served_beside_a_remote_store(tmp_path) -> None:
    """With the live registry in a remote store (oxigraph serve), pages and /sparql at a
    release read the archive's copy."""
    from helpers.servers import running_oxigraph

    shutil.copytree(DATA, tmp_path / "data")
    with running_oxigraph(tmp_path / "oxigraph") as url, running_server(
            tmp_path, {"KG_STORE": url, "KG_ARCHIVE": str(tmp_path / "archive")}) as served:
        where = ["--archive", str(tmp_path / "archive")]
        release = kg(served, *where, "release", "--date", "2026-12-01")
        page = requests.get(served.url + RECORD, params={"release": release})
        assert page.status_code == 200 and hardware_shown(page.text) == OLD_HARDWARE
        client = SPARQLWrapper(served.url + "/sparql")
        client.addParameter("release", release)
        client.setQuery("SELECT ?h WHERE { ?r <https://w3id.org/claimgraph/ns#hardwareAsReported> ?h }")
        client.setReturnFormat(JSON)
        rows = client.query().convert()["results"]["bindings"]
        assert [b["h"]["value"] for b in rows] == [OLD_HARDWARE]
