"""What a source meant (docs/imports.md): a printed value a rule names as a placeholder
(HELM's -1: not computed) keeps its printed value and locator, but holds no rank, no place
on a chart, no part in a disagreement, and says "not computed (printed -1.0)" wherever it
is shown; a real score outside its declared range stays ranked and is flagged.

The data: the bundled slice (its one HELM Classic file of gpt-3.5-turbo-0613 prints -1 five
times) and a small RewardBench-2-like board whose real Ties score -0.01 lies below the
declared 0, imported beside it.
"""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from helpers.eee import import_beside, kept_files, query, run
from helpers.web import app_over
from kg.errors import UsageError
from kg.model.upstream.every_eval_ever import meanings
from kg.model.upstream.every_eval_ever.identity import file_id, result_ids
from kg.model.upstream.every_eval_ever.mapping import benchmark_of
from kg.model.upstream.jsondoc import loads

SVG = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parents[1]
#: A RewardBench-2-like board: (model, Ties score as written); -0.01 is real, below min 0.
TIES = (("judge/one", "0.42"), ("judge/two", "-0.01"), ("judge/three", "0.3"))


def ties_files() -> dict[str, bytes]:
    files = {}
    for n, (model, score) in enumerate(TIES):
        text = json.dumps(
            {
                "schema_version": "0.2.0",
                "evaluation_id": f"reward-bench-2/{model}/{n}",
                "retrieved_timestamp": f"17700001{n:02d}.5",
                "source_metadata": {
                    "source_name": "RewardBench 2",
                    "source_type": "documentation",
                    "source_organization_name": "Allen Institute for AI",
                    "evaluator_relationship": "third_party",
                },
                "model_info": {"name": model.split("/")[1], "id": model, "developer": "judge"},
                "evaluation_results": [
                    {
                        "evaluation_name": "Ties",
                        "source_data": {
                            "dataset_name": "RewardBench 2",
                            "source_type": "hf_dataset",
                            "hf_repo": "allenai/reward-bench-2",
                        },
                        "metric_config": {
                            "evaluation_description": "Ties score",
                            "lower_is_better": False,
                            "score_type": "continuous",
                            "min_score": 0,
                            "max_score": 1,
                        },
                        "score_details": {"score": "SCORE"},
                    }
                ],
            },
            indent=2,
        ).replace('"SCORE"', score)  # the score as written, not as Python writes a float
        files[f"data/reward-bench-2/{model}/{n:08d}-0000-4000-8000-000000000000.json"] = (
            text.encode()
        )
    return files


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Path, str]:
    """The bundled data with the Ties board imported beside it; the import's summary."""
    root = tmp_path_factory.mktemp("meanings")
    return root, import_beside(root, ties_files())


@pytest.fixture(scope="module")
def client(imported):
    with app_over(imported[0]) as app:
        yield app.test_client()


def helm_placeholders() -> list[dict[str, Any]]:
    """The bundled results HELM printed -1 for: record id, benchmark id, the file's path."""
    found = []
    for path, raw in kept_files().items():
        doc = json.loads(raw)
        results = doc["evaluation_results"]
        ids = result_ids(file_id("every-eval-ever", path), [r["evaluation_name"] for r in results])
        for ident, result in zip(ids, results, strict=True):
            if result["score_details"]["score"] == -1:
                found.append({"id": ident, "benchmark": benchmark_of(result)["id"], "path": path})
    return found


def board(client, benchmark: str) -> dict[str, Any]:
    response = client.get(f"/benchmark/{benchmark}/leaderboard.json")
    assert response.status_code == 200
    return response.get_json()


def test_the_bundled_slice_has_five_helm_placeholders_of_one_file() -> None:
    found = helm_placeholders()
    assert len(found) == 5 and len({f["path"] for f in found}) == 1
    assert "helm_classic/openai/gpt-3.5-turbo-0613/" in found[0]["path"]


