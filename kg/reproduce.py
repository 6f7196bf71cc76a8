"""The reproduction runner: run a recipe where it is and write a ``kind: run`` file.

It imports only the standard library, PyYAML and the recipe (and what the recipe
imports), so that it runs alone on a GPU machine that has no rdflib or pyoxigraph::

    python3 -m kg.reproduce RECORD_ID --recipe nt-peak-memory -o run.yaml

Each stage runs in a process of its own, so that one stage's memory (or its crash)
cannot touch the next. Everything about the environment is captured here, never typed
by hand; the verdict compares the recipe's claim measurement with the record's value,
using the tolerance fixed in the recipe.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from .resources import resource_dir

RUNNER_AGENT = "claimgraph-runner"


class ReproduceError(Exception):
    """The run could not be set up (an unknown recipe, record or parameter)."""


@dataclass
class Recipe:
    """A recipe module and where it came from."""

    module: ModuleType
    path: Path

    @property
    def name(self) -> str:
        return self.module.NAME

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


def recipes_dir() -> Path:
    return resource_dir("recipes")


def load_recipe(path: Path) -> Recipe:
    spec = importlib.util.spec_from_file_location(f"kg_recipe_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ReproduceError(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for attribute in ("NAME", "RECORD", "STAGES", "CLAIM", "TOLERANCE", "PARAMETERS", "run"):
        if not hasattr(module, attribute):
            raise ReproduceError(f"{path}: a recipe needs {attribute}")
    return Recipe(module, path)


def find_recipe(record: str, name: str | None) -> Recipe:
    """The recipe called ``name``, or the one that declares ``record``.

    :raises ReproduceError: when there is none (or several, without a name).
    """
    recipes = [load_recipe(p) for p in sorted(recipes_dir().glob("*.py"))
               if not p.name.startswith("_")]
    if name is not None:
        chosen = [r for r in recipes if r.name == name]
    else:
        chosen = [r for r in recipes if record == r.module.RECORD]
    if len(chosen) != 1:
        known = ", ".join(f"{r.name} (record {r.module.RECORD})" for r in recipes)
        what = f"named {name!r}" if name else f"for record {record!r}"
        raise ReproduceError(f"no single recipe {what}; recipes: {known or 'none'}")
    return chosen[0]


def parameters(recipe: Recipe, given: dict[str, str]) -> dict[str, str]:
    unknown = sorted(set(given) - set(recipe.module.PARAMETERS))
    if unknown:
        raise ReproduceError(f"recipe {recipe.name} has no parameter {', '.join(unknown)} "
                             f"(parameters: {', '.join(recipe.module.PARAMETERS)})")
    return {name: given.get(name, default)
            for name, (default, _note) in recipe.module.PARAMETERS.items()}


# -- environment ----------------------------------------------------------------------------
def capture_environment(recipe: Recipe) -> dict[str, Any]:
    """What the run ran on, read from the machine."""
    env: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_count": str(os.cpu_count() or 0),
        "ram": _meminfo_total(),
        "host_sha256": hashlib.sha256(socket.gethostname().encode()).hexdigest(),
    }
    env.update(_gpu())
    names = ["pyyaml", *getattr(recipe.module, "REQUIRES", ())]
    packages = []
    for name in names:
        try:
            packages.append({"name": name, "version": metadata.version(name)})
        except metadata.PackageNotFoundError:
            packages.append({"name": name, "version": "not installed"})
    env["packages"] = packages
    return env


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _meminfo_total() -> str:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 2 ** 20:.1f} GiB (MemTotal at start)"
    return "unknown"


def _gpu() -> dict[str, str]:
    """GPU model, count and memory from torch; driver from nvidia-smi (absent: said so)."""
    out = {"gpu_model": "none", "gpu_count": "0"}
    try:
        import torch
    except ImportError:
        return out
    out["cuda"] = torch.version.cuda or "none (CPU build of torch)"
    if not torch.cuda.is_available():
        return out
    props = torch.cuda.get_device_properties(0)
    out.update(gpu_model=props.name, gpu_count=str(torch.cuda.device_count()),
               gpu_memory=f"{props.total_memory / 2 ** 30:.1f} GiB")
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30, check=True)
        out["driver"] = smi.stdout.strip().splitlines()[0]
    return out


# -- running ----------------------------------------------------------------------------------
def run_stage(recipe: Recipe, stage: str, params: dict[str, str], log_file: Path) -> dict:
    """One stage in a fresh process; its output goes to the log."""
    with tempfile.TemporaryDirectory() as tmp:
        result_file = Path(tmp) / "result.json"
        command = [sys.executable, "-m", "kg.reproduce", "--stage-worker", str(recipe.path),
                   stage, json.dumps(params), str(result_file)]
        with log_file.open("a") as log:
            log.write(f"--- stage {stage}: {' '.join(command[:5])} ...\n")
            log.flush()
            proc = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT,
                                  env={**os.environ, "PYTHONUNBUFFERED": "1"}, check=False)
        if result_file.exists():
            return json.loads(result_file.read_text())
        return {"status": "failed", "reason": f"the stage process exited with {proc.returncode} "
                                              "without a result (see the log)"}


def stage_worker(recipe_path: str, stage: str, params_json: str, result_path: str) -> int:
    """Entry point of a stage process: run, then write the result as JSON."""
    recipe = load_recipe(Path(recipe_path))

    def log(message: str) -> None:
        print(message, flush=True)

    try:
        result = {"status": "completed",
                  "measurements": recipe.module.run(stage, json.loads(params_json), log)}
    except Exception as exc:  # every failure of the experiment is a result, not a crash
        skipped = type(exc).__name__ == "Skipped"
        oom = type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc).lower()
        status = "skipped" if skipped else "out-of-memory" if oom else "failed"
        log(f"{stage}: {status}: {type(exc).__name__}: {exc}")
        result = {"status": status, "reason": f"{type(exc).__name__}: {exc}"[:500]}
    Path(result_path).write_text(json.dumps(result))
    return 0


def reproduce(
    record: str, recipe_name: str | None, stages: list[str] | None, given: dict[str, str],
    data: Path, out: Path, agent: str = RUNNER_AGENT, progress=print,
) -> dict[str, Any]:
    """Run a recipe's stages and write the run file ``out`` (and its log beside it)."""
    recipe = find_recipe(record, recipe_name)
    if record != recipe.module.RECORD:
        raise ReproduceError(f"recipe {recipe.name} re-measures {recipe.module.RECORD}, "
                             f"not {record}")
    params = parameters(recipe, given)
    chosen = stages or list(recipe.module.STAGES)
    unknown = [s for s in chosen if s not in recipe.module.STAGES]
    if unknown:
        raise ReproduceError(f"recipe {recipe.name} has no stage {', '.join(unknown)} "
                             f"(stages: {', '.join(recipe.module.STAGES)})")
    claim = read_claim(data, record)

    started = datetime.now(UTC).replace(microsecond=0)
    digest = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:8]
    run_id = f"{recipe.name}-{started:%Y%m%dt%H%M%Sz}-{digest}"
    if out.suffix not in (".yaml", ".yml"):  # a directory: the file is named by the run's id
        out = out / f"{run_id}.yaml"
    # The log sits in logs/ beside the run file: a data directory loads only .yaml files.
    log_file = out.parent / "logs" / f"{out.stem}.log"
    log_file.parent.mkdir(parents=True, exist_ok=True)
    log_file.write_text(f"claimgraph run {run_id}: recipe {recipe.name} "
                        f"({recipe.sha256}), parameters {json.dumps(params, sort_keys=True)}\n")
    environment = capture_environment(recipe)

    stage_results, measurements = [], []
    for stage in chosen:
        progress(f"stage {stage} ...")
        t0 = time.perf_counter()
        result = run_stage(recipe, stage, params, log_file)
        entry = {"stage": stage, "status": result["status"],
                 "seconds": f"{time.perf_counter() - t0:.1f}"}
        if result.get("reason"):
            entry["reason"] = result["reason"]
        stage_results.append(entry)
        measurements += result.get("measurements", [])
        gpu_only = getattr(recipe.module, "gpu_only_quantities", lambda: ())()
        measured = {m["quantity"] for m in result.get("measurements", [])}
        missing = [q for q in gpu_only if q not in measured]
        if result["status"] == "completed" and missing:
            # Never silently: what a CPU cannot measure is said to be skipped, and why.
            entry["skipped_measurements"] = (f"{', '.join(missing)}: GPU only, the stage ran "
                                             f"on {params.get('device', 'this machine')}")
        progress(f"stage {stage}: {result['status']}")
    ended = datetime.now(UTC).replace(microsecond=0)

    statuses = {s["status"] for s in stage_results}
    status = ("out-of-memory" if "out-of-memory" in statuses else
              "failed" if "failed" in statuses else "completed")
    doc = {
        "kind": "run",
        "id": run_id,
        "record": record,
        "agent": agent,
        "recipe": {"name": recipe.name, "path": f"recipes/{recipe.path.name}",
                   "sha256": recipe.sha256},
        "parameters": [{"name": name, "value": value, "note": recipe.module.PARAMETERS[name][1]}
                       for name, value in params.items()],
        "seed": params.get("seed", ""),
        "status": status,
        "started_at": started.isoformat().replace("+00:00", "Z"),
        "ended_at": ended.isoformat().replace("+00:00", "Z"),
        "stages": stage_results,
        "measurements": measurements,
        "environment": environment,
        "log_sha256": hashlib.sha256(log_file.read_bytes()).hexdigest(),
        "verdict": verdict(recipe, claim, measurements),
    }
    out.write_text(yaml.safe_dump(_strings(doc), sort_keys=False, allow_unicode=True, width=100))
    doc["file"] = str(out)
    return doc


