"""Upstream values that do not fit the typed field they map to (issue 49): each is kept as
written (a kg:UpstreamValue with its JSON Pointer, the typed statement left out) with a
warning naming file, pointer and value, and the rest of its file imports; what cannot be
mapped at all refuses its file (the data directory and the store unchanged), and
``--skip-invalid`` leaves that file out and imports the rest."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from helpers import WITHOUT_IMPORT
from helpers.eee import DATA, ORIGIN, PREFIXES, copy_of, dump, origin_copy, query, run, tree
from kg.model.upstream.every_eval_ever.identity import file_id, result_ids
from kg.model.upstream.jsondoc import JsonNumber, loads

PATH = "data/odd_board/tiny/alpha.json"
IMPORT = ["import", "every-eval-ever", "--origin", ORIGIN]
SCHEMA_URL = "https://schema.org/url"


def document() -> dict[str, Any]:
    """A file of two results that fits every typed field: each variant changes one value."""
    return {
        "schema_version": "0.2.0",
        "evaluation_id": "odd_board/tiny/alpha/1770000000.5",
        "retrieved_timestamp": "1770000000.5",
        "source_metadata": {
            "source_name": "Odd board",
            "source_type": "documentation",
            "source_organization_name": "Odd lab",
            "source_organization_url": "https://example.org/odd",
            "evaluator_relationship": "third_party",
        },
        "model_info": {
            "name": "alpha",
            "id": "tiny/alpha",
            "developer": "tiny",
            "inference_platform": "unknown",
            "additional_details": {"precision": "float16", "params_billions": 7},
        },
        "evaluation_results": [
            {
                "evaluation_name": "Accuracy",
                "source_data": {
                    "dataset_name": "TinyBench",
                    "source_type": "hf_dataset",
                    "hf_repo": "tiny/bench",
                    "hf_split": "test",
                    "samples_number": 1000,
                },
                "metric_config": {
                    "evaluation_description": "Accuracy on TinyBench",
                    "lower_is_better": False,
                    "score_type": "continuous",
                    "min_score": 0,
                    "max_score": 1,
                },
                "score_details": {"score": 0.5},
            },
            {
                "evaluation_name": "Recall",
                "source_data": {
                    "dataset_name": "TinyBench",
                    "source_type": "url",
                    "url": ["https://example.org/tinybench"],
                },
                "metric_config": {
                    "evaluation_description": "Recall on TinyBench",
                    "lower_is_better": False,
                    "score_type": "continuous",
                    "min_score": 0,
                    "max_score": 1,
                },
                "score_details": {"score": 0.25},
            },
        ],
    }


def setting(*path_and_value: Any) -> Callable[[dict[str, Any]], None]:
    *path, value = path_and_value

    def change(doc: dict[str, Any]) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return change


def raw_file(*changes: Callable[[dict[str, Any]], None]) -> bytes:
    doc = document()
    for change in changes:
        change(doc)
    return json.dumps(doc, indent=2).encode()


R0, R1 = ("evaluation_results", 0), ("evaluation_results", 1)
DETAILS = ("model_info", "additional_details")
#: name -> (the change, the pointer of the value kept as written, the property it was
#: meant for by its local name, the value as the file writes it): at least one per typed
#: field the mapping fills.
VARIANTS: dict[str, tuple[Callable[[dict[str, Any]], None], str, str, str]] = {
    "source-url-not-a-url": (
        setting("source_metadata", "source_organization_url", "the odd lab's page"),
        "/source_metadata/source_organization_url",
        "url",
        "the odd lab's page",
    ),
    "dataset-url-with-a-space": (
        setting(*R1, "source_data", "url", ["https://example.org/tiny bench"]),
        "/evaluation_results/1/source_data/url/0",
        "url",
        "https://example.org/tiny bench",
    ),
    "dataset-url-an-empty-string": (
        setting(*R1, "source_data", "url", ["https://example.org/tinybench", ""]),
        "/evaluation_results/1/source_data/url/1",
        "url",
        "",
    ),
    "retrieved-timestamp-a-date": (
        setting("retrieved_timestamp", "2026-02-01"),
        "/retrieved_timestamp",
        "retrievedAt",
        "2026-02-01",
    ),
    "retrieved-timestamp-beyond-the-calendar": (
        setting("retrieved_timestamp", "99999999999999999999"),
        "/retrieved_timestamp",
        "retrievedAt",
        "99999999999999999999",
    ),
    "params-billions-a-string": (
        setting(*DETAILS, "params_billions", "7"),
        "/model_info/additional_details/params_billions",
        "parametersBillions",
        "7",
    ),
    "params-billions-beyond-decimals": (
        setting(*DETAILS, "params_billions", 1e30),
        "/model_info/additional_details/params_billions",
        "parametersBillions",
        "1e+30",
    ),
    "samples-number-a-string": (
        # an hf_dataset's samples_number is an integer by the schema; a private data set's
        # is free
        setting(
            *R0,
            "source_data",
            {"dataset_name": "TinyBench", "source_type": "other", "samples_number": "1000"},
        ),
        "/evaluation_results/0/source_data/samples_number",
        "samplesNumber",
        "1000",
    ),
    "min-score-beyond-decimals": (
        setting(*R0, "metric_config", "min_score", -1e30),
        "/evaluation_results/0/metric_config/min_score",
        "minScore",
        "-1e+30",
    ),
    "precision-a-number": (
        setting(*DETAILS, "precision", 16),
        "/model_info/additional_details/precision",
        "precision",
        "16",
    ),
    "params-billions-a-boolean": (
        setting(*DETAILS, "params_billions", True),
        "/model_info/additional_details/params_billions",
        "parametersBillions",
        "true",
    ),
    "architecture-an-object": (
        setting(*DETAILS, "architecture", {"layers": 32}),
        "/model_info/additional_details/architecture",
        "architecture",
        '{"layers":32}',
    ),
}
#: Odd values that fit their fields: imported as they are, without a warning.
FITTING = {
    "model-id-unicode": setting("model_info", "id", "tïny/ålpha-模型"),
    "result-name-unicode": setting(*R0, "evaluation_name", "Précision · 精度"),
    "organization-unicode": setting("source_metadata", "source_organization_name", "Ödd läb"),
    "evaluation-id-unicode": setting("evaluation_id", "odd/ålpha/✓"),
    "hf-repo-with-a-space": setting(*R0, "source_data", "hf_repo", "tiny/my bench"),
    "developer-an-empty-string": setting("model_info", "developer", ""),
}
#: Files that cannot be mapped at all: name -> (the change, the pointer the refusal names).
UNMAPPABLE = {
    "score-beyond-decimals": (
        setting(*R0, "score_details", "score", 1e30),
        "/evaluation_results/0/score_details/score",
    ),
    "model-id-with-a-line-break": (setting("model_info", "id", "tiny/\nalpha"), "/model_info/id"),
    "model-id-too-long": (setting("model_info", "id", "tiny/" + "a" * 400), "/model_info/id"),
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> tuple[Path, Path]:
    """The bundled data without its import, in a store; each test imports over a copy."""
    root = tmp_path_factory.mktemp("odd")
    data, store = root / "data", root / "store"
    shutil.copytree(DATA, data, ignore=WITHOUT_IMPORT)
    assert run(CliRunner(), store, data, "load").exit_code == 0
    return data, store


def records() -> list[str]:
    return result_ids(file_id("every-eval-ever", PATH), ["Accuracy", "Recall"])


def printed_values(store: Path) -> dict[str, str]:
    """The file's records in the store, with their printed values."""
    rows = query(
        store,
        PREFIXES
        + """SELECT ?id ?printed WHERE {
            ?r a kg:Claim ; dcterms:identifier ?id ; kg:reportedValue/kg:printedValue ?printed }""",
    )
    return {r["id"]: r["printed"] for r in rows if r["id"] in records()}


