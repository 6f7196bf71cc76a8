"""kg import removes nothing unasked (issue 49, item 2): a folder imported beside the
bundled slice adds its files and keeps the slice; ``--prune`` removes the files the sources
do not hold, exactly those the dry run listed; each kept file keeps the origin commit it
was taken at, in the import record and in its graph."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import IMPORTED
from helpers.eee import (
    DATA,
    KEPT,
    ORIGIN,
    PREFIXES,
    dump,
    kept_files,
    lower_is_better_files,
    origin_copy,
    query,
    run,
    tree,
)
from helpers.web import app_over
from kg.model.upstream.every_eval_ever.identity import file_id, result_ids
from kg.model.upstream.jsondoc import loads
from kg.model.yamltext import dump_yaml, parse_yaml
from kg.store.queries import canned_query

REPOSITORY = ORIGIN.partition("@")[0]
BUNDLED_COMMIT = ORIGIN.partition("@")[2]
OTHER_COMMIT = "0123456789abcdef0123456789abcdef01234567"
RECORD = Path("imports") / "every-eval-ever.yaml"
IMPORTED_IDS = (
    PREFIXES + "SELECT ?id WHERE { ?r a kg:Claim ; kg:importedBy ?i ; dcterms:identifier ?id }"
)
#: Each kept file's commit, or the reason it is missing (a canned query).
FILE_COMMITS = canned_query("kept-file-commits").text


def record_ids(files: dict[str, bytes]) -> set[str]:
    """The ids of the records ``files`` (by path in the origin) make."""
    ids = set()
    for path, raw in files.items():
        names = [r["evaluation_name"] for r in loads(raw)["evaluation_results"]]
        ids.update(result_ids(file_id("every-eval-ever", path), names))
    return ids


def store_ids(store: Path) -> set[str]:
    return {row["id"] for row in query(store, IMPORTED_IDS)}


@pytest.fixture
def loaded(tmp_path: Path, runner: CliRunner) -> tuple[Path, Path]:
    """A copy of the bundled data, loaded: (data, store)."""
    data, store = tmp_path / "data", tmp_path / "store"
    shutil.copytree(DATA, data)
    result = run(runner, store, data, "load")
    assert result.exit_code == 0, result.output
    return data, store


def import_json(runner: CliRunner, store: Path, data: Path, *args: str) -> dict:
    result = run(runner, store, data, "import", "every-eval-ever", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_folder_beside_the_bundled_slice_removes_nothing(
    loaded: tuple[Path, Path], tmp_path: Path, runner: CliRunner
) -> None:
    data, store = loaded
    bundled, new = kept_files(), lower_is_better_files()
    source = origin_copy(tmp_path / "origin", new)
    result = run(runner, store, data, "import", "every-eval-ever", str(source), "--origin", ORIGIN)
    assert result.exit_code == 0, result.output
    assert re.search(r"records removed\s+0\n", result.stdout)
    assert re.search(rf"files not in the sources, kept\s+{len(bundled)}\n", result.stdout)
    # every bundled file kept, byte for byte, and its records still in the store
    assert kept_files(data / "upstream" / "every-eval-ever") == {**bundled, **new}
    ids = store_ids(store)
    assert len(record_ids(bundled)) == IMPORTED
    assert record_ids(bundled) | record_ids(new) == ids
    assert len(ids) == IMPORTED + len(new)


def test_prune_removes_what_the_dry_run_lists(
    loaded: tuple[Path, Path], tmp_path: Path, runner: CliRunner
) -> None:
    """A newer snapshot: half the bundled files as they were, one changed, the rest gone,
    new files beside them. The dry run and the import list the same files; the store then
    lacks exactly the records of the removed ones."""
    data, store = loaded
    bundled = kept_files()
    paths = sorted(bundled)
    kept_paths, gone = paths[: len(paths) // 2], paths[len(paths) // 2 :]
    changed = kept_paths[0]
    doc = json.loads(bundled[changed])
    doc["evaluation_results"][0]["score_details"]["score"] = 0.5
    newer = {p: bundled[p] for p in kept_paths} | lower_is_better_files()
    newer[changed] = json.dumps(doc, indent=2).encode()
    source = str(origin_copy(tmp_path / "origin", newer))
    files, before = tree(data), dump(store)

    dry = import_json(runner, store, data, source, "--origin", ORIGIN, "--prune", "--dry-run")
    assert tree(data) == files and dump(store) == before  # a dry run writes nothing
    done = import_json(runner, store, data, source, "--origin", ORIGIN, "--prune")
    assert dry.pop("dry_run") and not done.pop("dry_run")
    dry.pop("seconds"), done.pop("seconds")
    assert dry == done
    assert [f["path"] for f in done["removed"]] == gone
    assert [f["path"] for f in done["replaced"]] == [changed]
    assert done["not_in_sources"] == []
    removed_ids = record_ids({p: bundled[p] for p in gone})
    assert (
        done["records"]["removed"] == len(removed_ids) == sum(f["records"] for f in done["removed"])
    )
    assert store_ids(store) == record_ids(newer)
    assert not store_ids(store) & removed_ids
    assert not any((data / "upstream" / "every-eval-ever" / p).exists() for p in gone)


def test_without_prune_the_same_sources_remove_nothing(
    loaded: tuple[Path, Path], tmp_path: Path, runner: CliRunner
) -> None:
    data, store = loaded
    bundled = kept_files()
    one = sorted(bundled)[0]
    source = str(origin_copy(tmp_path / "origin", {one: bundled[one]}))
    for merge in ([], ["--merge"]):  # --merge is the default, kept for old scripts
        report = import_json(runner, store, data, source, "--origin", ORIGIN, *merge)
        assert report["removed"] == [] and report["records"]["removed"] == 0
        assert len(report["not_in_sources"]) == len(bundled) - 1
    assert len(store_ids(store)) == IMPORTED


def test_merge_and_prune_together_are_refused(
    loaded: tuple[Path, Path], tmp_path: Path, runner: CliRunner
) -> None:
    data, store = loaded
    files, before = tree(data), dump(store)
    source = origin_copy(tmp_path / "origin", lower_is_better_files())
    result = run(
        runner, store, data, "import", "every-eval-ever", str(source), "--merge", "--prune"
    )
    assert result.exit_code == 2, result.output
    assert "--merge and --prune" in result.output
    assert tree(data) == files and dump(store) == before


def test_the_text_summary_is_bounded(
    loaded: tuple[Path, Path], tmp_path: Path, runner: CliRunner
) -> None:
    data, store = loaded
    source = origin_copy(tmp_path / "origin", lower_is_better_files())
    result = run(
        runner, store, data, "import", "every-eval-ever", str(source), "--prune", "--dry-run"
    )
    assert result.exit_code == 0, result.output
    removed = [line for line in result.stdout.splitlines() if line.startswith("removed: ")]
    assert len(removed) == 11  # ten files, then how many more
    assert f"and {len(kept_files()) - 10} more" in removed[-1]


def test_each_kept_file_keeps_its_commit(
    loaded: tuple[Path, Path], tmp_path: Path, runner: CliRunner
) -> None:
    """The bundled record (written before files had commits of their own: its one commit
    is every file's) merged with a folder of another commit, then with one of no commit."""
    data, store = loaded
    bundled = kept_files()
    commits = {row["path"]: row["commit"] for row in query(store, FILE_COMMITS)}
    assert commits == dict.fromkeys(bundled, BUNDLED_COMMIT)

    new = lower_is_better_files()
    first, *others = sorted(new)
    source = origin_copy(tmp_path / "other", {p: new[p] for p in others})
    origin = f"{REPOSITORY}@{OTHER_COMMIT}"
    result = run(runner, store, data, "import", "every-eval-ever", str(source), "--origin", origin)
    assert result.exit_code == 0, result.output
    unknown = origin_copy(tmp_path / "unknown", {first: new[first]})
    result = run(runner, store, data, "import", "every-eval-ever", str(unknown))
    assert result.exit_code == 0, result.output

    record = parse_yaml((data / RECORD).read_text())
    assert record["origin"]["commit"] == BUNDLED_COMMIT  # most files' commit
    assert record["kept_at_other_commits"] == [
        {"commit": OTHER_COMMIT, "files": others},
        {
            "commit": {
                "missing": "unreported",
                "note": "the import that kept these files named no commit "
                "(--origin without @COMMIT)",
            },
            "files": [first],
        },
    ]
    rows = query(store, FILE_COMMITS)
    assert {r["path"]: r["commit"] or r["missing"] for r in rows} == {
        **dict.fromkeys(bundled, BUNDLED_COMMIT),
        **dict.fromkeys(others, OTHER_COMMIT),
        first: "https://w3id.org/claimgraph/vocab#unreported",
    }
    # The same bytes again, of the bundled commit: each file now at the commit it is
    # imported at, and nothing listed twice.
    everything = origin_copy(tmp_path / "all", {**bundled, **new})
    result = run(
        runner, store, data, "import", "every-eval-ever", str(everything), "--origin", ORIGIN
    )
    assert result.exit_code == 0, result.output
    record = parse_yaml((data / RECORD).read_text())
    assert "kept_at_other_commits" not in record
    assert {r["commit"] for r in query(store, FILE_COMMITS)} == {BUNDLED_COMMIT}


@pytest.mark.parametrize(
    ("group", "field", "words"),
    [
        ({"commit": OTHER_COMMIT, "files": ["data/nowhere/x.json"]}, "files[0]", "not a kept file"),
        ({"commit": "not a commit", "files": None}, "commit", "neither a commit id"),
    ],
    ids=["a file it does not keep", "not a commit"],
)
def test_a_record_with_a_wrong_commit_group_is_refused(
    loaded: tuple[Path, Path], runner: CliRunner, group: dict, field: str, words: str
) -> None:
    data, store = loaded
    record = parse_yaml((data / RECORD).read_text())
    group["files"] = group["files"] or [sorted(kept_files())[0]]
    record["kept_at_other_commits"] = [group]
    (data / RECORD).write_text(dump_yaml(record) or "")
    before = dump(store)
    result = run(runner, store, data, "load")
    assert result.exit_code == 1, result.output
    line = next(line for line in result.output.splitlines() if "imports/every-eval-ever" in line)
    assert f"kept_at_other_commits[0].{field}" in line and words in line
    assert dump(store) == before


def test_the_bundled_record_is_unchanged_by_the_per_file_commits() -> None:
    """Its files are all at one commit: it lists none under another (back-compatible)."""
    record = parse_yaml((DATA / RECORD).read_text())
    assert "kept_at_other_commits" not in record
    assert len(record["kept"]) == len(kept_files(KEPT))


def test_a_record_page_links_its_file_at_its_own_commit(
    loaded: tuple[Path, Path], tmp_path: Path, runner: CliRunner
) -> None:
    """A file merged from another commit is shown, and linked, at that commit; a bundled
    one at the bundled commit."""
    data, store = loaded
    new = lower_is_better_files()
    source = origin_copy(tmp_path / "origin", new)
    origin = f"{REPOSITORY}@{OTHER_COMMIT}"
    result = run(runner, store, data, "import", "every-eval-ever", str(source), "--origin", origin)
    assert result.exit_code == 0, result.output
    merged, bundled = sorted(record_ids(new))[0], sorted(record_ids(kept_files()))[0]
    with app_over(tmp_path) as app:
        client = app.test_client()
        for ident, commit in ((merged, OTHER_COMMIT), (bundled, BUNDLED_COMMIT)):
            page = client.get(f"/record/{ident}")
            assert page.status_code == 200
            assert f"/blob/{commit}/data/" in page.text
            assert f"at commit <code>{commit}</code>" in page.text


def test_an_import_given_no_commit_says_so(tmp_path: Path, runner: CliRunner) -> None:
    data, store = tmp_path / "data", tmp_path / "store"
    shutil.copytree(DATA / "agents", data / "agents")
    files = lower_is_better_files()
    source = origin_copy(tmp_path / "origin", files)
    result = run(runner, store, data, "import", "every-eval-ever", str(source))
    assert result.exit_code == 0, result.output
    assert "commit" not in parse_yaml((data / RECORD).read_text())["origin"]
    rows = query(store, FILE_COMMITS)
    assert {r["path"]: (r["commit"], r["missing"]) for r in rows} == dict.fromkeys(
        files, ("", "https://w3id.org/claimgraph/vocab#unreported")
    )