def read_claim(data: Path, record: str) -> dict[str, str]:
    """The record's value, unit and direction, read from its file (as strings)."""
    path = data / "records" / f"{record}.yaml"
    if not path.is_file():
        raise ReproduceError(f"no record file {path}")
    doc = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    return {key: doc.get(key, "") for key in ("numeric_value", "unit", "metric_direction")}


def verdict(recipe: Recipe, claim: dict[str, str], measurements: list[dict]) -> dict[str, str]:
    """Measurement against claim, with the recipe's tolerance and the metric's direction."""
    target = recipe.module.CLAIM
    tolerance = Decimal(recipe.module.TOLERANCE)
    out = {"stage": target["stage"], "quantity": target["quantity"], "unit": target["unit"],
           "claimed": claim["numeric_value"], "tolerance": str(tolerance)}
    found = [m for m in measurements if m["stage"] == target["stage"]
             and m["quantity"] == target["quantity"] and m["unit"] == target["unit"]]
    if claim["unit"] != target["unit"]:
        return {**out, "outcome": "not-comparable",
                "note": f"the record's unit ({claim['unit']}) is not the recipe's "
                        f"({target['unit']})"}
    if not found:
        return {**out, "outcome": "not-comparable",
                "note": f"no {target['quantity']} was measured at stage {target['stage']}"}
    try:
        claimed, measured = Decimal(claim["numeric_value"]), Decimal(found[0]["value"])
        difference = (measured - claimed) / claimed
    except (InvalidOperation, ZeroDivisionError):
        return {**out, "outcome": "not-comparable", "note": "the values cannot be compared"}
    outcome = "consistent" if abs(difference) <= tolerance else "inconsistent"
    better = (difference < 0) == (claim["metric_direction"] == "lower")
    side = "better" if better else "worse"
    note = (f"measured {measured} vs claimed {claimed} {target['unit']}: "
            f"{difference * 100:+.1f} % ({side} than claimed; {claim['metric_direction']} is "
            f"better), tolerance {tolerance * 100:.0f} %")
    return {**out, "measured": str(measured), "relative_difference": f"{difference:.4f}",
            "outcome": outcome, "note": note}