def test_they_keep_their_printed_value_and_locator_and_gain_a_reason(imported) -> None:
    root, _ = imported
    rows = query(
        root / "store",
        """PREFIX kg: <https://w3id.org/claimgraph/ns#>
        PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
        SELECT ?id ?printed ?reason ?where WHERE {
          ?record <http://purl.org/dc/terms/identifier> ?id ; kg:reportedValue ?value ;
                  kg:locator/rdfs:label ?where .
          ?value a kg:MissingValue ; kg:reason ?reason ; kg:printedValue ?printed }""",
    )
    assert {r["id"] for r in rows} == {f["id"] for f in helm_placeholders()}
    assert {r["printed"] for r in rows} == {"-1.0"}
    assert {r["reason"] for r in rows} == {"https://w3id.org/claimgraph/vocab#not-computed"}
    assert all("/score_details/score in data/helm_classic/" in r["where"] for r in rows)


def test_they_are_not_ranked_and_the_board_says_not_computed(client) -> None:
    for placeholder in helm_placeholders():
        got = board(client, placeholder["benchmark"])
        [row] = [r for r in got["rows"] if r["id"] == placeholder["id"]]
        assert row["rank"] is None and row["value"] is None
        assert row["value_note"] == "not computed (printed -1.0)"
        assert row["printed_value"] == "-1.0"
        assert all(r["rank"] is not None for r in got["rows"] if r is not row)
        text = client.get(f"/benchmark/{placeholder['benchmark']}/leaderboard.csv").text
        [line] = [r for r in csv.DictReader(io.StringIO(text)) if r["id"] == placeholder["id"]]
        assert line["rank"] == "" and line["value_note"] == "not computed (printed -1.0)"
        assert "not computed (printed -1.0)" in client.get(
            f"/benchmark/{placeholder['benchmark']}"
        ).get_data(as_text=True)
        listed = client.get("/records.json", query_string={"q": placeholder["id"]}).get_json()
        [entry] = [r for r in listed["rows"] if r["id"] == placeholder["id"]]
        assert entry["value_note"] == "not computed (printed -1.0)"


def test_they_are_not_on_the_chart(client) -> None:
    for placeholder in helm_placeholders():
        html = client.get(f"/benchmark/{placeholder['benchmark']}").get_data(as_text=True)
        found = re.search(r"<svg .*?</svg>", html, re.S)
        if found is None:  # a board of placeholders alone draws no chart
            assert len(board(client, placeholder["benchmark"])["rows"]) == 1
            continue
        svg = ET.fromstring(found.group(0))
        marks = [m.get("data-record") for m in svg.iter(f"{SVG}rect")]
        assert marks and placeholder["id"] not in marks
        ticks = [
            float(t.text)
            for t in svg.iter(f"{SVG}text")
            if t.get("class") == "tick-label" and t.get("text-anchor") == "end"
        ]
        assert min(ticks) >= 0  # the axis no longer runs down to -1


def test_they_are_in_no_disagreement(client, imported) -> None:
    ids = {f["id"] for f in helm_placeholders()}
    html = client.get("/disagreements").get_data(as_text=True)
    assert not any(ident in html for ident in ids)
    rows = query(imported[0] / "store", (ROOT / "queries" / "disagreements.rq").read_text())
    assert rows and not {r["id"] for r in rows} & ids
    root, seen = imported[0], set()
    for placeholder in helm_placeholders():  # the canned query that ranks leaves them out
        ranked = run(
            CliRunner(),
            root / "store",
            root / "data",
            "query",
            "benchmark-ranking",
            "--param",
            f"benchmark={placeholder['benchmark']}",
            "--format",
            "csv",
        )
        assert ranked.exit_code == 0, ranked.output
        listed = {r["id"] for r in csv.DictReader(io.StringIO(ranked.stdout))}
        assert placeholder["id"] not in listed
        seen |= listed
    assert seen  # a board with real scores beside a placeholder lists them


