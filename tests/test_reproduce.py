"""Recipes and the runner on the CPU: the same recipe code, a tiny model, no GPU needed."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from helpers import BASE, DATA, OTHER_ID, ROOT, SEED_ID, open_test_store
from helpers.web import web_app
from kg.config import Settings
from kg.export.rocrate import write_run_crate
from kg.model.datafiles import parse_yaml
from kg.model.ingest import validate_files
from kg.registry import Registry
from kg.reproduce import ReproduceError, find_recipe, judged_records, parameters, verdict
from kg.store.load import load_paths
from kg.store.records import record_closure

torch = pytest.importorskip("torch", reason="the recipe tests need torch (the [test] extra)")
TINY_PARAMS = {
    "model": "tiny",
    "device": "cpu",
    "sequence_length": "32",
    "batch_size": "2",
    "steps": "2",
}
TINY = [arg for name, value in TINY_PARAMS.items() for arg in ("--param", f"{name}={value}")]
#: The settings the runs of 2026-11-30 had not (issue 26): each must run tiny here.
NEW_PRECISIONS = ("bf16-fp32-adam", "bf16-fp32-master")


def run_tiny(root: Path, *args: str) -> tuple[Path, dict]:
    """python3 -m kg.reproduce over root/data (a copy of data/), tiny, on the CPU."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kg.reproduce",
            SEED_ID,
            "--data",
            str(root / "data"),
            *TINY,
            *args,
            "-o",
            str(root / "data" / "runs"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr  # a skipped stage is not a failed run
    path = Path(re.search(r"^wrote (\S+\.yaml): ", result.stderr, re.M).group(1))
    return path, yaml.load(path.read_text(), Loader=yaml.BaseLoader) | {"_path": str(path)}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> tuple[Path, dict]:
    """A real run of nt-peak-memory on the CPU: two stages, one of which cannot run here."""
    root = tmp_path_factory.mktemp("run")
    shutil.copytree(DATA, root / "data")
    _, doc = run_tiny(root, "--stage", "baseline", "--stage", "deepspeed-zero2-offload")
    return root, doc


@pytest.fixture(scope="module")
def joint_run(tmp_path_factory) -> tuple[Path, dict]:
    """A run of a new setting through the stage of the 33.88 GB claim: one verdict on each
    claim of the sentence."""
    root = tmp_path_factory.mktemp("joint")
    shutil.copytree(DATA, root / "data")
    _, doc = run_tiny(
        root,
        "--stage",
        "checkpointing",
        "--stage",
        "deepspeed-zero2-offload",
        "--param",
        f"precision={NEW_PRECISIONS[0]}",
        "--note",
        "a tiny test run",
    )
    return root, doc


@pytest.mark.slow
def test_run_file_keys_and_values(tiny_run) -> None:
    _, doc = tiny_run
    assert doc["kind"] == "run" and doc["record"] == SEED_ID
    assert doc["recipe"]["name"] == "nt-peak-memory"
    recipe = ROOT / "recipes" / "nt_peak_memory.py"
    assert doc["recipe"]["sha256"] == hashlib.sha256(recipe.read_bytes()).hexdigest()
    params = {p["name"]: p["value"] for p in doc["parameters"]}
    assert params["model"] == "tiny" and params["precision"] == "bf16" and params["seed"] == "42"
    assert all(p["note"] for p in doc["parameters"])
    stages = {s["stage"]: s for s in doc["stages"]}
    assert stages["baseline"]["status"] == "completed"
    # never silently: what the CPU cannot measure is reported as skipped, with the reason
    assert "peak-allocated" in stages["baseline"]["skipped_measurements"]
    assert stages["deepspeed-zero2-offload"]["status"] == "skipped"
    assert stages["deepspeed-zero2-offload"]["reason"]
    quantities = {(m["stage"], m["quantity"]) for m in doc["measurements"]}
    assert ("baseline", "parameters") in quantities and ("baseline", "final-loss") in quantities
    # the 33.88 GB claim's stage did not run: a verdict on the seed's claim alone
    [judged] = doc["verdicts"]
    assert judged["record"] == SEED_ID and judged["outcome"] == "not-comparable"
    assert doc["status"] == "completed"  # skipped stages are not failures


def test_a_run_judges_every_claim_whose_stage_it_ran(joint_run) -> None:
    root, doc = joint_run
    assert doc["record"] == SEED_ID and doc["note"] == "a tiny test run"
    assert [(v["record"], v["stage"], v["claimed"]) for v in doc["verdicts"]] == [
        (SEED_ID, "deepspeed-zero2-offload", "11.49"),
        (OTHER_ID, "checkpointing", "33.88"),
    ]
    # on a CPU no GPU memory is measured: neither claim can be compared, and both say why
    assert {v["outcome"] for v in doc["verdicts"]} == {"not-comparable"}
    assert all("no peak-allocated was measured" in v["note"] for v in doc["verdicts"])
    params = {p["name"]: p for p in doc["parameters"]}
    assert params["precision"]["value"] == NEW_PRECISIONS[0]
    assert all(name in params["precision"]["note"] for name in NEW_PRECISIONS)
    kinds = {o.kind for o in validate_files([root / "data"], BASE)}
    assert "run" in kinds


def test_the_joint_run_joins_both_records(joint_run) -> None:
    root, doc = joint_run
    run = f"{BASE}activity/{doc['id']}"
    with open_test_store(root / "store") as store:
        load_paths(store, [root / "data"], BASE)
        for record in (SEED_ID, OTHER_ID):
            graphs = {q.graph_name.value for q in record_closure(store, BASE, record)}
            assert run in graphs
            # a record's closure holds its own graph, never the other record's
            other = OTHER_ID if record == SEED_ID else SEED_ID
            assert f"{BASE}record/{other}" not in graphs


def test_both_pages_set_the_joint_run_beside_both_claims(joint_run, tmp_path: Path) -> None:
    """The run's row on each page has a verdict in the column of each claim."""
    root, doc = joint_run
    shutil.copytree(root / "data", tmp_path / "data")
    client = web_app(tmp_path).test_client()
    for record in (SEED_ID, OTHER_ID):
        html = client.get(f"/record/{record}").text
        table = html.split('<table class="quote-claims">')[1].split("</table>")[0]
        row = next(r for r in table.split("<tr") if doc["id"] in r)
        assert row.count("<strong>not comparable</strong>") == 2 and "no verdict" not in row
        runs = html.split("<h3>Reproduction runs (claimgraph)</h3>")[1]
        other = OTHER_ID if record == SEED_ID else SEED_ID
        assert f'the run also gave a verdict on <a href="/record/{other}">' in runs


SLOW_RECIPE = """
import os, subprocess, sys, time
NAME = "slow"
STAGES = ("only",)
CLAIMS = {}
TOLERANCE = "0.10"
PARAMETERS = {}
def run(stage, params, log):
    # a child of its own too: a stopped stage takes what it started with it
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    log(f"child {child.pid}")
    time.sleep(60)
"""


def test_a_stage_past_its_time_limit_is_stopped_and_recorded(tmp_path: Path) -> None:
    from kg.reproduce import load_recipe
    from kg.reproduce.runner import run_stage

    path = tmp_path / "slow.py"
    path.write_text(SLOW_RECIPE)
    log = tmp_path / "run.log"
    log.write_text("")
    result = run_stage(load_recipe(path), "only", {}, log, timeout=3)
    assert result == {"status": "failed", "reason": "the stage did not end within 3 s (stopped)"}
    child = int(re.search(r"child (\d+)", log.read_text()).group(1))
    assert (
        not Path(f"/proc/{child}").exists()
        or "zombie" in Path(f"/proc/{child}/status").read_text().lower()
    )
    assert "only: stopped after 3 s" in log.read_text()


def test_which_records_a_run_judges() -> None:
    recipe = find_recipe(SEED_ID, None)
    assert find_recipe(OTHER_ID, None).name == recipe.name  # one recipe, both claims
    assert judged_records(recipe, SEED_ID, ["deepspeed-zero2-offload"]) == [SEED_ID]
    assert judged_records(recipe, SEED_ID, list(recipe.module.STAGES)) == [SEED_ID, OTHER_ID]
    assert judged_records(recipe, OTHER_ID, ["checkpointing"]) == [OTHER_ID]


def test_a_claim_without_its_record_file_stops_the_run_before_it_starts(tmp_path: Path) -> None:
    shutil.copytree(DATA, tmp_path / "data")
    (tmp_path / "data" / "records" / f"{OTHER_ID}.yaml").unlink()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kg.reproduce",
            SEED_ID,
            "--data",
            str(tmp_path / "data"),
            *TINY,
            "-o",
            str(tmp_path / "out"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert f"no record file {tmp_path / 'data' / 'records' / OTHER_ID}.yaml" in result.stderr
    assert not (tmp_path / "out").exists()  # nothing ran, nothing was written


@pytest.mark.parametrize("precision", ["fp32", "amp-bf16", "bf16", *NEW_PRECISIONS])
def test_every_precision_trains_tiny_on_the_cpu(precision: str) -> None:
    """The stage of the 33.88 GB claim (FlashAttention and checkpointing) under every
    setting, in this process: the recipe's own code path, a tiny model."""
    recipe = find_recipe(SEED_ID, None)
    assert precision in recipe.module.PRECISIONS
    params = parameters(recipe, {**TINY_PARAMS, "precision": precision})
    lines: list[str] = []
    measurements = recipe.module.run("checkpointing", params, lines.append)
    found = {m["quantity"]: m["value"] for m in measurements}
    assert int(found["parameters"]) > 0 and float(found["final-loss"]) > 0
    assert "peak-allocated" not in found  # a CPU measures no GPU memory
    assert any(precision in line for line in lines)


def _tiny_model(dtype):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4))
    return model.to(dtype)


