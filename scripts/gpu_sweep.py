#!/usr/bin/env python3
"""The GPU sweep of issue 26, on one lent NVIDIA H200: every stage of nt-peak-memory under
every precision setting, and the ZeRO stage of bf16 three times over (the spread of a
repeated measurement). Each run judges both claims of the paper's sentence "the NT 2.5B
checkpoint (33.88 → 11.49 GB)" whose stage it ran (docs/runs.md has the design).

    python3 scripts/gpu_sweep.py PART [--out DIR] [--plan] [--rehearse] [--limit N]

PART is `new` (bf16-fp32-adam and bf16-fp32-master, every stage; then the bf16 ZeRO stage
three times), `again` (bf16, amp-bf16 and fp32, every stage, so that their runs judge the
33.88 GB claim too) or `all` (both: more than one device call of 10 minutes allows).
`--plan` prints the runs and the time each is expected to take (from the stage times of the
bundled runs) and stops.

On the GPU machine (no network) it installs the wheels in .whl/ (deepspeed built with
DS_BUILD_OPS=0, and what it needs that the machine lacks), checks that deepspeed imports
and a CUDA device is there, then runs the plan with the runner. After every run it bundles
what it has into OUT/runs-PART.tar.gz (runs/<id>.yaml and runs/logs/<id>.log: unpack it
into data/) and writes its log to OUT/sweep-PART.log, so a call cut short still returns
every run it finished. A stage out of memory is a result, not a failure of the sweep.

`--rehearse` runs the same plan tiny on this machine's CPU (no wheels, no GPU checks; the
DeepSpeed stage is skipped there), to try the sweep before spending device time on it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checkout's kg: the GPU machine has not installed it
from kg.reproduce import ReproduceError, find_recipe, reproduce, summary  # noqa: E402

RECORD = (
    "saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-flashattention-checkpointing-zero2"
)
ZERO = "deepspeed-zero2-offload"
REPEATS = 3
NEW = ("bf16-fp32-adam", "bf16-fp32-master")
AGAIN = ("bf16", "amp-bf16", "fp32")
#: The slowest stage seen (DeepSpeed in fp32, its op compiled on the way) took 89 s.
STAGE_TIMEOUT = 240.0
#: One device call runs at most this long.
CALL_LIMIT = 600
#: Seconds a run spends besides its stages (environment, nvidia-smi), and the wheels.
RUN_OVERHEAD, SETUP = 3.0, 5.0
TINY = {"model": "tiny", "device": "cpu", "sequence_length": "32", "batch_size": "2", "steps": "2"}
SITE = Path("/tmp/kg-site")


@dataclass(frozen=True)
class Planned:
    """One run of the plan."""

    note: str
    precision: str
    stages: tuple[str, ...]


def plan(part: str) -> list[Planned]:
    """The runs of ``part``, in order."""
    stages = tuple(find_recipe(RECORD, None).module.STAGES)
    runs: list[Planned] = []
    if part in ("new", "all"):
        runs += [Planned(f"every stage under {p}", p, stages) for p in NEW]
        runs += [
            Planned(f"the bf16 ZeRO stage, repetition {n} of {REPEATS}", "bf16", (ZERO,))
            for n in range(1, REPEATS + 1)
        ]
    if part in ("again", "all"):
        runs += [Planned(f"every stage under {p}", p, stages) for p in AGAIN]
    return runs


def stage_seconds(runs_dir: Path) -> dict[tuple[str, str], float]:
    """(precision, stage) -> the longest the bundled GPU runs took for it."""
    import yaml

    seen: dict[tuple[str, str], float] = {}
    for path in sorted(runs_dir.glob("*.yaml")):
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
        if doc.get("environment", {}).get("gpu_count", "0") == "0":
            continue
        precision = next((p["value"] for p in doc["parameters"] if p["name"] == "precision"), "")
        for stage in doc["stages"]:
            key = (precision, stage["stage"])
            seen[key] = max(seen.get(key, 0.0), float(stage["seconds"]))
    return seen


def estimate(run: Planned, seconds: dict[tuple[str, str], float]) -> float:
    """Expected seconds of ``run``: its stages as the bundled runs took them; a setting not
    run before as bf16 (the same bf16 model), else the slowest setting."""
    total = RUN_OVERHEAD
    for stage in run.stages:
        known = [s for (p, st), s in seconds.items() if st == stage]
        total += seconds.get(
            (run.precision, stage), seconds.get(("bf16", stage), max(known, default=90.0))
        )
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("part", choices=("new", "again", "all"))
    parser.add_argument(
        "--out",
        type=Path,
        default=os.environ.get("OUT"),
        help="where the bundle and the log go (default: $OUT)",
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=ROOT / "data",
        help="the data directory whose records hold the claims",
    )
    parser.add_argument("--plan", action="store_true", help="print the plan and stop")
    parser.add_argument(
        "--rehearse",
        action="store_true",
        help="run the plan tiny on the CPU, without wheels or GPU checks",
    )
    parser.add_argument("--limit", type=int, help="run only the first N runs of the plan")
    args = parser.parse_args(argv)
    runs = plan(args.part)[: args.limit]
    seconds = stage_seconds(args.data / "runs")
    expected = SETUP + sum(estimate(r, seconds) for r in runs)
    if args.plan:
        for run in runs:
            print(f"{estimate(run, seconds):6.0f} s  {run.note}: {', '.join(run.stages)}")
        fits = "fits in" if expected <= CALL_LIMIT else "needs more than"
        print(f"{expected:6.0f} s  in all: {fits} one device call of {CALL_LIMIT} s")
        return 0
    if args.out is None:
        parser.error("no --out folder (and OUT is not set)")
    return Sweep(args.part, args.out, args.data, args.rehearse).run(runs, expected)


class Sweep:
    """Runs a plan, bundling after every run."""

    def __init__(self, part: str, out: Path, data: Path, rehearse: bool):
        self.part, self.out, self.data, self.rehearse = part, out, data, rehearse
        out.mkdir(parents=True, exist_ok=True)
        self.work = Path(tempfile.mkdtemp(prefix="kg-sweep-"))
        (self.work / "runs").mkdir()
        self.log = (out / f"sweep-{part}.log").open("w", encoding="utf-8")
        self.started = time.monotonic()

    def say(self, message: str) -> None:
        line = f"[{time.monotonic() - self.started:6.0f} s] {message}"
        print(line, file=sys.stderr, flush=True)
        self.log.write(line + "\n")
        self.log.flush()

    def run(self, runs: list[Planned], expected: float) -> int:
        self.say(f"sweep {self.part}: {len(runs)} runs, about {expected:.0f} s expected")
        # NVLink multicast stays off, also for programs started with their own environment.
        os.environ.update(
            NCCL_NVLS_ENABLE="0",
            TORCH_SYMM_MEM_DISABLE_MULTICAST="1",
            NVSHMEM_DISABLE_NVLS="1",
            PYTHONUNBUFFERED="1",
        )
        # DeepSpeed's CPU Adam op, compiled once (about 37 s), kept where a warm machine
        # keeps it between calls.
        os.environ.setdefault("TORCH_EXTENSIONS_DIR", str(ROOT / ".cache" / "torch_extensions"))
        if not self.rehearse and not (self.install_wheels() and self.preflight()):
            return 1
        failures = 0
        for number, planned in enumerate(runs, 1):
            self.say(f"run {number}/{len(runs)}: {planned.note}")
            given = {"precision": planned.precision, **(TINY if self.rehearse else {})}
            t0 = time.monotonic()
            try:
                doc = reproduce(
                    RECORD,
                    None,
                    list(planned.stages),
                    given,
                    self.data,
                    self.work / "runs",
                    progress=self.say,
                    note=f"issue 26 sweep: {planned.note}",
                    stage_timeout=STAGE_TIMEOUT,
                )
                self.say(summary(doc))
            except (ReproduceError, OSError) as exc:
                failures += 1
                self.say(f"run {number} could not run: {exc}")
            self.say(f"run {number} took {time.monotonic() - t0:.0f} s")
            self.bundle()
        files = len(list((self.work / "runs").glob("*.yaml")))
        self.say(
            f"done: {files} run files in {self.out / f'runs-{self.part}.tar.gz'}, "
            f"{time.monotonic() - self.started:.0f} s in all, {failures} runs not made"
        )
        return 1 if failures else 0

    def install_wheels(self) -> bool:
        wheels = sorted(str(p) for p in (ROOT / ".whl").glob("*.whl"))
        if not wheels:
            self.say("no wheels in .whl/: using what the machine has installed")
            return True
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "-q",
                "--no-index",
                "--no-deps",
                "--no-compile",
                "--no-cache-dir",
                "--upgrade",
                "--target",
                str(SITE),
                *wheels,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        self.log.write(done.stdout + done.stderr)
        if done.returncode != 0:
            self.say(f"installing .whl/ failed ({done.returncode}): see the log")
            return False
        # The stage processes inherit it; this process reads package versions from it.
        os.environ["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(SITE), os.environ.get("PYTHONPATH", "")) if p
        )
        sys.path.insert(0, str(SITE))
        self.say(f"installed {len(wheels)} wheels into {SITE}")
        return True

    def preflight(self) -> bool:
        """deepspeed imports and a CUDA device is there: checked before any device time
        goes to runs."""
        probe = (
            "import deepspeed, torch, transformers; assert torch.cuda.is_available(); "
            "print(f'torch {torch.__version__}, transformers {transformers.__version__}, "
            "deepspeed {deepspeed.__version__}, {torch.cuda.get_device_name(0)}')"
        )
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=False
        )
        self.log.write(done.stderr)
        if done.returncode != 0:
            self.say(
                "deepspeed does not import or there is no CUDA device: no run made "
                f"({done.stderr.strip().splitlines()[-1:] or ['no message']})"
            )
            return False
        self.say(done.stdout.strip())
        return True

    def bundle(self) -> None:
        """runs/ as it is now, into OUT/runs-PART.tar.gz (replaced whole, never half)."""
        target = self.out / f"runs-{self.part}.tar.gz"
        partial = target.with_suffix(".part")
        with tarfile.open(partial, "w:gz") as tar:
            tar.add(self.work / "runs", arcname="runs")
        partial.replace(target)


if __name__ == "__main__":
    sys.exit(main())