def test_their_record_pages_say_not_computed(client) -> None:
    for placeholder in helm_placeholders():
        html = client.get(f"/record/{placeholder['id']}").get_data(as_text=True)
        headline = re.search(r'<p class="headline">.*?</p>', html, re.S).group(0)
        assert "not computed (printed -1.0)" in headline
        assert re.search(r'id="board-rank">unranked \(not computed', html)
        assert 'id="range-flag"' not in html  # a placeholder is not a score out of range
        items = client.get(
            f"/record/{placeholder['id']}",
            headers={"Accept": "application/vnd.citationstyles.csl+json"},
        ).get_json()
        assert "Value: not computed (printed -1.0)" in items[-1]["note"]


def test_the_model_page_plots_no_placeholder(client) -> None:
    html = client.get("/model/openai%2Fgpt-3.5-turbo-0613").get_data(as_text=True)
    svg = ET.fromstring(re.search(r"<svg .*?</svg>", html, re.S).group(0))
    said = [a.get("aria-label") for a in svg.iter(f"{SVG}a")]
    assert said and not any("-1.0" in s for s in said)
    assert html.count("not computed (printed -1.0)") == len(helm_placeholders())


def test_the_every_eval_ever_export_writes_the_value_as_printed(imported) -> None:
    root, _ = imported
    path = helm_placeholders()[0]["path"]
    result = run(
        CliRunner(),
        root / "store",
        root / "data",
        "export",
        file_id("every-eval-ever", path),
        "--format",
        "every-eval-ever",
    )
    assert result.exit_code == 0, result.output
    kept = loads(kept_files()[path])
    written = loads(result.stdout.encode())
    assert written == kept
    lexemes = [r["score_details"]["score"].lexeme for r in written["evaluation_results"]]
    assert lexemes == [r["score_details"]["score"].lexeme for r in kept["evaluation_results"]]
    assert lexemes.count("-1.0") == 5


def test_a_real_negative_score_stays_ranked_and_is_flagged(client, imported) -> None:
    _, summary = imported
    assert re.search(r"results outside the declared range\s+1\b", summary)
    ties = benchmark_of(json.loads(next(iter(ties_files().values())))["evaluation_results"][0])
    got = board(client, ties["id"])
    assert [(r["printed_value"], r["rank"]) for r in got["rows"]] == [
        ("0.42", 1),
        ("0.3", 2),
        ("-0.01", 3),
    ]
    assert all(r["value_note"] == "" for r in got["rows"])
    low = got["rows"][-1]
    html = client.get(f"/record/{low['id']}").get_data(as_text=True)
    assert re.search(r'id="range-flag">[^<]*outside the declared range 0-1', html)
    high = client.get(f"/record/{got['rows'][0]['id']}").get_data(as_text=True)
    assert 'id="range-flag"' not in high


def result_of(source: str, metric: str, score: str) -> dict[str, Any]:
    return loads(
        json.dumps({"evaluation_name": metric, "score_details": {"score": "S"}})
        .replace('"S"', score)
        .encode()
    )


@pytest.mark.parametrize(
    ("source", "metric", "score", "rule"),
    [
        ("helm_classic", "XSUM", "-1.0", "helm-minus-one"),
        ("helm_lite", "GSM8K", "-1", "helm-minus-one"),
        ("helm_classic", "XSUM", "-0.5", None),
        ("RewardBench 2", "Ties", "-0.01", None),  # real: Ties can go below 0
        ("HF Open LLM v2", "IFEval", "-1.0", None),  # a rule is per source
        ("RewardBench", "Prior Sets (0.5 weight)", "0.0", "rewardbench-prior-sets-zero"),
        ("RewardBench", "Chat", "0.0", None),  # and per metric
    ],
)
def test_a_rule_is_per_source_metric_and_value(source, metric, score, rule) -> None:
    found = meanings.placeholder(source, result_of(source, metric, score))
    assert (found.id if found else None) == rule


def test_a_rule_with_an_unknown_reason_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "meanings.yaml"
    bad.write_text("rules:\n  - id: x\n    sources: [s]\n    value: '-1'\n    reason: broken\n")
    with pytest.raises(UsageError, match="rule x"):
        meanings.rules(bad)