def _train(model, optimizer, steps: int = 3) -> None:
    torch.manual_seed(1)
    for _ in range(steps):
        x = torch.randn(5, 8, dtype=next(model.parameters()).dtype)
        model(x).float().pow(2).mean().backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


@pytest.mark.parametrize("master", [False, True])
def test_the_fp32_state_adamw_is_adamw(master: bool) -> None:
    """On fp32 parameters it steps exactly as torch.optim.AdamW does (same defaults)."""
    recipe = find_recipe(SEED_ID, None)
    ours, theirs = _tiny_model(torch.float32), _tiny_model(torch.float32)
    _train(ours, recipe.module.fp32_state_adamw(ours.parameters(), 1e-2, master=master))
    _train(theirs, torch.optim.AdamW(theirs.parameters(), lr=1e-2, foreach=False))
    for a, b in zip(ours.parameters(), theirs.parameters(), strict=True):
        assert torch.allclose(a, b, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("master", [False, True])
def test_the_fp32_state_adamw_keeps_fp32_state_for_a_bf16_model(master: bool) -> None:
    recipe = find_recipe(SEED_ID, None)
    model = _tiny_model(torch.bfloat16)
    optimizer = recipe.module.fp32_state_adamw(model.parameters(), 1e-2, master=master)
    _train(model, optimizer, steps=1)
    for p in model.parameters():
        assert p.dtype == torch.bfloat16
        state = optimizer.state[p]
        assert state["exp_avg"].dtype == state["exp_avg_sq"].dtype == torch.float32
        assert ("master" in state) == master
        if master:  # the bf16 weights are the fp32 master copy, rounded
            assert state["master"].dtype == torch.float32
            assert torch.equal(p, state["master"].to(torch.bfloat16))


@pytest.mark.slow
def test_environment_is_captured(tiny_run) -> None:
    _, doc = tiny_run
    env = doc["environment"]
    assert env["python"] == ".".join(map(str, sys.version_info[:3]))
    assert env["gpu_count"] == "0" and env["gpu_model"] == "none"
    assert len(env["host_sha256"]) == 64 and env["cpu"] and env["ram"]
    packages = {p["name"]: p["version"] for p in env["packages"]}
    assert packages["torch"] == torch.__version__.split("+")[0] or packages["torch"].startswith(
        torch.__version__.split("+")[0]
    )
    assert "transformers" in packages and "deepspeed" in packages


@pytest.mark.slow
def test_log_hash(tiny_run) -> None:
    _, doc = tiny_run
    path = Path(doc["_path"])
    log = path.parent / "logs" / f"{path.stem}.log"
    assert hashlib.sha256(log.read_bytes()).hexdigest() == doc["log_sha256"]
    assert "baseline: built tiny" in log.read_text()


@pytest.mark.slow
def test_the_run_loads_and_joins_the_record(tiny_run) -> None:
    root, doc = tiny_run
    with open_test_store(root / "store") as store:
        load_paths(store, [root / "data"], BASE)
        quads = record_closure(store, BASE, SEED_ID)
        graphs = {q.graph_name.value for q in quads}
        assert f"{BASE}activity/{doc['id']}" in graphs
        registry = Registry(Settings(base=BASE), store=store)
        crate = write_run_crate(registry, doc["id"], root / "crate")
    from rocrate.rocrate import ROCrate

    loaded = ROCrate(crate.parent)
    action = loaded.get(f"{BASE}activity/{doc['id']}")
    assert action.type == "CreateAction"
    assert action["instrument"].id == "nt_peak_memory.py"
    assert {e.id for e in action["result"]} >= {f"{doc['id']}.yaml", f"{doc['id']}.log"}
    assert action["object"][0].id == f"{BASE}record/{SEED_ID}"
    assert "https://w3id.org/ro/wfrun/process/0.5" in str(loaded.root_dataset["conformsTo"])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="GPU only: needs a CUDA device")
