"""scripts/gpu_sweep.py (the GPU runs of issue 26) and scripts/runs_table.py (the tables of
docs/runs.md): the plan covers every setting, each part fits one device call, and a
rehearsal on the CPU gives a bundle that unpacks into valid run files."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from helpers import BASE, DATA, ROOT, SEED_ID
from kg.model.ingest import validate_files
from scripts import gpu_sweep as sweep
from scripts import runs_table as table


def test_the_plan_runs_every_stage_under_every_setting() -> None:
    recipe = sweep.find_recipe(SEED_ID, None).module
    runs = sweep.plan("all")
    full = [r.precision for r in runs if r.stages == tuple(recipe.STAGES)]
    assert sorted(full) == sorted(recipe.PRECISIONS)  # each setting once, every stage
    repeated = [r for r in runs if r.stages == (sweep.ZERO,)]
    assert len(repeated) == 3 and {r.precision for r in repeated} == {"bf16"}
    assert sweep.plan("new") + sweep.plan("again") == runs


def test_each_part_fits_one_device_call_and_both_do_not(tmp_path: Path) -> None:
    # The plan was made from the stage times of the runs before the sweep (2026-11-30);
    # the sweep's own runs, bundled since, took longer in places (a first op compile).
    before = tmp_path / "runs"
    before.mkdir()
    for run in (DATA / "runs").glob("nt-peak-memory-20261130t*.yaml"):
        shutil.copy(run, before / run.name)
    seconds = sweep.stage_seconds(before)
    assert seconds[("fp32", "checkpointing")] > 0  # read from the bundled runs

    def expected(part: str) -> float:
        return sweep.SETUP + sum(sweep.estimate(r, seconds) for r in sweep.plan(part))

    assert expected("new") <= sweep.CALL_LIMIT and expected("again") <= sweep.CALL_LIMIT
    assert expected("all") > sweep.CALL_LIMIT  # hence two calls
    printed = subprocess.run(
        [sys.executable, "scripts/gpu_sweep.py", "all", "--plan"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "needs more than one device call of 600 s" in printed


def test_a_rehearsal_bundles_runs_that_unpack_into_data(tmp_path: Path) -> None:
    """What the lead does with a GPU call's bundle, on a CPU rehearsal of it."""
    shutil.copytree(DATA, tmp_path / "data")
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "scripts/gpu_sweep.py",
            "new",
            "--rehearse",
            "--limit",
            "1",
            "--out",
            str(out),
            "--data",
            str(tmp_path / "data"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["runs-new.tar.gz", "sweep-new.log"]
    with tarfile.open(out / "runs-new.tar.gz") as tar:
        names = sorted(tar.getnames())
        tar.extractall(tmp_path / "data", filter="data")
    [run] = [n for n in names if n.endswith(".yaml")]
    assert run.startswith("runs/") and f"runs/logs/{Path(run).stem}.log" in names
    kinds = [o.kind for o in validate_files([tmp_path / "data"], BASE)]
    assert kinds.count("run") == len(list((DATA / "runs").glob("*.yaml"))) + 1
    assert "every stage under bf16-fp32-adam" in (out / "sweep-new.log").read_text()
    printed = subprocess.run(
        [
            sys.executable,
            "scripts/runs_table.py",
            "--runs",
            str(tmp_path / "data" / "runs"),
            "--note",
            "issue 26 sweep",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "| `bf16-fp32-adam` |" in printed.stdout
    assert "verdict on 33.88 GB" in printed.stdout and "verdict on 11.49 GB" in printed.stdout


def test_the_runs_table_is_the_run_files(capsys) -> None:
    assert table.main(["--runs", str(DATA / "runs")]) == 0
    out = capsys.readouterr().out
    # the 2026-11-30 runs, as docs/runs.md prints them
    assert "| `bf16` | 100.34 | 79.89 | 25.68 | 12.12 |" in out
    assert "| `fp32` | out of memory | out of memory | 51.49 | 24.17 |" in out
    assert "inconsistent (+110.4 %)" in out
    assert "bf16, + DeepSpeed ZeRO-2 offload, peak allocated GB: 12.12" in out


def test_the_sweep_needs_somewhere_to_put_its_bundle(monkeypatch) -> None:
    monkeypatch.delenv("OUT", raising=False)
    with pytest.raises(SystemExit):
        sweep.main(["new"])