def _strings(value: Any) -> Any:
    """Every scalar as a string: run files are read back with no implicit typing."""
    if isinstance(value, dict):
        return {k: _strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strings(v) for v in value]
    return str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kg.reproduce", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("record", nargs="?")
    parser.add_argument("--recipe")
    parser.add_argument("--stage", action="append", dest="stages")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--data", type=Path, default=Path("data"))
    parser.add_argument("--agent", default=RUNNER_AGENT)
    parser.add_argument("-o", "--output", type=Path,
                        help="the run file, or a directory to write <run id>.yaml into")
    parser.add_argument("--stage-worker", nargs=4, metavar=("RECIPE", "STAGE", "PARAMS", "OUT"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stage_worker:
        return stage_worker(*args.stage_worker)
    if not args.record or not args.output:
        parser.error("RECORD and -o FILE are required")
    malformed = [p for p in args.param if "=" not in p or p.startswith("=")]
    if malformed:
        parser.error(f"--param takes NAME=VALUE (got {malformed[0]!r})")
    given = dict(p.split("=", 1) for p in args.param)
    try:
        doc = reproduce(args.record, args.recipe, args.stages, given, args.data, args.output,
                        args.agent, progress=lambda m: print(m, file=sys.stderr, flush=True))
    except ReproduceError as exc:
        print(f"kg reproduce: error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {doc['file']}: {doc['status']}, verdict {doc['verdict']['outcome']}",
          file=sys.stderr)
    return 0 if doc["status"] == "completed" else 1


if __name__ == "__main__":
    sys.exit(main())
