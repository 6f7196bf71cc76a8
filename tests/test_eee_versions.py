"""Every Eval Ever files of schema 0.2.2 and 0.3.0 (written here to their schemas: no real
newer file is in the repository): each checked against the schema of its version, its new
fields mapped (uncertainty, metric kind and unit, the evaluation library, result ids),
counted as unknown only where its version does not know them, and exported back at its own
version, equal to the kept file."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from helpers import SEED_ID, SEED_RECORD, WITHOUT_IMPORT
from helpers.eee import (
    BASE,
    DATA,
    ORIGIN,
    PREFIXES,
    dump,
    export_file,
    origin_copy,
    query,
    run,
    tree,
)
from kg.model.upstream.every_eval_ever import schema
from kg.model.upstream.every_eval_ever.identity import file_id, result_ids
from kg.resources import resource_dir

FOLDER = resource_dir("schemas") / "every-eval-ever"
SCHEMA_0_3_0 = json.loads((FOLDER / "eval.schema-0.3.0.json").read_text())
UNCERTAINTY = {
    "standard_error": {"value": 0.0141, "method": "analytic"},
    "confidence_interval": {
        "lower": 0.6974,
        "upper": 0.7526,
        "confidence_level": 0.95,
        "method": "normal approximation",
    },
    "num_samples": 1000,
}
#: What the record says of UNCERTAINTY (its numbers as the file writes them).
UNCERTAINTY_TEXT = (
    "standard error 0.0141 (analytic); 95% confidence interval 0.6974 to 0.7526 "
    "(normal approximation); 1000 samples"
)


def file_0_3_0() -> dict[str, Any]:
    """A 0.3.0 file: every field the schema requires, and the new fields claimgraph maps."""
    return {
        "schema_version": "0.3.0",
        "evaluation_id": "tiny-suite/tiny/omega/1770000000",
        "retrieved_timestamp": "1770000000.25",
        "source_metadata": {
            "source_name": "Tiny suite",
            "source_type": "evaluation_run",
            "source_organization_name": "Version bench",
            "evaluator_relationship": "third_party",
            "additional_details": {"snapshot": "2026-08"},
        },
        "eval_library": {"name": "inspect_ai", "version": "0.3.112"},
        "model_info": {
            "name": "omega",
            "id": "tiny/omega",
            "developer": "tiny",
            "additional_details": {
                "deployment_type": "self_deployed",
                "model_availability": "open_weights",
                "precision": "bfloat16",
            },
        },
        "evaluation_results": [
            {
                "evaluation_result_id": "tiny-suite/tinyqa/accuracy",
                "evaluation_name": "TinyQA",
                "source_data": {
                    "dataset_name": "TinyQA",
                    "source_type": "hf_dataset",
                    "hf_repo": "tiny/tinyqa",
                    "hf_split": "test",
                    "samples_number": 1000,
                },
                "metric_config": {
                    "evaluation_description": "Accuracy on TinyQA",
                    "metric_id": "accuracy",
                    "metric_name": "Accuracy",
                    "metric_kind": "accuracy",
                    "metric_unit": "proportion",
                    "lower_is_better": False,
                    "score_type": "continuous",
                    "min_score": 0,
                    "max_score": 1.0,
                },
                "score_details": {"score": 0.725, "uncertainty": copy.deepcopy(UNCERTAINTY)},
            },
            {
                "evaluation_result_id": "tiny-suite/tinylatency/latency",
                "evaluation_name": "TinyLatency",
                "source_data": {
                    "dataset_name": "TinyLatency",
                    "source_type": "url",
                    "url": ["https://example.org/tinylatency"],
                },
                "metric_config": {
                    "evaluation_description": "Milliseconds per answer",
                    "metric_id": "tiny.latency",
                    "metric_name": "Latency",
                    "metric_kind": "latency",
                    "metric_unit": "ms",
                    "lower_is_better": True,
                    "score_type": "continuous",
                    "min_score": 0,
                    "max_score": "Infinity",
                },
                "score_details": {
                    "score": 412.5,
                    "uncertainty": {
                        "standard_error": {"value": 3.25},
                        "num_bootstrap_samples": 200,
                    },
                },
            },
        ],
    }


def file_0_2_2() -> dict[str, Any]:
    """A 0.2.2 file: 0.2.0's fields, the two 0.2.2 adds, and one this schema does not know."""
    doc = file_0_3_0()
    doc["schema_version"] = "0.2.2"
    doc["eval_library"] = {"name": "lm-evaluation-harness", "version": "0.4.9"}
    doc["paper_links"] = ["https://example.org/paper"]  # unknown to claimgraph's 0.2.2
    [result] = doc["evaluation_results"][:1]
    for key in ("metric_id", "metric_name", "metric_kind", "metric_unit"):
        del result["metric_config"][key]
    del result["evaluation_result_id"]
    doc["evaluation_results"] = [result]
    doc["model_info"]["additional_details"] = {"precision": "bfloat16"}
    return doc


