"""Licences part by part, and what citation tools and search engines read (issue 50, items 5
and 8): a real ``kg serve`` whose operator set a licence, read as clients read it (extruct
for schema.org, citeproc's CSL-JSON for citations, rdflib for VoID), the dumps and a
release with the upstream licence's notice beside them, and every record's licence counted.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
from pathlib import Path
from urllib.parse import quote

import extruct
import pytest
import requests
import yaml
from click.testing import CliRunner
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, VOID

from helpers import DATA, SAMPLE_IMPORTED, SEED_ID, WRITTEN, copy_sampled
from helpers.servers import running_server
from kg.cli import main

#: The operator's licence in these tests (any IRI would do).
OPERATOR = "https://creativecommons.org/publicdomain/zero/1.0/"
IMPORT = yaml.safe_load((DATA / "imports" / "every-eval-ever.yaml").read_text())
#: The upstream's licence, as the import record states it (an SPDX id).
UPSTREAM = f"http://spdx.org/licenses/{IMPORT['licence']}"
NOTICE = DATA / IMPORT["licence_file"]


def sampled_with_notice(root: Path) -> Path:
    """The sampled data (a kept file of each origin folder) with the upstream's notice."""
    data = copy_sampled(root / "data")
    target = data / IMPORT["licence_file"]
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(NOTICE, target)
    return data


@pytest.fixture(scope="module")
def licensed(tmp_path_factory) -> str:
    """`kg serve` over the sampled data, its operator's licence set: its URL."""
    root = tmp_path_factory.mktemp("licensed")
    sampled_with_notice(root)
    with running_server(root, {"KG_LICENCE": OPERATOR}) as served:
        yield served.url


def records(url: str) -> list[dict]:
    rows = requests.get(f"{url}/records.json", params={"limit": 1000}, timeout=30).json()
    assert rows["next"] is None
    return rows["rows"]


@pytest.fixture(scope="module")
def imported(licensed: str) -> dict:
    """An imported record's catalogue row (the first the index lists)."""
    return next(r for r in records(licensed) if r["id"] != SEED_ID and r["evaluator_relationship"])


def page_data(url: str) -> list[dict]:
    """The JSON-LD blocks of a page, as extruct (what dataset search engines run) finds them."""
    html = requests.get(url, timeout=30).text
    return extruct.extract(html, base_url=url, syntaxes=["json-ld"])["json-ld"]


# -- schema.org, as extruct reads it --------------------------------------------------------
#: What dataset search engines ask of a Dataset (Google's required and recommended fields).
DATASET_FIELDS = {"name", "description", "creator", "license", "url", "distribution", "isPartOf"}


@pytest.mark.parametrize("which", ["seed", "imported"])
def test_a_record_page_has_a_dataset_with_its_licence(licensed: str, imported: dict, which):
    ident = SEED_ID if which == "seed" else imported["id"]
    [dataset] = [d for d in page_data(f"{licensed}/record/{ident}") if d["@type"] == "Dataset"]
    assert dataset.keys() >= DATASET_FIELDS
    assert len(dataset["description"]) >= 50  # what Google's validator asks for
    assert dataset["license"] == (OPERATOR if which == "seed" else UPSTREAM)
    assert dataset["creator"] and all(c["name"] for c in dataset["creator"])
    formats = {d["encodingFormat"] for d in dataset["distribution"]}
    assert {"text/turtle", "application/ld+json"} <= formats
    for download in dataset["distribution"]:
        assert download["@type"] == "DataDownload"
        answer = requests.get(download["contentUrl"], timeout=30)
        assert answer.status_code == 200 and answer.headers["Content-Type"].startswith(
            download["encodingFormat"]
        )
    assert dataset["isPartOf"]["@type"] == "DataCatalog"
    assert dataset["isPartOf"]["url"] == f"{licensed}/"


def test_an_imported_record_is_created_by_its_source_organisation(licensed: str, imported):
    [dataset] = [d for d in page_data(f"{licensed}/record/{imported['id']}")]
    publisher = source_file(imported)["publisher"]
    assert [c["name"] for c in dataset["creator"]] == [publisher]
    assert dataset["creator"][0]["@type"] == "Organization"


def test_the_index_is_a_data_catalog_of_the_parts(licensed: str) -> None:
    [catalog] = page_data(f"{licensed}/")
    assert catalog["@type"] == "DataCatalog" and catalog["name"] and catalog["description"]
    licences = {d["name"]: d.get("license") for d in catalog["dataset"]}
    assert licences == {
        "claimgraph: the registry's own statements": OPERATOR,
        f"claimgraph: import {IMPORT['id']}": UPSTREAM,
    }


# -- citations ------------------------------------------------------------------------------
def source_file(row: dict) -> dict:
    """The source data file of a catalogue row."""
    ident = row["source"].rsplit("/", 1)[1]
    return yaml.safe_load((DATA / "sources" / f"{ident}.yaml").read_text())


