"""Page weight: the bytes (raw and gzip, as served) and the first and repeated request times
of every page kind, through a real ``kg serve`` over a store, in this one command.

    python bench/page_weight.py STORE --data DATA [--label NAME] [--repeats 5] [--json FILE]

STORE and DATA as ``kg serve`` takes them (only read). The pages are bench/million.py's
(the store's largest model, benchmark and source: the worst case of a page that lists
them) and a few more kinds (a board sorted by a column, an agent's page, a canned query's
result). One server is started; each page is asked once (its **first** request, with
``Accept-Encoding: gzip``: the served gzip bytes), once without gzip (the raw bytes), and
``--repeats`` more times (the **repeated** request: the best and the median, the response
cache on, as ``kg serve`` runs by default). The baseline is ``/healthz`` asked the same
way in the same run: each time is given as a ratio to its median too (the machine is
shared; the ratio is what another machine repeats).

A page's **chart** is the bytes of its inline SVG; the issue's budget for the largest
board (its first page): 200 KB gzip, the chart 50 KB.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.million import pages, pick, start
from bench.serve import Server, live_or_exit

GZIP = {"Accept-Encoding": "gzip", "Accept": "text/html"}
PLAIN = {"Accept": "text/html"}
#: The issue's budget for the largest board's first page: (gzip bytes, chart bytes).
BOARD_BUDGET = (200_000, 50_000)


def timed(server: Server, path: str, headers: dict[str, str]) -> tuple[int, float, bytes]:
    started = time.perf_counter()
    status, body = server.get(path, headers=headers)
    return status, (time.perf_counter() - started) * 1000, body


def chart_bytes(body: bytes) -> int:
    """The bytes of a page's inline SVG (its charts)."""
    return sum(len(m) for m in re.findall(rb"<svg\b.*?</svg>", body, re.S))


def more_pages(server: Server, benchmark: str) -> list[tuple[str, str]]:
    """The page kinds bench/million.py does not ask: a sorted board, an agent, a canned
    query's result, a facet's full list."""
    found = [
        ("board, sorted by model", f"{benchmark}?sort=model"),
        ("board, page 20", f"{benchmark}?start=1900"),
        ("sparql, canned result", "/sparql?canned=stats"),
        ("developers", "/developers"),
        ("metrics", "/metrics"),
    ]
    status, body = server.get("/agents.json", headers={"Accept": "application/json"})
    if status == 200:
        agents = json.loads(body).get("items") or []
        if agents and agents[0].get("page"):
            found.append(("agent", agents[0]["page"]))
    return found


def measure(args: argparse.Namespace) -> list[dict[str, object]]:
    live_or_exit(args.store)
    picked = pick(args.store, 20)
    server, _ = start(args.store, args.data, None)
    try:
        kinds = [(k, p) for k, p in pages(picked) if p and k != "sitemap part"]
        kinds += more_pages(server, str(picked["benchmark"]))
        floor = [timed(server, "/healthz", GZIP)[1] for _ in range(args.repeats)]
        base = statistics.median(floor)
        rows: list[dict[str, object]] = [
            {"kind": "baseline /healthz", "path": "/healthz", "median_ms": base}
        ]
        for kind, path in kinds:
            status, first_ms, zipped = timed(server, path, GZIP)
            _, _, raw = timed(server, path, PLAIN)
            again = [timed(server, path, GZIP)[1] for _ in range(args.repeats)]
            # a body the server did not compress (small, or not text) counts as it is
            served = len(zipped)
            plain = raw if zipped[:2] == b"\x1f\x8b" else zipped
            rows.append(
                {
                    "kind": kind,
                    "path": path,
                    "status": status,
                    "raw": len(raw),
                    "gzip": served,
                    "gzip9": len(gzip.compress(plain, 9)),
                    "chart": chart_bytes(raw),
                    "first_ms": first_ms,
                    "best_ms": min(again),
                    "median_ms": statistics.median(again),
                    "first_x": first_ms / base,
                    "median_x": statistics.median(again) / base,
                }
            )
            print(f"  {kind}: {status} {len(raw):,} B, {first_ms:.1f} ms", file=sys.stderr)
        return rows
    finally:
        server.stop()


def report(rows: list[dict[str, object]], label: str) -> str:
    lines = [
        f"Page weight, {label} (first and repeated requests; x: ratio to /healthz's median, "
        f"{rows[0]['median_ms']:.2f} ms, in the same run):",
        "",
        "| page | status | raw | gzip (served) | chart | first | repeated (median) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows[1:]:
        lines.append(
            f"| {r['kind']} | {r['status']} | {r['raw']:,} | {r['gzip']:,} | "
            f"{r['chart']:,} | {r['first_ms']:.1f} ms ({r['first_x']:.0f}x) | "
            f"{r['median_ms']:.1f} ms ({r['median_x']:.1f}x) |"
        )
    board = next(r for r in rows if r["kind"] == "benchmark")
    within = board["gzip"] <= BOARD_BUDGET[0] and board["chart"] <= BOARD_BUDGET[1]
    lines += [
        "",
        f"The largest board's first page: {board['gzip']:,} bytes gzip (budget "
        f"{BOARD_BUDGET[0]:,}), its chart {board['chart']:,} bytes (budget {BOARD_BUDGET[1]:,}): "
        + ("within budget." if within else "OVER BUDGET."),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--label", default="")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    rows = measure(args)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print(report(rows, args.label or str(args.store)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
