"""Reading data files: strings stay strings, hostile YAML is refused with a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.errors import InvalidDataError, UsageError
from kg.model.datafiles import find_data_files, parse_yaml, read_data_file


def test_scalars_stay_strings() -> None:
    doc = parse_yaml("a: 11.50\nb: no\nc: 2026-03-09\nd: 0x1F\ne: [1, true]\n")
    assert doc == {"a": "11.50", "b": "no", "c": "2026-03-09", "d": "0x1F", "e": ["1", "true"]}


def refusal(tmp_path: Path, text: str) -> InvalidDataError:
    """What reading an agent file with ``text`` after its kind raises."""
    path = tmp_path / "bad.yaml"
    path.write_text("kind: agent\n" + text)
    with pytest.raises(InvalidDataError) as info:
        read_data_file(path)
    return info.value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: &x [1]\nb: *x\n", "aliases"),
        ("a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: &d [*c, *c]\ne: [*d, *d]\n", "aliases"),
        ("a: !!python/object/apply:os.system ['true']\n", "tags"),
        ("a: 1\na: 2\n", "duplicate key 'a'"),
        ("a: [\n", "YAML error: line"),
        ("a: 1\n---\nb: 2\n", "YAML error"),
        ("? [a]\n: 1\n", "keys must be plain strings"),
        ("a: " + "[" * 40 + "]" * 40 + "\n", "nested deeper"),
    ],
)
def test_hostile_yaml_is_refused(tmp_path: Path, text: str, expected: str) -> None:
    refused = refusal(tmp_path, text)
    assert expected in refused.lines()[0]
    assert "bad.yaml" in refused.lines()[0]


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("reviews:\n  - methods: [a, *x]\n", "reviews[0].methods[1]"),
        ("locator:\n  page: !!int 6\n", "locator.page"),
        ('label: "a\\0b"\n', "label"),
        ("methods: [a, b\n", "methods"),
        # Refused by our reader or by the parser's own nesting limit, whichever comes first.
        ("note: " + "[" * 300_000 + "]" * 300_000 + "\n", "note"),
    ],
)
def test_a_yaml_error_names_the_field_being_read(tmp_path: Path, text: str, field: str) -> None:
    [problem] = refusal(tmp_path, text).problems
    assert problem.file.endswith("bad.yaml") and problem.message.startswith("YAML error")
    assert problem.field == field or problem.field.startswith((field + "[", field + "."))


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "file is empty"),
        (b"\xff\xfe\x00junk", "not UTF-8"),
        (b"- a\n- b\n", "must be a YAML mapping"),
        (b"id: x\n", "missing 'kind'"),
        (b"kind: claim\nid: x\n", "unknown kind 'claim'"),
    ],
)
def test_unusable_files(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(content)
    with pytest.raises(InvalidDataError) as info:
        read_data_file(path)
    assert expected in info.value.lines()[0]


def test_oversized_file_is_refused_without_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("kind: agent\nnote: " + "x" * 2_000_000 + "\n")
    with pytest.raises(InvalidDataError) as info:
        read_data_file(path)
    assert "too large" in info.value.lines()[0]


def test_an_import_record_of_a_million_results_is_not_too_large(tmp_path: Path) -> None:
    """A million Every Eval Ever results name about 141,000 models: their import record is
    about 19 MB, past other data files' limit and within an import record's."""
    (tmp_path / "imports").mkdir()
    path = tmp_path / "imports" / "big.yaml"
    padding = "# " + "x" * 1000 + "\n"
    path.write_text("kind: agent\nid: x\nagent_type: person\nlabel: x\n" + padding * 19_500)
    assert read_data_file(path).kind == "agent"  # read, not refused for its size
    path.write_text("kind: agent\nid: x\n" + padding * 70_000)
    with pytest.raises(InvalidDataError) as info:
        read_data_file(path)
    assert "too large" in info.value.lines()[0]


def test_find_data_files(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.yaml").write_text("kind: agent\n")
    (tmp_path / "a" / "y.yml").write_text("kind: agent\n")
    (tmp_path / "a" / "notes.txt").write_text("not data")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "z.yaml").write_text("kind: agent\n")
    assert [p.name for p in find_data_files([tmp_path])] == ["x.yaml", "y.yml"]
    with pytest.raises(UsageError):
        find_data_files([tmp_path / "missing"])
    with pytest.raises(UsageError):
        find_data_files([tmp_path / "a" / "notes.txt"])