def kept_as_written(store: Path) -> list[dict[str, str]]:
    return query(
        store,
        PREFIXES
        + """SELECT ?node ?pointer ?value ?field WHERE {
            ?node kg:upstreamValue ?u . ?u a kg:UpstreamValue ; kg:pointer ?pointer ;
               rdf:value ?value . OPTIONAL { ?u kg:field ?field } }""",
    )


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_an_odd_value_is_kept_as_written_with_a_warning(
    name: str, loaded, tmp_path: Path, runner: CliRunner
) -> None:
    change, pointer, field, value = VARIANTS[name]
    data, store = copy_of(loaded, tmp_path)
    source = origin_copy(tmp_path / "origin", {PATH: raw_file(change)})
    result = run(runner, store, data, *IMPORT, str(source))
    assert result.exit_code == 0, result.output
    [warning] = [line for line in result.stderr.splitlines() if "warning" in line]
    assert "alpha.json" in warning and f": {pointer}: " in warning and repr(value) in warning
    assert re.search(r"values kept as written\s+1\n", result.stdout)
    assert f"  of {field}" in result.stdout
    # The rest of the file: both its records, with their values.
    assert printed_values(store) == dict(zip(records(), ["0.5", "0.25"], strict=True))
    [kept] = kept_as_written(store)
    assert (kept["pointer"], kept["value"]) == (pointer, value)
    # ... and the typed statement is left out.
    predicate = kept.get("field", SCHEMA_URL)
    if "field" in kept:
        assert kept["field"].endswith(("#" + field, "/" + field))
    typed = [
        r["o"] for r in query(store, f"SELECT ?o WHERE {{ <{kept['node']}> <{predicate}> ?o }}")
    ]
    # (a list of URLs keeps its others)
    assert typed == [] if field != "url" else value not in typed


def test_a_source_url_that_is_none_is_kept_in_the_source_file(
    loaded, tmp_path: Path, runner: CliRunner
) -> None:
    change, pointer, _, value = VARIANTS["source-url-not-a-url"]
    data, store = copy_of(loaded, tmp_path)
    source = origin_copy(tmp_path / "origin", {PATH: raw_file(change)})
    assert run(runner, store, data, *IMPORT, str(source)).exit_code == 0
    written = (data / "sources" / "odd-lab-odd-board.yaml").read_text()
    assert "url:" not in written.replace("upstream_values:", "")
    assert f"pointer: {pointer}" in written and f"file: {PATH}" in written
    assert value in written
    # A load of the data directory as it is now takes it as it is.
    assert run(runner, store, data, "load").exit_code == 0