def test_gpu_memory_is_measured_on_cuda(tmp_path: Path) -> None:
    recipe = find_recipe(SEED_ID, "nt-peak-memory")
    params = parameters(recipe, {"model": "tiny", "sequence_length": "32", "batch_size": "2"})
    measurements = recipe.module.run("checkpointing", params, print)
    assert any(m["quantity"] == "peak-allocated" for m in measurements)


def test_runner_errors() -> None:
    with pytest.raises(ReproduceError, match="no single recipe named 'nope'"):
        find_recipe(SEED_ID, "nope")
    with pytest.raises(ReproduceError, match="no single recipe for record 'other'"):
        find_recipe("other", None)
    recipe = find_recipe(SEED_ID, None)
    with pytest.raises(ValueError, match="unknown precision 'fp8'"):
        recipe.module.run(
            "baseline", parameters(recipe, {**TINY_PARAMS, "precision": "fp8"}), print
        )
    recipe = find_recipe(SEED_ID, None)
    with pytest.raises(ReproduceError, match="has no parameter colour"):
        parameters(recipe, {"colour": "red"})


@pytest.mark.parametrize(
    ("record", "claimed", "stage", "measured", "unit", "outcome"),
    [
        (SEED_ID, "11.49", "deepspeed-zero2-offload", "12.12", "gigabyte", "consistent"),
        (SEED_ID, "11.49", "deepspeed-zero2-offload", "10.40", "gigabyte", "consistent"),
        (SEED_ID, "11.49", "deepspeed-zero2-offload", "24.17", "gigabyte", "inconsistent"),
        (SEED_ID, "11.49", "deepspeed-zero2-offload", "10.00", "gigabyte", "inconsistent"),
        (SEED_ID, "11.49", "deepspeed-zero2-offload", None, "gigabyte", "not-comparable"),
        (SEED_ID, "11.49", "deepspeed-zero2-offload", "12.12", "gibibyte", "not-comparable"),
        (OTHER_ID, "33.88", "checkpointing", "25.68", "gigabyte", "inconsistent"),
        (OTHER_ID, "33.88", "checkpointing", "36.00", "gigabyte", "consistent"),
        (OTHER_ID, "33.88", "checkpointing", "51.51", "gigabyte", "inconsistent"),
    ],
)
def test_verdict(
    record: str, claimed: str, stage: str, measured: str | None, unit: str, outcome: str
) -> None:
    recipe = find_recipe(SEED_ID, None)
    assert recipe.claims[record]["stage"] == stage
    measurements = (
        []
        if measured is None
        else [
            {"stage": stage, "quantity": "peak-allocated", "value": measured, "unit": "gigabyte"},
            # the other claim's stage: never compared with this claim
            {
                "stage": "baseline",
                "quantity": "peak-allocated",
                "value": claimed,
                "unit": "gigabyte",
            },
        ]
    )
    claim = {"numeric_value": claimed, "unit": unit, "metric_direction": "lower"}
    result = verdict(recipe, record, claim, measurements)
    assert result["outcome"] == outcome and result["record"] == record
    assert result["tolerance"] == recipe.module.TOLERANCE == "0.10"  # committed before any run
    if outcome != "not-comparable":
        expected = (Decimal(measured) - Decimal(claimed)) / Decimal(claimed)
        assert Decimal(result["relative_difference"]) == round(expected, 4)


