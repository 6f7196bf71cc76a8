"""Hostile and broken upstream files: each refused by kg import with the file and the JSON
Pointer named, exit 1, no traceback, the data directory and the store unchanged; and what
is not a problem (folders named like files, a newer schema version) imported."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers.eee import DATA, KEPT, ORIGIN, copy_of, dump, kept_files, origin_copy, run, tree

#: One real file of the slice, as the variants' starting point.
PATH = sorted(kept_files())[0]


def real() -> dict:
    return json.loads((KEPT / PATH).read_bytes())


def edited(change: Callable[[dict], None]) -> bytes:
    doc = real()
    change(doc)
    return json.dumps(doc, indent=2).encode()


def raw_text(change: Callable[[str], str]) -> bytes:
    return change((KEPT / PATH).read_text()).encode()


def _set(*path_and_value):
    *path, value = path_and_value

    def change(doc: dict) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        if value is DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value

    return change


DELETE = object()
SCORE = ("evaluation_results", 0, "score_details", "score")
#: name -> (the file's bytes, the pointer the message must name, words it must say)
VARIANTS: dict[str, tuple[bytes, str, str]] = {
    "truncated": ((KEPT / PATH).read_bytes()[:200], "", "not valid JSON"),
    "trailing-comma": (raw_text(lambda t: t.replace("}", ",}", 1)), "", "not valid JSON"),
    "not-utf8": (b'{"schema_version": "0.2.0\xff"}', "", "not UTF-8"),
    "byte-order-mark": (b"\xef\xbb\xbf" + (KEPT / PATH).read_bytes(), "", "byte-order mark"),
    "empty": (b"", "", "empty"),
    "an-array": (b"[1, 2, 3]", "", "not a JSON object"),
    "deep-nesting": (b"[" * 100_000 + b"]" * 100_000, "", "JSON"),
    "score-not-a-number": (
        edited(_set(*SCORE, "abc")),
        "/evaluation_results/0/score_details/score",
        "not a number ('abc')",
    ),
    "score-nan": (
        raw_text(lambda t: re.sub(r'"score": [0-9.eE+-]+', '"score": NaN', t, count=1)),
        "/evaluation_results/0/score_details/score",
        "not a finite number",
    ),
    "score-infinity": (
        raw_text(lambda t: re.sub(r'"score": [0-9.eE+-]+', '"score": -Infinity', t, count=1)),
        "/evaluation_results/0/score_details/score",
        "not a finite number",
    ),
    "score-missing": (
        edited(_set(*SCORE, DELETE)),
        "/evaluation_results/0/score_details/score",
        "missing",
    ),
    "model-id-missing": (edited(_set("model_info", "id", DELETE)), "/model_info/id", "missing"),
    "source-data-missing": (
        edited(_set("evaluation_results", 0, "source_data", DELETE)),
        "/evaluation_results/0",
        "source_data",
    ),
    "lower-is-better-a-string": (
        edited(_set("evaluation_results", 0, "metric_config", "lower_is_better", "false")),
        "/evaluation_results/0/metric_config/lower_is_better",
        "not true or false",
    ),
    "min-score-a-string": (
        edited(_set("evaluation_results", 0, "metric_config", "min_score", "0")),
        "/evaluation_results/0/metric_config/min_score",
        "not a number",
    ),
    "unknown-evaluator-relationship": (
        edited(_set("source_metadata", "evaluator_relationship", "fourth_party")),
        "/source_metadata/evaluator_relationship",
        "not an evaluator relationship",
    ),
    "empty-result-name": (
        edited(_set("evaluation_results", 0, "evaluation_name", " ")),
        "/evaluation_results/0/evaluation_name",
        "not a name",
    ),
    "duplicate-key": (
        raw_text(
            lambda t: t.replace(
                '"schema_version": "0.2.0",',
                '"schema_version": "0.2.0", "schema_version": "0.2.0",',
                1,
            )
        ),
        "",
        "given more than once",
    ),
    "unknown-field-in-0.2.0": (
        edited(_set("eval_library", "lm-eval")),
        "",
        "does not conform to the schema",
    ),
    "schema-version-not-a-version": (
        edited(_set("schema_version", "banana")),
        "/schema_version",
        "not a version number",
    ),
    "score-type-unknown": (
        edited(_set("evaluation_results", 0, "metric_config", "score_type", "sometimes")),
        "/evaluation_results/0/metric_config",
        "does not conform to the schema",
    ),
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> tuple[Path, Path]:
    """The bundled data in a store; each variant is imported over a copy of both."""
    root = tmp_path_factory.mktemp("hostile")
    data, store = root / "data", root / "store"
    shutil.copytree(DATA, data)
    assert run(CliRunner(), store, data, "load").exit_code == 0
    return data, store


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_broken_file_is_refused(name: str, loaded, tmp_path: Path, runner: CliRunner) -> None:
    raw, pointer, words = VARIANTS[name]
    data, store = copy_of(loaded, tmp_path)
    files, before = tree(data), dump(store)
    source = origin_copy(tmp_path / "origin", {"data/x/y/broken.json": raw})
    result = run(
        runner, store, data, "import", "every-eval-ever", str(source), "--origin", ORIGIN, "--merge"
    )
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    line = next(line for line in result.output.splitlines() if "broken.json" in line)
    if pointer:
        assert f": {pointer}" in line
    assert words in result.output
    assert tree(data) == files
    assert dump(store) == before


def test_the_same_bytes_under_two_paths(loaded, tmp_path: Path, runner: CliRunner) -> None:
    data, store = copy_of(loaded, tmp_path)
    files, before = tree(data), dump(store)
    raw = (KEPT / PATH).read_bytes()
    source = origin_copy(tmp_path / "origin", {"data/a/b/one.json": raw, "data/a/c/two.json": raw})
    result = run(runner, store, data, "import", "every-eval-ever", str(source), "--origin", ORIGIN)
    assert result.exit_code == 1
    assert "two.json" in result.output and "the same bytes as" in result.output
    assert tree(data) == files and dump(store) == before


def test_skip_invalid_imports_the_rest_and_lists_what_it_left(
    loaded, tmp_path: Path, runner: CliRunner
) -> None:
    data, store = copy_of(loaded, tmp_path)
    good = (KEPT / PATH).read_bytes()
    source = origin_copy(
        tmp_path / "origin",
        {"data/a/b/good.json": good, "data/a/c/bad.json": VARIANTS["score-not-a-number"][0]},
    )
    result = run(
        runner,
        store,
        data,
        "import",
        "every-eval-ever",
        str(source),
        "--origin",
        ORIGIN,
        "--name",
        "partial",
        "--skip-invalid",
    )
    assert result.exit_code == 0, result.output
    assert "skipped: data/a/c/bad.json: /evaluation_results/0/score_details/score" in result.stdout
    assert (data / "upstream" / "partial" / "data" / "a" / "b" / "good.json").exists()
    assert not (data / "upstream" / "partial" / "data" / "a" / "c" / "bad.json").exists()
    record = (data / "imports" / "partial.yaml").read_text()
    assert "bad.json" in record and "skipped:" in record


def test_folders_named_like_files_and_newer_schema_versions(
    loaded, tmp_path: Path, runner: CliRunner
) -> None:
    data, store = copy_of(loaded, tmp_path)
    newer = edited(
        lambda d: d.update(
            schema_version="0.2.2",
            eval_library={"name": "x", "version": "1"},  # known to 0.2.2 (docs/imports.md)
            paper_links=["https://example.org/paper"],
        )
    )
    source = origin_copy(tmp_path / "origin", {"data/rb/ai2/model-v0.json/file.json": newer})
    result = run(
        runner,
        store,
        data,
        "import",
        "every-eval-ever",
        str(source),
        "--origin",
        ORIGIN,
        "--name",
        "newer",
    )
    assert result.exit_code == 0, result.output
    assert "unknown field: /paper_links (1 file(s)" in result.stdout
    assert "/eval_library" not in result.stdout
    kept = data / "upstream" / "newer" / "data" / "rb" / "ai2" / "model-v0.json" / "file.json"
    assert kept.read_bytes() == newer
    assert "pointer: /paper_links" in (data / "imports" / "newer.yaml").read_text()


def test_a_kept_file_edited_after_import_is_refused_by_load(
    loaded, tmp_path: Path, runner: CliRunner
) -> None:
    """The import record pins each kept file's SHA-256: edited bytes are no longer the
    evidence the records were made from."""
    data, store = copy_of(loaded, tmp_path)
    before = dump(store)
    kept = data / "upstream" / "every-eval-ever" / PATH
    kept.write_bytes(edited(_set(*SCORE, 0.5)))
    result = run(runner, store, data, "load")
    assert result.exit_code == 1
    [line] = [line for line in result.output.splitlines() if PATH in line]
    assert "not the file the import kept" in line and "imports/every-eval-ever.yaml" in line
    assert dump(store) == before