def retrieved(url: str, row: dict) -> dt.date:
    """The day the upstream retrieved an imported record's file (as its file says)."""
    data = requests.get(f"{url}/record/{row['id']}.eee.json", timeout=30).json()
    return dt.datetime.fromtimestamp(float(data["retrieved_timestamp"]), dt.UTC).date()


def test_an_imported_record_cites_the_upstream_result(licensed: str, imported: dict) -> None:
    answer = requests.get(
        f"{licensed}/record/{imported['id']}",
        headers={"Accept": "application/vnd.citationstyles.csl+json"},
        timeout=30,
    )
    assert answer.status_code == 200
    upstream, entry = answer.json()
    source = source_file(imported)
    assert upstream["type"] == "dataset"
    assert upstream["author"] == [{"literal": source["publisher"]}]
    assert upstream["publisher"] == source["publisher"]
    # readable: the metric, the model and the leaderboard, not the leaderboard's id alone
    for part in (imported["model"], source["title"]):
        assert part in upstream["title"]
    assert upstream["title"] != source["title"]
    assert upstream["URL"].startswith("https://")
    day = retrieved(licensed, imported)
    assert upstream["accessed"] == {"date-parts": [[day.year, day.month, day.day]]}
    assert upstream["custom"]["license"] == entry["custom"]["license"] == UPSTREAM
    assert entry["URL"].endswith(f"/record/{quote(imported['id'], safe='')}")


def test_the_page_tags_say_what_the_citation_says(licensed: str, imported: dict) -> None:
    from lxml import html as lhtml

    page = lhtml.fromstring(requests.get(f"{licensed}/record/{imported['id']}", timeout=30).text)
    tags: dict[str, list[str]] = {}
    for meta in page.iter("meta"):
        tags.setdefault(meta.get("name") or "", []).append(meta.get("content"))
    [upstream, _] = requests.get(f"{licensed}/record/{imported['id']}.csl.json", timeout=30).json()
    assert tags["citation_title"] == [upstream["title"]]
    assert tags["citation_author"] == [upstream["author"][0]["literal"]]
    assert tags["citation_publisher"] == [upstream["publisher"]]
    assert tags["citation_public_url"] == [upstream["URL"]]
    assert tags["citation_online_date"]
    assert tags["DC.rights"] == [UPSTREAM]


@pytest.mark.parametrize("accept", ["text/x-bibliography; style=apa", "text/x-bibliography"])
def test_a_formatted_citation_by_content_negotiation(licensed, imported, accept) -> None:
    answer = requests.get(
        f"{licensed}/record/{imported['id']}", headers={"Accept": accept}, timeout=30
    )
    assert answer.status_code == 200
    assert answer.headers["Content-Type"].startswith("text/x-bibliography")
    text = answer.text
    assert source_file(imported)["publisher"] in text and imported["model"] in text
    assert len(text.strip().splitlines()) == 2  # the upstream's result and the record


def test_the_style_changes_the_reference_and_an_unknown_one_is_refused(licensed: str) -> None:
    url = f"{licensed}/record/{SEED_ID}"

    def cite(style: str) -> requests.Response:
        accept = f'text/x-bibliography; style="{style}"; locale=en-US'
        return requests.get(url, headers={"Accept": accept}, timeout=30)

    apa, ieee = cite("apa"), cite("ieee")
    assert apa.status_code == ieee.status_code == 200 and apa.text != ieee.text
    assert ieee.text.startswith("[1]")
    assert requests.get(f"{url}.citation.txt?style=ieee", timeout=30).text == ieee.text
    refused = cite("no-such-style")
    assert refused.status_code == 400 and "no-such-style" in refused.text


def test_a_citation_export_carries_the_licence(licensed: str) -> None:
    bib = requests.get(f"{licensed}/record/{SEED_ID}.bib", timeout=30).text
    ris = requests.get(f"{licensed}/record/{SEED_ID}.ris", timeout=30).text
    assert f"license = {{CC0 1.0 ({OPERATOR})}}" in bib
    assert f"N1  - Licence: CC0 1.0 ({OPERATOR})" in ris


# -- every record has a licence -------------------------------------------------------------
def test_every_record_has_a_licence(licensed: str) -> None:
    """Each record's citation states its licence: counted over the store, all of them."""
    rows = records(licensed)
    licences = {}
    for row in rows:
        [*_, entry] = requests.get(f"{licensed}/record/{row['id']}.csl.json", timeout=30).json()
        licences[row["id"]] = entry["custom"].get("license")
    with_licence = [ident for ident, iri in licences.items() if iri]
    assert len(with_licence) == len(rows) == WRITTEN + SAMPLE_IMPORTED
    assert sum(iri == UPSTREAM for iri in licences.values()) == SAMPLE_IMPORTED
    # the canned query counts the parts the same
    answer = requests.get(
        f"{licensed}/sparql",
        params={"canned": "record-licences", "format": "json"},
        timeout=30,
    ).json()
    counted = {
        b["part"]["value"]: int(b["records"]["value"]) for b in answer["results"]["bindings"]
    }
    assert counted == {"claimgraph": WRITTEN, IMPORT["id"]: SAMPLE_IMPORTED}


