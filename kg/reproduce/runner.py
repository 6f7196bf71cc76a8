"""Running a recipe stage by stage, each stage in a process of its own, and writing the
``kind: run`` file and its log."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from .environment import capture_environment
from .recipes import Recipe, ReproduceError, find_recipe, load_recipe, parameters
from .verdicts import judged_records, read_claim, verdict

RUNNER_AGENT = "claimgraph-runner"


def run_stage(
    recipe: Recipe, stage: str, params: dict[str, str], log_file: Path, timeout: float | None = None
) -> dict:
    """One stage in a fresh process (its own process group, in the runner's session: a
    stage that outlives ``timeout`` seconds is stopped with everything it started, and
    whatever ends the runner's session ends it too); its output goes to the log."""
    with tempfile.TemporaryDirectory() as tmp:
        result_file = Path(tmp) / "result.json"
        command = [
            sys.executable,
            "-m",
            "kg.reproduce",
            "--stage-worker",
            str(recipe.path),
            stage,
            json.dumps(params),
            str(result_file),
        ]
        with log_file.open("a") as log:
            log.write(f"--- stage {stage}: {' '.join(command[:5])} ...\n")
            log.flush()
            proc = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                process_group=0,
            )
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                _await_group_end(proc.pid)
                log.write(f"{stage}: stopped after {timeout:g} s\n")
                return {
                    "status": "failed",
                    "reason": f"the stage did not end within {timeout:g} s (stopped)",
                }
        if result_file.exists():
            return json.loads(result_file.read_text())
        return {
            "status": "failed",
            "reason": f"the stage process exited with {proc.returncode} "
            "without a result (see the log)",
        }