def committed_versions(path: str) -> set[str]:
    """The SHA-256 of every version of ``path`` that git history holds (and of the file as
    it is now)."""
    hashes = {hashlib.sha256((ROOT / path).read_bytes()).hexdigest()}
    log = subprocess.run(
        ["git", "log", "--format=%H", "--", path],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if log.returncode != 0:
        pytest.skip(f"no git history here: {log.stderr.strip()}")
    for commit in log.stdout.split():
        blob = subprocess.run(
            ["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, check=False
        )
        if blob.returncode == 0:
            hashes.add(hashlib.sha256(blob.stdout).hexdigest())
    return hashes


def test_the_bundled_runs_came_from_a_committed_recipe() -> None:
    """Each bundled run ran a version of the recipe that git holds (a run of an older
    version keeps the hash of the file it ran), and its log is the one it hashed."""
    versions = committed_versions("recipes/nt_peak_memory.py")
    runs = list((DATA / "runs").glob("*.yaml"))
    assert runs
    for path in runs:
        doc = parse_yaml(path.read_text())
        assert doc["recipe"]["sha256"] in versions, path
        assert doc["environment"]["gpu_model"] == "NVIDIA H200"
        log = path.parent / "logs" / f"{path.stem}.log"
        assert hashlib.sha256(log.read_bytes()).hexdigest() == doc["log_sha256"], path