def test_void_states_each_parts_licence(licensed: str) -> None:
    graph = Graph().parse(
        data=requests.get(f"{licensed}/.well-known/void", timeout=30).text, format="turtle"
    )
    [dataset] = graph.subjects(VOID.uriSpace, None)
    assert graph.value(dataset, DCTERMS.license) == URIRef(OPERATOR)
    assert isinstance(graph.value(dataset, DCTERMS.rights), Literal)
    parts = {
        str(graph.value(s, DCTERMS.title)): (
            graph.value(s, DCTERMS.license),
            graph.value(s, VOID.entities),
        )
        for s in graph.objects(dataset, VOID.subset)
        if graph.value(s, DCTERMS.license) is not None
    }
    assert parts == {
        "claimgraph: the registry's own statements": (URIRef(OPERATOR), Literal(WRITTEN)),
        f"claimgraph: import {IMPORT['id']}": (URIRef(UPSTREAM), Literal(SAMPLE_IMPORTED)),
    }


# -- the notice travels ---------------------------------------------------------------------
def manifest_licences(manifest: dict) -> dict[str, str | None]:
    return {p["part"]: p.get("licence") for p in manifest["licences"] if "licence" in p}


def test_the_served_dumps_carry_the_licences_and_the_notice(licensed: str) -> None:
    manifest = requests.get(f"{licensed}/dumps/manifest.json", timeout=120).json()
    assert manifest_licences(manifest) == {"claimgraph": OPERATOR, IMPORT["id"]: UPSTREAM}
    assert any("rights" in p for p in manifest["licences"])  # the quotations'
    name = f"LICENSE-{IMPORT['id']}"
    notice = requests.get(f"{licensed}/dumps/{name}", timeout=30)
    assert notice.status_code == 200 and notice.content == NOTICE.read_bytes()
    assert manifest["notices"] == {name: hashlib.sha256(NOTICE.read_bytes()).hexdigest()}
    sums = requests.get(f"{licensed}/dumps/SHA256SUMS", timeout=30).text
    assert f"{manifest['notices'][name]}  {name}\n" in sums
    assert requests.get(f"{licensed}/dumps/LICENSE-nothing", timeout=30).status_code == 404


def test_a_release_and_an_export_carry_the_notice(tmp_path: Path, monkeypatch) -> None:
    data = sampled_with_notice(tmp_path)
    monkeypatch.chdir(tmp_path)
    for name in ("KG_STORE", "KG_DATA", "KG_ARCHIVE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KG_LICENCE", "none")  # none stated: what the manifests then say
    runner = CliRunner()
    for args in (["load"], ["release"]):
        result = runner.invoke(main, ["--data", str(data), *args])
        assert result.exit_code == 0, result.output
    [release] = (tmp_path / ".kg" / "store-archive").glob("releases/*/manifest.json")
    manifest = json.loads(release.read_text())
    # no licence set: the registry's part says so, the import's keeps its upstream's
    assert manifest_licences(manifest) == {"claimgraph": None, IMPORT["id"]: UPSTREAM}
    name = f"LICENSE-{IMPORT['id']}"
    assert (release.parent / name).read_bytes() == NOTICE.read_bytes()

    out = tmp_path / "eee"
    result = runner.invoke(main, ["export", "--all", "--format", "every-eval-ever", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / name).read_bytes() == NOTICE.read_bytes()
    told = json.loads((out / "LICENSES.json").read_text())
    assert manifest_licences(told) == {"claimgraph": None, IMPORT["id"]: UPSTREAM}


# -- the default, and none stated -----------------------------------------------------------
def test_by_default_the_registrys_own_records_are_cc0(served) -> None:
    """Default settings (the suite's shared server sets no licence): the seed states CC0 1.0,
    and kg serve does not warn of a missing licence."""
    [*_, entry] = requests.get(f"{served.url}/record/{SEED_ID}.csl.json", timeout=30).json()
    assert entry["custom"]["license"] == "https://creativecommons.org/publicdomain/zero/1.0/"
    assert not any("no licence stated" in line for line in served.opening), served.opening


def test_with_the_setting_empty_none_is_stated_and_kg_serve_says_so(tmp_path: Path) -> None:
    sampled_with_notice(tmp_path)
    with running_server(tmp_path, {"KG_LICENCE": "none"}) as served:
        assert any("no licence stated" in line for line in served.opening), served.opening
        [dataset] = [
            d for d in page_data(f"{served.url}/record/{SEED_ID}") if d["@type"] == "Dataset"
        ]
        assert "license" not in dataset
        assert dataset["copyrightNotice"] == "no licence stated"
        [*_, entry] = requests.get(f"{served.url}/record/{SEED_ID}.csl.json", timeout=30).json()
        assert not entry["custom"].get("license")