@pytest.mark.parametrize("name", sorted(FITTING))
def test_an_odd_value_that_fits_imports_as_it_is(
    name: str, loaded, tmp_path: Path, runner: CliRunner
) -> None:
    data, store = copy_of(loaded, tmp_path)
    source = origin_copy(tmp_path / "origin", {PATH: raw_file(FITTING[name])})
    result = run(runner, store, data, *IMPORT, str(source))
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    assert re.search(r"values kept as written\s+0\n", result.stdout)
    assert len(query(store, PREFIXES + "SELECT ?r WHERE { ?r kg:importedBy ?i ; a kg:Claim }")) == 2
    assert kept_as_written(store) == []


def test_every_kind_at_once_verifies_and_exports_as_written(
    loaded, tmp_path: Path, runner: CliRunner
) -> None:
    """kg verify passes on a file of odd values, and kg export gives it back: the values
    kept as written come back from the remainder, numbers as written."""
    data, store = copy_of(loaded, tmp_path)
    raw = raw_file(*(change for change, *_ in VARIANTS.values()))
    source = origin_copy(tmp_path / "origin", {PATH: raw})
    result = run(runner, store, data, *IMPORT, str(source))
    assert result.exit_code == 0, result.output
    # One per place: params_billions, the data set's URLs and the retrieval time are each
    # changed by more than one variant, the last change standing.
    assert len(kept_as_written(store)) == 8
    kept = data / "upstream" / "every-eval-ever"
    verified = run(runner, store, data, "verify", "--all", "--upstream-dir", str(kept))
    assert verified.exit_code == 0, verified.output
    assert "1 passed every check" in verified.output
    exported = run(
        runner,
        store,
        data,
        "export",
        file_id("every-eval-ever", PATH),
        "--format",
        "every-eval-ever",
    )
    assert exported.exit_code == 0, exported.output
    # The same document, every number as written (the keys' order is the export's own).
    assert as_written(loads(exported.stdout.encode())) == as_written(loads(raw))


def as_written(value: Any) -> Any:
    """A JSON document with its numbers as their lexemes and its objects' keys sorted."""
    if isinstance(value, dict):
        return sorted((key, as_written(item)) for key, item in value.items())
    if isinstance(value, list):
        return [as_written(item) for item in value]
    if isinstance(value, JsonNumber):
        return ("number", value.lexeme)
    return value


def test_warnings_are_bounded(loaded, tmp_path: Path, runner: CliRunner) -> None:
    """Each file's odd value is named, the first 20 of them; the rest are counted."""
    data, store = copy_of(loaded, tmp_path)
    files = {
        f"data/odd_board/tiny/{n:02d}.json": raw_file(
            setting("evaluation_id", f"odd/{n}"), setting(*DETAILS, "params_billions", "7")
        )
        for n in range(23)
    }
    result = run(runner, store, data, *IMPORT, str(origin_copy(tmp_path / "origin", files)))
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(lines) == 21 and "3 more value(s) kept as written" in lines[-1]
    assert re.search(r"  of parametersBillions\s+23\n", result.stdout)


@pytest.mark.parametrize("name", sorted(UNMAPPABLE))
def test_a_file_that_cannot_be_mapped_is_refused_or_skipped(
    name: str, loaded, tmp_path: Path, runner: CliRunner
) -> None:
    change, pointer = UNMAPPABLE[name]
    data, store = copy_of(loaded, tmp_path)
    good = raw_file(setting("model_info", "id", "tiny/beta"), setting(*DETAILS, "precision", 16))
    bad = "data/odd_board/tiny/bad.json"
    source = origin_copy(tmp_path / "origin", {PATH: good, bad: raw_file(change)})
    files, before = tree(data), dump(store)
    refused = run(runner, store, data, *IMPORT, str(source))
    assert refused.exit_code == 1, refused.output
    assert "Traceback" not in refused.output
    [line] = [line for line in refused.output.splitlines() if "bad.json" in line]
    assert f": {pointer}: " in line
    assert tree(data) == files and dump(store) == before
    skipped = run(runner, store, data, *IMPORT, str(source), "--skip-invalid")
    assert skipped.exit_code == 0, skipped.output
    assert f"skipped: {bad}: {pointer}: " in skipped.stdout
    kept = data / "upstream" / "every-eval-ever"
    assert (kept / PATH).exists() and not (kept / bad).exists()
    assert set(printed_values(store)) == set(records())
    # The good file's own odd value is kept as written, with its warning.
    assert [k["pointer"] for k in kept_as_written(store)] == [
        "/model_info/additional_details/precision"
    ]
    assert "bad.json" in (data / "imports" / "every-eval-ever.yaml").read_text()
