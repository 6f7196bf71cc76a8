"""Views benchmark: server CPU per page of the leaderboards, model pages, comparison,
disagreements and the index, on imported Every Eval Ever results.

    python bench/views.py [--files 500 2000 0] [--requests 20] [--archive PATH]
                          [--work /tmp/kg-bench-views]

For each size (the first N result files of the snapshot in path order, as
bench/imports.py takes them; 0: all 5,267 files, 35,043 results) it imports them into a
fresh data directory and store, starts `kg serve` (one process) on 127.0.0.1, and in this
one command measures each page by the CPU time the server's processes used (from /proc, as
bench/serve.py does), over ``--requests`` requests sent one after another after one warm-up
request, and more until the server has used a second of CPU on the page. Pages are
rendered anew on every request (no response cache); the warm-up builds the index and the
boards once per store version, and its cost is reported on its own.

The baseline, in the same server and run: a record page (the page every registry serves)
and /healthz (the floor of the server itself); each page's CPU is also given as a ratio to
the record page. The largest leaderboard and the model with the most results are found
from the files themselves, not from the server.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
import urllib.parse
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.imports import ARCHIVE, ORIGIN, origin_folder  # noqa: E402
from bench.serve import Server, cpu_seconds, tree  # noqa: E402
from kg.model.upstream.every_eval_ever.identity import (  # noqa: E402
    benchmark_id,
    benchmark_key,
    model_key,
)

BASE = "https://claimgraph.example/"


def kg(*args: str) -> list[str]:
    return [sys.executable, "-m", "kg.cli", *args]


def largest(origin: Path) -> tuple[str, int, str, int]:
    """The benchmark with the most results and their count, and the model with the most
    results and theirs."""
    benchmarks: Counter[str] = Counter()
    models: Counter[str] = Counter()
    for path in (p for p in origin.rglob("*.json") if p.is_file()):  # 5 folders end in .json
        doc = json.loads(path.read_bytes())
        models[model_key(doc["model_info"]["id"])] += len(doc["evaluation_results"])
        for r in doc["evaluation_results"]:
            dataset, name = r["source_data"]["dataset_name"], r["evaluation_name"]
            metric = r["metric_config"]
            key = benchmark_key(
                dataset, name, metric.get("evaluation_description", ""), metric["lower_is_better"]
            )
            benchmarks[benchmark_id(dataset, name, key)] += 1
    ((board, size),) = benchmarks.most_common(1)
    ((model, results),) = models.most_common(1)
    return board, size, model, results


def measure(server: Server, path: str, requests: int) -> dict[str, float]:
    pids = tree(server.proc.pid)
    before = cpu_seconds(pids)
    status, body = server.get(path)
    warm = cpu_seconds(pids) - before
    if status != 200:
        raise SystemExit(f"{path}: HTTP {status}: {body[:300]!r}")
    walls = []
    before = cpu_seconds(pids)
    # At least ``requests`` requests and a second of CPU time: /proc counts in ticks of
    # 10 ms, too coarse for a few requests of a few milliseconds.
    while len(walls) < requests or (cpu_seconds(pids) - before < 1 and len(walls) < 2000):
        started = time.perf_counter()
        status, body = server.get(path)
        walls.append(time.perf_counter() - started)
        assert status == 200, (path, status)
    cpu = (cpu_seconds(pids) - before) / len(walls)
    return {
        "cpu_ms": cpu * 1000,
        "wall_ms": statistics.median(walls) * 1000,
        "first_ms": warm * 1000,
        "bytes": len(body),
    }


def one_size(archive: Path, files: int, work: Path, requests: int) -> dict:
    here = work / f"files-{files or 'all'}"
    shutil.rmtree(here, ignore_errors=True)
    origin, data, store = here / "origin", here / "data", here / "store"
    n, results = origin_folder(archive, files, origin)
    shutil.copytree(ROOT / "data" / "agents", data / "agents")
    board, size, model, model_results = largest(origin)
    common = ["--data", str(data), "--store", str(store), "--base", BASE]
    subprocess.run(
        kg(*common, "import", "every-eval-ever", str(origin), "--origin", ORIGIN),
        check=True,
        stdout=subprocess.DEVNULL,
    )
    server = Server(kg(*common, "serve", "--port", "0", "--workers", "1"))
    try:
        _, body = server.get(f"/benchmark/{board}/leaderboard.json")
        rows = json.loads(body)["rows"]
        first, second = rows[0]["id"], rows[1]["id"]
        quoted = urllib.parse.quote(model, safe="")
        pages = {
            "/healthz (floor)": "/healthz",
            "record page (baseline)": f"/record/{first}",
            "index, first page": "/",
            "index, one benchmark": "/?"
            + urllib.parse.urlencode({"benchmark": f"{BASE}benchmark/{board}"}),
            "index, sorted by value": "/?sort=-value",
            f"leaderboard ({size:,} rows)": f"/benchmark/{board}",
            "leaderboard, filtered": f"/benchmark/{board}?precision=bfloat16&params_max=10",
            "leaderboard, a record marked": f"/benchmark/{board}?record={rows[-1]['id']}",
            "leaderboard as CSV": f"/benchmark/{board}/leaderboard.csv",
            f"model page ({model_results} results)": f"/model/{quoted}",
            "compare, two records": f"/compare?record={first}&record={second}",
            "disagreements": "/disagreements",
        }
        measured = {name: measure(server, path, requests) for name, path in pages.items()}
    finally:
        server.stop()
    return {"files": n, "results": results, "index_s": server.index_seconds, "pages": measured}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[500, 2000, 0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--archive", type=Path, default=ARCHIVE)
    parser.add_argument("--work", type=Path, default=Path("/tmp/kg-bench-views"))
    args = parser.parse_args()
    print(
        "| files | results | page | server CPU ms/request | ratio to record page "
        "| median wall ms | first request CPU ms | bytes |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for files in args.files:
        r = one_size(args.archive, files, args.work, args.requests)
        baseline = r["pages"]["record page (baseline)"]["cpu_ms"]
        for name, m in r["pages"].items():
            print(
                f"| {r['files']:,} | {r['results']:,} | {name} | {m['cpu_ms']:.1f} | "
                f"{m['cpu_ms'] / baseline:.2f} | {m['wall_ms']:.1f} | {m['first_ms']:.0f} | "
                f"{m['bytes']:,} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