FILES = {
    "data/tiny-suite/tiny/omega/00000000-0000-4000-8000-000000000030.json": file_0_3_0(),
    "data/tiny-suite/tiny/omega/00000000-0000-4000-8000-000000000022.json": file_0_2_2(),
}
PATH_0_3_0, PATH_0_2_2 = FILES


def raw(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, indent=2).encode()


def as_written(text: bytes | str) -> Any:
    """A document with its numbers as their lexemes: equal only where every number is
    written the same."""
    return json.loads(text, parse_float=lambda s: ("number", s), parse_int=lambda s: ("number", s))


def records_of(path: str) -> list[str]:
    names = [r["evaluation_name"] for r in FILES[path]["evaluation_results"]]
    return result_ids(file_id("every-eval-ever", path), names)


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Path, Path, str]:
    """The bundled data without its import, and the two files imported (once)."""
    root = tmp_path_factory.mktemp("versions")
    data, store = root / "data", root / "store"
    shutil.copytree(DATA, data, ignore=WITHOUT_IMPORT)
    source = origin_copy(root / "origin", {p: raw(d) for p, d in FILES.items()})
    result = run(
        CliRunner(), store, data, "import", "every-eval-ever", str(source), "--origin", ORIGIN
    )
    assert result.exit_code == 0, result.output
    return data, store, result.stdout


def test_the_files_are_written_to_their_schemas() -> None:
    """The test files are what their versions' schemas describe (an independent validator):
    0.3.0 in full; 0.2.2 as claimgraph derives it, its one unknown field aside."""
    doc = file_0_3_0()
    assert set(SCHEMA_0_3_0["required"]) <= set(doc)
    assert not list(jsonschema.Draft7Validator(SCHEMA_0_3_0).iter_errors(doc))
    derived = schema.schema((0, 2, 2))
    assert "eval_library" in derived["properties"] and derived["version"] == "0.2.2"
    older = {k: v for k, v in file_0_2_2().items() if k != "paper_links"}
    assert not list(jsonschema.Draft7Validator(derived).iter_errors(older))
    # ... which is 0.2.0 with two fields more, not a copy of another file
    assert set(derived["properties"]) - set(schema.schema()["properties"]) == {"eval_library"}


def test_each_version_is_held_to_its_schema() -> None:
    assert schema.rule((0, 2, 0)) == schema.Rule((0, 2, 0), False)
    assert schema.rule((0, 1, 0)) == schema.Rule((0, 2, 0), False)
    assert schema.rule((0, 2, 2)) == schema.Rule((0, 2, 2), True)  # known in part
    assert schema.rule((0, 3, 0)) == schema.Rule((0, 3, 0), False)
    assert schema.rule((0, 4, 1)) == schema.Rule((0, 3, 0), True)


def test_the_uncertainty_is_on_the_record(imported) -> None:
    _, store, _ = imported
    first, second = records_of(PATH_0_3_0)
    rows = query(
        store,
        PREFIXES
        + f"""
        SELECT ?u ?rid ?kind ?name ?mid ?detail ?unit WHERE {{
          <{BASE}record/{first}> kg:uncertainty ?u ; kg:upstreamResultId ?rid ;
              kg:metricKind ?kind ; kg:metricName ?name ; kg:upstreamMetricId ?mid ;
              kg:reportedValue ?v .
          ?v kg:unitDetail ?detail ; <http://qudt.org/schema/qudt/unit> ?unit .
        }}""",
    )
    assert rows == [
        {
            "u": UNCERTAINTY_TEXT,
            "rid": "tiny-suite/tinyqa/accuracy",
            "kind": "accuracy",
            "name": "Accuracy",
            "mid": "accuracy",
            "detail": "proportion",
            "unit": "http://qudt.org/vocab/unit/UNITLESS",
        }
    ]
    rows = query(
        store,
        PREFIXES
        + f"""
        SELECT ?u ?unit ?max WHERE {{
          <{BASE}record/{second}> kg:uncertainty ?u ;
              kg:reportedValue/<http://qudt.org/schema/qudt/unit> ?unit .
          OPTIONAL {{ <{BASE}record/{second}> kg:maxScore ?max }}
        }}""",
    )
    # "ms" is a unit name; an unbounded maximum is no decimal: it stays in the remainder
    assert rows == [
        {
            "u": "standard error 3.25; 200 bootstrap resamples",
            "unit": "http://qudt.org/vocab/unit/MilliSEC",
        }
    ]


def test_the_evaluation_library_is_the_evaluations_software(imported) -> None:
    _, store, _ = imported
    rows = query(
        store,
        PREFIXES
        + """
        SELECT ?id ?name ?version WHERE {
          ?e a kg:Evaluation ; dcterms:identifier ?id ;
             kg:softwarePackage [ a kg:SoftwarePackage ; rdfs:label ?name ; kg:softwareVersion ?version ] .
        } ORDER BY ?name""",
    )
    assert rows == [
        {"id": file_id("every-eval-ever", PATH_0_3_0), "name": "inspect_ai", "version": "0.3.112"},
        {
            "id": file_id("every-eval-ever", PATH_0_2_2),
            "name": "lm-evaluation-harness",
            "version": "0.4.9",
        },
    ]


