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

from helpers import BASE, DATA, ROOT, SEED_ID, open_test_store
from kg.config import Settings
from kg.export.rocrate import write_run_crate
from kg.model.datafiles import parse_yaml
from kg.registry import Registry
from kg.reproduce import ReproduceError, find_recipe, parameters, verdict
from kg.store.load import load_paths
from kg.store.records import record_closure

torch = pytest.importorskip("torch", reason="the recipe tests need torch (the [test] extra)")
TINY = ["--param", "model=tiny", "--param", "device=cpu", "--param", "sequence_length=32",
        "--param", "batch_size=2", "--param", "steps=2"]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> tuple[Path, dict]:
    """A real run of nt-peak-memory on the CPU: two stages, one of which cannot run here."""
    root = tmp_path_factory.mktemp("run")
    shutil.copytree(DATA, root / "data")
    result = subprocess.run(
        [sys.executable, "-m", "kg.reproduce", SEED_ID, "--data", str(root / "data"),
         "--stage", "baseline", "--stage", "deepspeed-zero2-offload", *TINY,
         "-o", str(root / "data" / "runs")],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr  # a skipped stage is not a failed run
    path = Path(re.search(r"^wrote (\S+\.yaml): ", result.stderr, re.M).group(1))
    return root, yaml.load(path.read_text(), Loader=yaml.BaseLoader) | {"_path": str(path)}


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
    assert doc["verdict"]["outcome"] == "not-comparable"
    assert doc["status"] == "completed"  # skipped stages are not failures


@pytest.mark.slow
def test_environment_is_captured(tiny_run) -> None:
    _, doc = tiny_run
    env = doc["environment"]
    assert env["python"] == ".".join(map(str, sys.version_info[:3]))
    assert env["gpu_count"] == "0" and env["gpu_model"] == "none"
    assert len(env["host_sha256"]) == 64 and env["cpu"] and env["ram"]
    packages = {p["name"]: p["version"] for p in env["packages"]}
    assert packages["torch"] == torch.__version__.split("+")[0] or packages["torch"].startswith(
        torch.__version__.split("+")[0])
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
    with pytest.raises(ReproduceError, match="has no parameter colour"):
        parameters(recipe, {"colour": "red"})


@pytest.mark.parametrize(("measured", "unit", "outcome"), [
    ("12.12", "gigabyte", "consistent"), ("10.40", "gigabyte", "consistent"),
    ("24.17", "gigabyte", "inconsistent"), ("10.00", "gigabyte", "inconsistent"),
    (None, "gigabyte", "not-comparable"), ("12.12", "gibibyte", "not-comparable"),
])
def test_verdict(measured: str | None, unit: str, outcome: str) -> None:
    recipe = find_recipe(SEED_ID, None)
    measurements = [] if measured is None else [
        {"stage": "deepspeed-zero2-offload", "quantity": "peak-allocated", "value": measured,
         "unit": "gigabyte"}]
    claim = {"numeric_value": "11.49", "unit": unit, "metric_direction": "lower"}
    result = verdict(recipe, claim, measurements)
    assert result["outcome"] == outcome
    if outcome != "not-comparable":
        expected = (Decimal(measured) - Decimal("11.49")) / Decimal("11.49")
        assert Decimal(result["relative_difference"]) == round(expected, 4)


def test_the_bundled_runs_came_from_the_committed_recipe() -> None:
    recipe = ROOT / "recipes" / "nt_peak_memory.py"
    sha = hashlib.sha256(recipe.read_bytes()).hexdigest()
    runs = list((DATA / "runs").glob("*.yaml"))
    assert runs
    for path in runs:
        doc = parse_yaml(path.read_text())
        assert doc["recipe"]["sha256"] == sha, path
        assert doc["environment"]["gpu_model"] == "NVIDIA H200"
        log = path.parent / "logs" / f"{path.stem}.log"
        assert hashlib.sha256(log.read_bytes()).hexdigest() == doc["log_sha256"], path
