"""Each kind of violation, on a copy of the seed files, is rejected naming file, record and field."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import BASE, DATA_FILES, OTHER_ID, SEED_ID, SEED_RECORD
from helpers.variants import AGENT, RUN, VARIANTS, Doc, break_file, setter, verdict_on
from kg.cli import main
from kg.errors import InvalidDataError
from kg.model.datafiles import parse_yaml
from kg.model.ingest import validate_files as validate_paths


@pytest.mark.parametrize(
    ("relative", "change", "field", "message"),
    [pytest.param(*v[1:], id=v[0]) for v in VARIANTS],
)
def test_variant_is_rejected_by_file_and_field(
    written_copy: Path,
    relative: str,
    change: Callable[[Doc], None],
    field: str,
    message: str,
) -> None:
    break_file(written_copy, relative, change)
    with pytest.raises(InvalidDataError) as info:
        validate_paths([written_copy], BASE)
    label = f"{parse_yaml((written_copy / relative).read_text())['kind']} "
    assert any(
        p.file.endswith(relative)
        and p.label.startswith(label)
        and p.field == field
        and message in p.message
        for p in info.value.problems
    ), "\n".join(info.value.lines())


def test_a_verdict_on_a_second_claim_is_valid(data_copy: Path) -> None:
    """The unbroken form of the variants above: the fp32 run's checkpointing measurement
    against the 33.88 GB claim, with the outcome that follows."""
    break_file(
        data_copy,
        RUN,
        verdict_on(
            OTHER_ID,
            stage="checkpointing",
            claimed="33.88",
            measured="51.49",
            relative_difference="0.5198",
            outcome="inconsistent",
        ),
    )
    assert len(validate_paths([data_copy], BASE)) == DATA_FILES


def test_enough_kinds_of_violation() -> None:
    assert len(VARIANTS) >= 20


def test_the_seed_is_valid(data_copy: Path) -> None:
    assert len(validate_paths([data_copy], BASE)) == DATA_FILES


def test_duplicate_id_across_files(data_copy: Path) -> None:
    (data_copy / "agents" / "claude-again.yaml").write_text((data_copy / AGENT).read_text())
    with pytest.raises(InvalidDataError) as info:
        validate_paths([data_copy], BASE)
    [problem] = info.value.problems
    assert problem.field == "id"
    assert problem.label == "agent claude"
    named = {Path(problem.file).name, Path(problem.message.rsplit(" ", 1)[-1]).name}
    assert named == {"claude.yaml", "claude-again.yaml"}
    assert "the id is already used by" in problem.message


def test_cli_prints_one_line_per_problem(data_copy: Path, runner, monkeypatch) -> None:
    monkeypatch.chdir(data_copy.parent)
    break_file(
        data_copy, SEED_RECORD, setter("reviews", 0, "reviewed_at", value="2026-13-45T22:00:00Z")
    )
    result = runner.invoke(main, ["validate", "data"])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"data/{SEED_RECORD}: record {SEED_ID}: reviews[0].reviewed_at: "
        "not a date-time with time zone ('2026-13-45T22:00:00Z')"
    )
    assert "Traceback" not in result.output
    assert result.stdout == ""


def test_cli_exit_codes(data_copy: Path, runner, monkeypatch) -> None:
    monkeypatch.chdir(data_copy.parent)
    ok = runner.invoke(main, ["validate", "data"])
    assert ok.exit_code == 0, ok.output
    assert f"{DATA_FILES} file(s) valid" in ok.stderr
    single = runner.invoke(main, ["validate", f"data/{SEED_RECORD}"])
    assert single.exit_code == 0, single.output  # references resolve against data/
    alone = runner.invoke(main, ["validate", "--no-context", f"data/{SEED_RECORD}"])
    assert alone.exit_code == 1
    assert "refers to a source that no source file defines" in alone.stderr
    assert runner.invoke(main, ["validate", "nowhere"]).exit_code == 2
    assert runner.invoke(main, ["validate"]).exit_code == 2
    assert "Example" in runner.invoke(main, ["validate", "--help"]).output
