"""Property tests (hypothesis): any valid record file survives YAML -> RDF -> JSON-LD -> RDF
unchanged, and the reader and mapping raise nothing but our own errors on junk.

Records are drawn from the keys docs/records.md fixes for ``kind: record``; each is
checked to be valid first (the shapes decide), so the round trip is tested on what
`kg load` would accept. Example counts stay modest: CI runs these on every push.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyld import jsonld

from helpers import AGENT_FILE, BASE, DATA, SEED_SOURCE
from kg.errors import KgError
from kg.kinds import FILE_KINDS
from kg.model.datafiles import read_data_file
from kg.model.ingest import ingest_file, validate_files
from kg.model.mapping import map_file
from kg.rdf.canonical import canonical_nquads
from kg.rdf.jsonld import compact
from kg.rdf.terms import to_quads

SOURCE = "saadat-fellay-2026-genomic-lm-efficiency"
EVALUATION = "nt-2-5b-training-peak-memory-stage-deepspeed"
ARTIFACT = "4bc2452110f280a7ba8baa4c7c28beac89769511019666bc77fc33af9b3bcd60"
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Free text: letters, digits, punctuation, symbols and spaces of any script; never empty.
text = st.text(
    st.characters(categories=("L", "N", "P", "S", "Zs")), min_size=1, max_size=60
).filter(str.strip)
ident = st.from_regex(r"\A[a-z0-9][a-z0-9._-]{0,40}\Z")
decimal = st.from_regex(r"\A-?[0-9]{1,20}(\.[0-9]{1,18})?\Z")
reason = st.sampled_from(["unreported", "not-applicable", "not-stated", "not-documented"])
missing = st.fixed_dictionaries({"missing": reason}, optional={"note": text})
zones = st.sampled_from(
    [UTC, timezone(timedelta(hours=-5)), timezone(timedelta(hours=5, minutes=30))]
)
moment = st.datetimes(
    min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 30), timezones=zones
).map(lambda d: d.replace(microsecond=0).isoformat())
METHODS = [
    "source-hash-verification",
    "pdf-text-parse",
    "independent-cell-check",
    "rendered-source-visual-check",
]
RECORD_KEYS = ["uncertainty", "hardware", "scope_note", "metric_qualifier", "dataset", "protocol"]


def cited(required: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({required: text}, optional={"source": st.just(SOURCE), "at": text})


locator = st.fixed_dictionaries(
    {"text": text},
    optional={
        "section": text,
        "paragraph": text,
        "quote": text,
        "figure": text,
        "figure_element": text,
        "table": text,
        "page": st.integers(1, 999_999_999).map(str),
    },
)
review = st.fixed_dictionaries(
    {
        "agent": st.just("claude"),
        "role": st.sampled_from(["reviewer", "verifier"]),
        "reviewed_at": moment,
        "methods": st.lists(st.sampled_from(METHODS), min_size=1, max_size=4, unique=True),
    },
    optional={
        "reviewer_note": text,
        "started_at": moment,
        "status": st.just("source-checked"),
        "artifact_sha256": st.just(ARTIFACT),
        "method_note": text,
        "note": text,
    },
)
evidence_row = st.fixed_dictionaries(
    {
        "property": st.sampled_from(
            ["reported-result", "model", "configuration", "dataset", "protocol", "hardware"]
        ),
        "statement": text,
        "citation": st.sampled_from(["individual-claim", "context-only"]),
    }
)


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    value = draw(decimal)
    record: dict[str, Any] = {
        "kind": "record",
        "id": draw(ident),
        "title": draw(text),
        "source": SOURCE,
        "metric": draw(ident),
        "metric_direction": draw(st.sampled_from(["lower", "higher"])),
        "printed_value": value,
        "numeric_value": value,
        "unit": draw(st.sampled_from(["gigabyte", "second", "percent", "count", "hour"])),
        "evidence_kind": draw(
            st.sampled_from(["independent-external-evaluation", "self-reported"])
        ),
        "review_status": draw(
            st.sampled_from(["unreviewed", "source-checked", "independently-reproduced"])
        ),
        "locator": draw(locator),
    }
    optional = {
        "evaluation": st.just(EVALUATION),
        "metric_label": text,
        "metric_qualifier": text,
        "display_value": text,
        "unit_detail": text,
        "scope_note": text,
        "hardware": text,
        "tested_configuration": st.fixed_dictionaries(
            {"model": text}, optional={"configuration": text, "source": st.just(SOURCE), "at": text}
        ),
        "protocol": cited("text"),
        "dataset": cited("text"),
        "procedure": cited("text"),
        "coverage": st.fixed_dictionaries(
            {
                "scored": st.one_of(st.integers(0, 10**6).map(str), missing),
                "eligible": st.one_of(st.integers(0, 10**6).map(str), missing),
            }
        ),
        "uncertainty": st.one_of(text, missing),
        "missing_metadata": st.lists(
            st.fixed_dictionaries(
                {"field": st.sampled_from(RECORD_KEYS), "reason": reason}, optional={"note": text}
            ),
            max_size=2,
        ),
        "evidence": st.lists(evidence_row, min_size=1, max_size=3),
        "reproduction": st.fixed_dictionaries(
            {},
            optional={
                "split": st.one_of(text, missing),
                "adaptation": st.one_of(text, missing),
                "scoring_implementation": st.one_of(text, missing),
                "upstream_note": text,
            },
        ),
        "reviews": st.lists(review, min_size=1, max_size=2),
        "upstream_releases": st.lists(
            st.from_regex(r"\A20[0-9]{2}-[01][0-9]-[0-3][0-9]-[0-9a-f]{12}\Z"), max_size=2
        ),
    }
    for key in draw(st.lists(st.sampled_from(sorted(optional)), unique=True)):
        record[key] = draw(optional[key])
    return record


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> Path:
    """The source, agent and evaluation files a generated record refers to."""
    root = tmp_path_factory.mktemp("shared")
    for relative in (SEED_SOURCE, AGENT_FILE, f"evaluations/{EVALUATION}.yaml"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / relative, root / relative)
    return root


def jsonld_back(quads: list[ox.Quad]) -> list[ox.Quad]:
    """What a JSON-LD client (pyld) reads from the document the browser serves."""
    document = compact(quads)
    nquads = jsonld.to_rdf(document, {"format": "application/n-quads"})
    return list(ox.parse(nquads.encode(), ox.RdfFormat.N_QUADS))


@SETTINGS
@given(record=records())
def test_a_valid_record_survives_yaml_rdf_jsonld_rdf(shared: Path, record: dict[str, Any]) -> None:
    folder = Path(tempfile.mkdtemp(dir=shared))
    try:
        path = folder / f"{record['id']}.yaml"
        path.write_text(yaml.safe_dump(record, allow_unicode=True, sort_keys=False))
        validate_files([path], BASE, [shared])  # valid, as the shapes judge it
        mapped = map_file(read_data_file(path), BASE)
    finally:
        shutil.rmtree(folder)
    quads = list(to_quads(mapped.triples, str(mapped.graph)))
    titles = [q.object.value for q in quads if q.predicate.value.endswith("/title")]
    assert titles == [record["title"]]  # the text as written, whatever its script
    # the document holds the union of the graphs in its default graph, as the Turtle does
    in_default = [ox.Quad(q.subject, q.predicate, q.object) for q in quads]
    assert canonical_nquads(jsonld_back(quads)) == canonical_nquads(in_default)


YAML_PIECES = [
    "kind: ",
    "record",
    "id: ",
    "- ",
    "[",
    "]",
    "{",
    "}",
    ", ",
    ": ",
    "\n",
    "  ",
    "&a ",
    "*a",
    "!!str ",
    "!!python/object:os.system ",
    "!x ",
    "'",
    '"',
    "\\",
    "? ",
    "|\n",
    ">-\n",
    "---\n",
    "...\n",
    "%YAML 1.2\n",
    "#",
    "<<: ",
    "~",
    "\t",
    "\ufeff",
    "\x00",
    "\x85",
    "\ud7ff",
    "é",
    "0x1F",
    "1e9",
    "no",
    "2026-02-30",
]
junk_text = st.lists(st.sampled_from(YAML_PIECES) | st.text(max_size=8), max_size=40).map("".join)
junk_bytes = st.one_of(
    st.binary(max_size=300), junk_text.map(lambda t: t.encode("utf-8", "surrogatepass"))
)
KEYS = [
    "kind",
    "id",
    "title",
    "source",
    "agent",
    "record",
    "locator",
    "reviews",
    "evidence",
    "methods",
    "page",
    "missing",
    "artifact",
    "sha256",
    "verdict",
    "measurements",
    "printed_value",
    "numeric_value",
    "unit",
    "coverage",
    "scored",
    "authors",
    "family",
]
structured = st.recursive(
    st.text(max_size=12) | st.sampled_from(["claude", SOURCE, "11.49", "", "lower"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=6)
    ),
    max_leaves=25,
)
junk_documents = st.builds(
    lambda kind, body: {"kind": kind, **body} if isinstance(body, dict) else body,
    st.sampled_from([*FILE_KINDS, "claim", ""]),
    structured,
)


def read_and_map(path: Path) -> None:
    """The whole way a file takes into the store, short of writing: our errors only."""
    with contextlib.suppress(KgError):
        map_file(read_data_file(path), BASE)
    outcome = ingest_file((path, BASE))  # reads, maps and validates; reports, never raises
    assert outcome.ok or outcome.problems


@SETTINGS
@given(content=junk_bytes)
def test_junk_bytes_raise_only_our_errors(shared: Path, content: bytes) -> None:
    path = shared / "junk.yaml"
    path.write_bytes(content)
    read_and_map(path)


@SETTINGS
@given(document=junk_documents)
def test_junk_documents_raise_only_our_errors(shared: Path, document: Any) -> None:
    path = shared / "junk.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True))
    read_and_map(path)
