"""Imported records checked by machine against their kept files (kg verify), and written
back as Every Eval Ever files (kg export --format every-eval-ever), on the shipped slice."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from helpers import WITHOUT_IMPORT
from helpers.eee import (
    BASE,
    DATA,
    KEPT,
    ORIGIN,
    PREFIXES,
    export_file,
    kept_files,
    origin_copy,
    query,
    run,
)
from kg.model.upstream.every_eval_ever.identity import file_id, result_ids
from kg.resources import resource_dir

SCHEMA = json.loads((resource_dir("schemas") / "every-eval-ever" / "eval.schema.json").read_text())
SEED = (
    "saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-flashattention-checkpointing-zero2"
)


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, Path]:
    data, store = tmp_path / "data", tmp_path / "store"
    shutil.copytree(DATA, data)
    assert run(CliRunner(), store, data, "load").exit_code == 0
    return data, store


def records_of(path: str) -> list[str]:
    doc = json.loads((KEPT / path).read_bytes())
    return result_ids(
        file_id("every-eval-ever", path), [r["evaluation_name"] for r in doc["evaluation_results"]]
    )


def test_verify_a_record_checks_its_whole_file(workspace, runner: CliRunner) -> None:
    data, store = workspace
    path = sorted(kept_files())[0]
    records = records_of(path)
    result = run(runner, store, data, "verify", records[0])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1 + 2 * len(records)  # the file's hash, then each record's two
    assert all("passed" in line for line in lines)
    [review] = list((data / "reviews").glob("eee-*verify*.yaml"))
    text = review.read_text()
    assert all(record in text for record in records)
    # The review is loaded: each record's page shows its own checks and the file's.
    from kg.web import create_app

    app = create_app({"store": store, "base": BASE, "data": data})
    page = app.test_client().get(f"/record/{records[1]}").get_data(as_text=True)
    table = page[page.index('id="verification"') :]
    table = table[: table.index("</table>")]
    assert table.count("<tr id=") == 3  # hash, and this record's pointer and value


def test_verify_all_then_an_edited_file_fails(workspace, runner: CliRunner) -> None:
    data, store = workspace
    kept = data / "upstream" / "every-eval-ever"
    result = run(runner, store, data, "verify", "--all", "--upstream-dir", str(kept))
    assert result.exit_code == 0, result.output
    files = kept_files()
    assert f"verified {len(files)} file(s)" in result.output
    # The kept file edited after import: its hash and that value fail, named.
    path = sorted(files)[0]
    doc = json.loads(files[path])
    old = doc["evaluation_results"][0]["score_details"]["score"]
    doc["evaluation_results"][0]["score_details"]["score"] = 0.9999
    (kept / path).write_text(json.dumps(doc))
    record = records_of(path)[0]
    result = run(runner, store, data, "verify", "--all", "--upstream-dir", str(kept))
    assert result.exit_code == 1
    failed = [line for line in result.stdout.splitlines() if path in line]
    assert any("hash-check: FAILED" in line for line in failed)
    assert any("json-value-check: FAILED" in line and record in line for line in failed)
    rows = query(
        store,
        PREFIXES
        + f"""
        SELECT ?expected ?found WHERE {{
          ?review kg:check ?c . ?c dcterms:type <https://w3id.org/claimgraph/vocab#json-value-check> ;
             kg:checkedRecord/dcterms:identifier "{record}" ; kg:expected ?expected ;
             kg:found ?found ; kg:outcome <https://w3id.org/claimgraph/vocab#failed> }}""",
    )
    assert {(r["expected"], r["found"]) for r in rows} == {(str(old), "0.9999")}
    # ... and the index flags the record.
    from kg.web import create_app

    app = create_app({"store": store, "base": BASE, "data": data})
    listing = app.test_client().get(f"/records.json?q={record}").get_json()
    assert [r["verification"] for r in listing["rows"] if r["id"] == record] == ["failed"]


def test_export_gives_the_kept_files_back(workspace, runner: CliRunner, tmp_path: Path) -> None:
    data, store = workspace
    out = tmp_path / "eee"
    result = run(
        runner, store, data, "export", "--all", "--format", "every-eval-ever", "-o", str(out)
    )
    assert result.exit_code == 0, result.output
    validator = jsonschema.Draft7Validator(SCHEMA)
    for path, raw in kept_files().items():
        written = json.loads((out / path).read_bytes())
        assert not list(validator.iter_errors(written)), path
        assert written == json.loads(raw), path
    seed = list((out / "claimgraph").glob("*.json"))
    assert seed and all(not list(validator.iter_errors(json.loads(p.read_bytes()))) for p in seed)


def test_empty_strings_a_file_gives_come_back(tmp_path: Path, runner: CliRunner) -> None:
    """An empty string is a value (six snapshot files give ``architecture: ""``)."""
    path, raw = next(iter(kept_files().items()))
    doc = json.loads(raw)
    info = doc["model_info"]
    info["developer"] = info["inference_platform"] = ""
    info.setdefault("additional_details", {}).update(architecture="", precision="")
    data, store = tmp_path / "data", tmp_path / "store"
    shutil.copytree(DATA, data, ignore=WITHOUT_IMPORT)
    source = origin_copy(tmp_path / "origin", {path: json.dumps(doc, indent=2).encode()})
    result = run(runner, store, data, "import", "every-eval-ever", str(source), "--origin", ORIGIN)
    assert result.exit_code == 0, result.output
    [ident, *_] = records_of(path)
    exported = export_file(runner, store, data, path)
    assert exported.exit_code == 0, exported.output
    assert json.loads(exported.stdout)["model_info"] == info, ident


def test_any_record_exports_with_what_does_not_fit_said(workspace, runner: CliRunner) -> None:
    data, store = workspace
    result = run(runner, store, data, "export", SEED, "--format", "every-eval-ever")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert not list(jsonschema.Draft7Validator(SCHEMA).iter_errors(doc))
    [only] = doc["evaluation_results"]
    assert only["score_details"]["score"] == 11.49
    assert only["metric_config"]["lower_is_better"] is True
    details = only["score_details"]["details"]
    assert details["unit"] == "gigabyte" and details["printed_value"] == "11.49"
    assert details["claimgraph_record"] == f"{BASE}record/{SEED}"
    assert doc["model_info"]["name"] == "NT 2.5B"


def test_an_evaluation_exports_as_its_file(workspace, runner: CliRunner) -> None:
    data, store = workspace
    path = sorted(kept_files())[0]
    result = export_file(runner, store, data, path)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == json.loads((KEPT / path).read_bytes())


def test_a_record_page_serves_its_every_eval_ever_file(workspace) -> None:
    """/record/ID.eee.json (or Accept: application/x-every-eval-ever+json) is the file the
    CLI writes; an evaluation's page gives its whole file."""
    from kg.web import create_app

    data, store = workspace
    path = sorted(kept_files())[0]
    record = records_of(path)[0]
    client = create_app({"store": store, "base": BASE, "data": data}).test_client()
    by_suffix = client.get(f"/record/{record}.eee.json")
    assert by_suffix.status_code == 200
    assert by_suffix.mimetype == "application/x-every-eval-ever+json"
    [result] = json.loads(by_suffix.data)["evaluation_results"]
    original = json.loads((KEPT / path).read_bytes())
    assert result == original["evaluation_results"][0]
    evaluation = client.get(
        f"/evaluation/{file_id('every-eval-ever', path)}",
        headers={"Accept": "application/x-every-eval-ever+json"},
    )
    assert json.loads(evaluation.data) == original