def _await_group_end(group: int, limit: float = 10.0) -> None:
    """Return once no process of ``group`` is left (or after ``limit`` seconds): SIGKILL
    is delivered at once but a process it killed lingers until the kernel tears it down
    and its new parent reaps it, and the caller's promise is that the stage has ended."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)


def stage_worker(recipe_path: str, stage: str, params_json: str, result_path: str) -> int:
    """Entry point of a stage process: run, then write the result as JSON."""
    recipe = load_recipe(Path(recipe_path))

    def log(message: str) -> None:
        print(message, flush=True)

    try:
        result = {
            "status": "completed",
            "measurements": recipe.module.run(stage, json.loads(params_json), log),
        }
    except Exception as exc:  # every failure of the experiment is a result, not a crash
        skipped = type(exc).__name__ == "Skipped"
        oom = type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc).lower()
        status = "skipped" if skipped else "out-of-memory" if oom else "failed"
        log(f"{stage}: {status}: {type(exc).__name__}: {exc}")
        result = {"status": status, "reason": f"{type(exc).__name__}: {exc}"[:500]}
    Path(result_path).write_text(json.dumps(result))
    return 0


def reproduce(
    record: str,
    recipe_name: str | None,
    stages: list[str] | None,
    given: dict[str, str],
    data: Path,
    out: Path,
    agent: str = RUNNER_AGENT,
    progress: Callable[[str], None] = print,
    note: str | None = None,
    stage_timeout: float | None = None,
) -> dict[str, Any]:
    """Run a recipe's stages and write the run file ``out`` (and its log beside it), with a
    verdict on ``record`` and on every other claim of the recipe whose stage it ran.

    :raises ReproduceError: for an unknown recipe, record, stage or parameter, or a claim
        whose record file ``data`` lacks (all found before anything runs).
    """
    recipe = find_recipe(record, recipe_name)
    if record not in recipe.claims:
        raise ReproduceError(
            f"recipe {recipe.name} re-measures {', '.join(recipe.claims)}, not {record}"
        )
    params = parameters(recipe, given)
    chosen = stages or list(recipe.module.STAGES)
    unknown = [s for s in chosen if s not in recipe.module.STAGES]
    if unknown:
        raise ReproduceError(
            f"recipe {recipe.name} has no stage {', '.join(unknown)} "
            f"(stages: {', '.join(recipe.module.STAGES)})"
        )
    claims = {r: read_claim(data, r) for r in judged_records(recipe, record, chosen)}

    started = datetime.now(UTC).replace(microsecond=0)
    digest = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:8]
    run_id = f"{recipe.name}-{started:%Y%m%dt%H%M%Sz}-{digest}"
    if out.suffix not in (".yaml", ".yml"):  # a directory: the file is named by the run's id
        out = out / f"{run_id}.yaml"
        if out.exists():  # two runs of one setting started in one second
            raise ReproduceError(f"{out} exists already: run again in a second")
    # The log sits in logs/ beside the run file: a data directory loads only .yaml files.
    log_file = out.parent / "logs" / f"{out.stem}.log"
    log_file.parent.mkdir(parents=True, exist_ok=True)
    log_file.write_text(
        f"claimgraph run {run_id}: recipe {recipe.name} "
        f"({recipe.sha256}), parameters {json.dumps(params, sort_keys=True)}\n"
    )
    environment = capture_environment(recipe)

    stage_results, measurements = [], []
    for number, stage in enumerate(chosen, 1):
        progress(f"stage {number}/{len(chosen)} {stage} ...")
        t0 = time.perf_counter()
        result = run_stage(recipe, stage, params, log_file, stage_timeout)
        entry = {
            "stage": stage,
            "status": result["status"],
            "seconds": f"{time.perf_counter() - t0:.1f}",
        }
        if result.get("reason"):
            entry["reason"] = result["reason"]
        stage_results.append(entry)
        measurements += result.get("measurements", [])
        gpu_only = getattr(recipe.module, "gpu_only_quantities", lambda: ())()
        measured = {m["quantity"] for m in result.get("measurements", [])}
        missing = [q for q in gpu_only if q not in measured]
        if result["status"] == "completed" and missing:
            # Never silently: what a CPU cannot measure is said to be skipped, and why.
            entry["skipped_measurements"] = (
                f"{', '.join(missing)}: GPU only, the stage ran "
                f"on {params.get('device', 'this machine')}"
            )
        progress(f"stage {stage}: {result['status']} in {entry['seconds']} s")
    ended = datetime.now(UTC).replace(microsecond=0)

    statuses = {s["status"] for s in stage_results}
    status = (
        "out-of-memory"
        if "out-of-memory" in statuses
        else "failed"
        if "failed" in statuses
        else "completed"
    )
    doc = {
        "kind": "run",
        "id": run_id,
        "record": record,
        "agent": agent,
        "recipe": {
            "name": recipe.name,
            "path": f"recipes/{recipe.path.name}",
            "sha256": recipe.sha256,
        },
        "parameters": [
            {"name": name, "value": value, "note": recipe.module.PARAMETERS[name][1]}
            for name, value in params.items()
        ],
        "seed": params.get("seed", ""),
        "status": status,
        "started_at": started.isoformat().replace("+00:00", "Z"),
        "ended_at": ended.isoformat().replace("+00:00", "Z"),
        "stages": stage_results,
        "measurements": measurements,
        "environment": environment,
        "log_sha256": hashlib.sha256(log_file.read_bytes()).hexdigest(),
        "verdicts": [verdict(recipe, r, claim, measurements) for r, claim in claims.items()],
    }
    if note:
        doc["note"] = note
    out.write_text(yaml.safe_dump(_strings(doc), sort_keys=False, allow_unicode=True, width=100))
    doc["file"] = str(out)
    return doc


def summary(doc: dict[str, Any]) -> str:
    """One line on a written run: its file, status and each verdict."""
    verdicts = "; ".join(f"{v['record']}: {v['outcome']}" for v in doc["verdicts"])
    return f"wrote {doc['file']}: {doc['status']}, verdicts {verdicts}"


def _strings(value: Any) -> Any:
    """Every scalar as a string: run files are read back with no implicit typing."""
    if isinstance(value, dict):
        return {k: _strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strings(v) for v in value]
    return str(value)


def main(argv: list[str] | None = None) -> int:
    """``python3 -m kg.reproduce``: the runner with only the standard library and PyYAML."""
    from . import __doc__ as description

    parser = argparse.ArgumentParser(
        prog="python -m kg.reproduce",
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("record", nargs="?", help="the id of the record to measure again")
    parser.add_argument(
        "--recipe", help="the recipe's name (default: the one whose claims include the record)"
    )
    parser.add_argument(
        "--stage",
        action="append",
        dest="stages",
        help="a stage to run (repeatable; default: every stage)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a recipe parameter (repeatable)",
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=Path("data"),
        help="the data directory whose records hold the claims (default: data)",
    )
    parser.add_argument(
        "--agent",
        default=RUNNER_AGENT,
        help=f"the id of the agent file of whoever runs it ({RUNNER_AGENT})",
    )
    parser.add_argument("--note", help="a note on the run, kept in the run file")
    parser.add_argument(
        "--stage-timeout",
        type=float,
        metavar="SECONDS",
        help="stop a stage that runs longer (it is recorded as failed)",
    )
    parser.add_argument(
        "-o", "--output", type=Path, help="the run file, or a directory to write <run id>.yaml into"
    )
    parser.add_argument(
        "--stage-worker",
        nargs=4,
        metavar=("RECIPE", "STAGE", "PARAMS", "OUT"),
        help=argparse.SUPPRESS,
    )
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
        doc = reproduce(
            args.record,
            args.recipe,
            args.stages,
            given,
            args.data,
            args.output,
            args.agent,
            progress=lambda m: print(m, file=sys.stderr, flush=True),
            note=args.note,
            stage_timeout=args.stage_timeout,
        )
    except ReproduceError as exc:
        print(f"kg reproduce: error: {exc}", file=sys.stderr)
        return 1
    print(summary(doc), file=sys.stderr)
    return 0 if doc["status"] == "completed" else 1
