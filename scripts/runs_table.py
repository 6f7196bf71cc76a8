#!/usr/bin/env python3
"""The tables docs/runs.md shows, written from the run files themselves (never by hand).

    python3 scripts/runs_table.py [--runs data/runs] [--note "issue 26 sweep"]

It prints, in Markdown: peak allocated GPU memory (GB) of every stage of every run that
measured more than one stage, with each run's verdicts on the claims of the seed's
sentence; the spread of the ZeRO stage over the bf16 runs; and the GPU time the runs took.
`--note` keeps only the runs whose note starts with the text (the sweep's runs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
STAGES = {
    "baseline": "baseline",
    "flash-attention": "+ FlashAttention",
    "checkpointing": "+ checkpointing",
    "deepspeed-zero2-offload": "+ DeepSpeed ZeRO-2 offload",
}
ZERO = "deepspeed-zero2-offload"


def read_runs(folder: Path, note: str | None) -> list[dict]:
    runs = []
    for path in sorted(folder.glob("*.yaml")):
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
        if note is None or doc.get("note", "").startswith(note):
            runs.append(doc)
    return sorted(runs, key=lambda d: (d["started_at"], d["id"]))


def precision(run: dict) -> str:
    return next((p["value"] for p in run["parameters"] if p["name"] == "precision"), "")


def peak(run: dict, stage: str) -> str:
    """The stage's peak allocated GB, or how the stage ended."""
    for m in run["measurements"]:
        if (m["stage"], m["quantity"], m["unit"]) == (stage, "peak-allocated", "gigabyte"):
            return m["value"]
    status = next((s["status"] for s in run["stages"] if s["stage"] == stage), "")
    return status.replace("-", " ") if status and status != "completed" else "—"


def verdicts(run: dict) -> dict[str, str]:
    """Record id -> "consistent (+5.5 %)"."""
    found = run.get("verdicts") or [{"record": run["record"], **run["verdict"]}]
    out = {}
    for v in found:
        text = v["outcome"].replace("-", " ")
        if v.get("relative_difference"):
            text += f" ({Decimal(v['relative_difference']) * 100:+.1f} %)"
        out[v["record"]] = text
    return out


def claims(runs: list[dict]) -> list[tuple[str, str]]:
    """(record id, claimed value) of every claim the runs judged, in the sentence's order
    (the larger, earlier stage's value first)."""
    seen: dict[str, str] = {}
    for run in runs:
        for v in run.get("verdicts") or [{"record": run["record"], **run["verdict"]}]:
            seen.setdefault(v["record"], v["claimed"])
    return sorted(seen.items(), key=lambda kv: -Decimal(kv[1]))


def stage_table(runs: list[dict]) -> str:
    judged = claims(runs)
    head = ["precision", *STAGES.values(), *(f"verdict on {c} GB" for _, c in judged), "run"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for run in runs:
        if len(run["stages"]) < 2:
            continue
        v = verdicts(run)
        cells = [
            f"`{precision(run)}`",
            *(peak(run, s) for s in STAGES),
            *(v.get(record, "—") for record, _ in judged),
            f"`{run['id']}`",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def spread(runs: list[dict]) -> str:
    values = [
        (run["id"], Decimal(peak(run, ZERO)))
        for run in runs
        if precision(run) == "bf16" and peak(run, ZERO)[:1].isdigit()
    ]
    if not values:
        return "No bf16 run measured the ZeRO stage."
    numbers = [v for _, v in values]
    low, high = min(numbers), max(numbers)
    mean = Decimal(statistics.mean(numbers))
    lines = [
        f"bf16, {STAGES[ZERO]}, peak allocated GB: " + ", ".join(f"{v} (`{i}`)" for i, v in values),
        f"n = {len(numbers)}, min {low}, max {high}, range {high - low} GB "
        f"({(high - low) / mean * 100:.2f} % of the mean {mean:.2f})",
    ]
    if len(numbers) > 1:
        lines.append(f"standard deviation {Decimal(statistics.stdev(numbers)):.3f} GB")
    return "\n".join(lines)


def gpu_time(runs: list[dict]) -> str:
    def seconds(run: dict) -> float:
        start, end = (
            datetime.fromisoformat(run[k].replace("Z", "+00:00"))
            for k in ("started_at", "ended_at")
        )
        return (end - start).total_seconds()

    wall = sum(seconds(r) for r in runs)
    stages = sum(float(s["seconds"]) for r in runs for s in r["stages"])
    return (
        f"{len(runs)} runs: {wall:.0f} s from start to end of each run, added up "
        f"({wall / 60:.1f} min); {stages:.0f} s in their stages"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=Path, default=ROOT / "data" / "runs")
    parser.add_argument("--note", help="only runs whose note starts with this")
    args = parser.parse_args(argv)
    runs = read_runs(args.runs, args.note)
    if not runs:
        print(
            f"no run files in {args.runs}" + (f" noted {args.note!r}" if args.note else ""),
            file=sys.stderr,
        )
        return 1
    print(stage_table(runs), "", spread(runs), "", gpu_time(runs), sep="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