def test_only_fields_a_version_does_not_know_are_counted(imported) -> None:
    data, _, output = imported
    assert "unknown field: /paper_links (1 file(s)" in output
    assert "/eval_library" not in output and "additional_details" not in output
    record = (data / "imports" / "every-eval-ever.yaml").read_text()
    assert record.count("pointer:") == 1


def test_a_newer_version_is_held_to_0_3_0_with_its_new_fields_counted() -> None:
    doc = file_0_3_0()
    doc["schema_version"] = "0.4.0"
    doc["evaluation_results"][0]["score_details"]["calibration"] = {"ece": 0.02}
    checked = schema_check(doc)
    assert checked.ok, checked.problems
    assert checked.unknown == ["/evaluation_results/*/score_details/calibration"]


def schema_check(doc: dict[str, Any]):
    from kg.model.upstream.every_eval_ever.checks import check

    return check(raw(doc))


def test_the_record_page_and_json_show_the_uncertainty(imported) -> None:
    from kg.web import create_app

    data, store, _ = imported
    [record] = records_of(PATH_0_2_2)
    client = create_app({"store": store, "base": BASE, "data": data}).test_client()
    page = client.get(f"/record/{record}").get_data(as_text=True)
    assert UNCERTAINTY_TEXT in page
    assert "lm-evaluation-harness 0.4.9" in page
    as_json = client.get(f"/record/{record}", headers={"Accept": "application/ld+json"})
    assert as_json.status_code == 200
    assert UNCERTAINTY_TEXT in as_json.get_data(as_text=True)


@pytest.mark.parametrize("path", sorted(FILES))
def test_a_file_exports_back_at_its_version(imported, path: str, runner: CliRunner) -> None:
    data, store, _ = imported
    result = export_file(runner, store, data, path)
    assert result.exit_code == 0, result.output
    written = json.loads(result.stdout)
    assert written["schema_version"] == FILES[path]["schema_version"]
    kept = (data / "upstream" / "every-eval-ever" / path).read_bytes()
    assert written == json.loads(kept)
    # The uncertainty comes back with its numbers as written (the store keeps a bound's
    # decimal, not its lexeme: 1.0 comes back as 1, as for 0.2.0 files)
    assert [r["score_details"] for r in as_written(result.stdout)["evaluation_results"]] == [
        r["score_details"] for r in as_written(kept)["evaluation_results"]
    ]
    held = schema.rule(schema.parse_version(written["schema_version"]))
    assert schema.violations(written, held) == []
    if path == PATH_0_3_0:  # an independent validator agrees
        assert not list(jsonschema.Draft7Validator(SCHEMA_0_3_0).iter_errors(written))


def test_a_0_3_0_file_without_its_library_is_refused(tmp_path: Path, runner: CliRunner) -> None:
    data, store = tmp_path / "data", tmp_path / "store"
    shutil.copytree(DATA, data, ignore=WITHOUT_IMPORT)
    assert run(runner, store, data, "load").exit_code == 0
    files, before = tree(data), dump(store)
    doc = file_0_3_0()
    del doc["eval_library"]
    source = origin_copy(tmp_path / "origin", {PATH_0_3_0: raw(doc)})
    result = run(runner, store, data, "import", "every-eval-ever", str(source), "--origin", ORIGIN)
    assert result.exit_code == 1, result.output
    line = next(line for line in result.output.splitlines() if PATH_0_3_0.rsplit("/")[-1] in line)
    assert ": /eval_library: missing" in line and "0.3.0" in line
    assert tree(data) == files and dump(store) == before


def test_the_jsonld_export_carries_the_uncertainty(imported, runner: CliRunner) -> None:
    data, store, _ = imported
    [record] = records_of(PATH_0_2_2)
    result = run(runner, store, data, "export", record, "--format", "jsonld")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["uncertainty"] == UNCERTAINTY_TEXT


def test_a_written_records_uncertainty_is_said_in_its_file(
    tmp_path: Path, runner: CliRunner
) -> None:
    """A record written by hand states its uncertainty as text: its Every Eval Ever file
    (0.2.0) says it in the result's details, where what does not fit goes."""
    data, store = tmp_path / "data", tmp_path / "store"
    shutil.copytree(DATA, data, ignore=WITHOUT_IMPORT)
    path = data / SEED_RECORD
    text = path.read_text()
    missing = "uncertainty: {missing: unreported}\nmissing_metadata:\n  - field: uncertainty\n"
    missing += "    reason: unreported\n"
    assert missing in text
    path.write_text(text.replace(missing, "uncertainty: ± 0.4 GB over three runs\n"))
    assert run(runner, store, data, "load").exit_code == 0
    result = run(runner, store, data, "export", SEED_ID, "--format", "every-eval-ever")
    assert result.exit_code == 0, result.output
    [only] = json.loads(result.stdout)["evaluation_results"]
    assert only["score_details"]["details"]["uncertainty"] == "± 0.4 GB over three runs"
