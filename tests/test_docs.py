"""docs/records.md: every example is valid, and every key the mapping reads is documented."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from helpers import BASE, DATA, ROOT
from kg.model.datafiles import parse_yaml
from kg.model.ingest import validate_files
from kg.model.validation import map_paths

DOC = (ROOT / "docs" / "records.md").read_text()
RUNS_DOC = (ROOT / "docs" / "runs.md").read_text()
EXAMPLES = re.findall(r"```yaml\n(.*?)```", DOC + RUNS_DOC, flags=re.S)


def sections() -> dict[str, str]:
    parts = re.split(r"^## `kind: (\w+)`", DOC, flags=re.M)
    found = dict(zip(parts[1::2], parts[2::2], strict=True))
    found["run"] = RUNS_DOC  # run files have a page of their own
    return found


def documented_keys(section: str) -> set[str]:
    keys = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first_cell = line.split("|")[1]
            keys.update(re.findall(r"`([a-z0-9_\[\].]+)`", first_cell))
    return keys


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> Path:
    """The documented examples written as files beside a copy of data/."""
    target = tmp_path_factory.mktemp("docs") / "data"
    shutil.copytree(DATA, target)
    for text in EXAMPLES:
        doc = parse_yaml(text)
        path = target / f"{doc['kind']}s" / f"{doc['id']}.yaml"
        if not path.exists():
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
    return target


def test_one_example_per_kind() -> None:
    kinds = {parse_yaml(text)["kind"] for text in EXAMPLES}
    assert kinds == {"record", "source", "agent", "evaluation", "review", "run", "import"}


def test_examples_are_valid(examples: Path) -> None:
    kinds = {o.kind for o in validate_files([examples], BASE)}
    assert kinds == {
        "record",
        "source",
        "agent",
        "evaluation",
        "review",
        "run",
        "import",
        "upstream",
    }


def test_seed_files_are_the_examples() -> None:
    """The record, source, agent and evaluation examples are the bundled seed files, verbatim
    (not the leaderboards' source files, which kg import writes: docs/imports.md)."""
    for kind in ("records", "sources", "evaluations"):
        for path in (DATA / kind).glob("*.yaml"):
            if "document_type: leaderboard" in path.read_text():
                continue
            assert path.read_text().rstrip() in DOC, path
    assert (DATA / "agents" / "claude.yaml").read_text().rstrip() in DOC


def test_every_key_is_documented(examples: Path) -> None:
    docs = sections()
    by_kind: dict[str, set[str]] = {}
    for mapped in map_paths([examples], BASE):
        by_kind.setdefault(mapped.file.kind, set()).update(mapped.keys)
    for kind, keys in by_kind.items():
        if kind == "upstream":  # kept JSON files: their fields are docs/imports.md's
            continue
        documented = documented_keys(docs[kind])
        if kind == "review":  # a review file takes a record's reviews[] keys too
            documented |= {k.removeprefix("reviews[].") for k in documented_keys(docs["record"])}
        # {missing: ..., note: ...} is documented once, in the rules for every file
        missing_forms = {k.removesuffix(".missing") for k in keys if k.endswith(".missing")}
        keys -= {f"{p}.{sub}" for p in missing_forms for sub in ("missing", "note")}
        undocumented = keys - documented
        assert not undocumented, f"{kind}: undocumented keys {sorted(undocumented)}"
