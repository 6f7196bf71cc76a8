"""Following benchmark: what the timeline, the feeds, the sitemap and VoID cost.

    python bench/follow.py [SIZES ...] [--work /tmp/kg-bench-follow]

For each size, ``bench/gen.py N --seed 1`` makes a synthetic corpus (records, reviews,
runs), loaded into a fresh embedded store and released once (``kg release``). Then, in
this one process, over that store and archive:

- **per version**: ``write_timeline`` (the timeline file, written once per store version and
  release, from the index) against ``read_rows`` (every record's row from the store, what
  the index is written from: the baseline), seconds and ratio; VoID's figures (the stats and class
  partition queries and the load's figures graph, once per version) against the same
  baseline;
- **per request**, the app in this process (Flask's test client, no response cache:
  ``cache_mb=0``), mean milliseconds over ``--requests`` requests once the per-version
  work is done: a record page (the baseline),
  the registry's feed, a record's feed, an archive page, the sitemap, VoID.

Times are wall clock (``time.perf_counter``); the per-version figures are the best of
three passes.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.gen import generate  # noqa: E402
from bench.timing import best  # noqa: E402
from kg.store import EmbeddedStore  # noqa: E402
from kg.store.archive import Archive  # noqa: E402
from kg.store.index import Index  # noqa: E402
from kg.store.index.rows import read_rows  # noqa: E402
from kg.store.index.timeline_file import TimelineFile  # noqa: E402
from kg.store.index.timeline_write import write_timeline  # noqa: E402
from kg.store.load import load_paths  # noqa: E402
from kg.web import create_app  # noqa: E402
from kg.web.following.void import VoidFigures  # noqa: E402
from kg.web.state import close  # noqa: E402

BASE = "https://claimgraph.example/"


def mean_ms(client, path: str, requests: int) -> float:
    assert client.get(path).status_code == 200, path
    started = time.perf_counter()
    for _ in range(requests):
        client.get(path)
    return 1000 * (time.perf_counter() - started) / requests


def measure(size: int, requests: int, work: Path) -> dict[str, float]:
    data = work / f"corpus-{size}"
    shutil.rmtree(data, ignore_errors=True)
    generate(size, 1, data)
    store_dir, archive_dir = work / f"store-{size}", work / f"archive-{size}"
    shutil.rmtree(store_dir, ignore_errors=True)
    shutil.rmtree(archive_dir, ignore_errors=True)
    with EmbeddedStore(store_dir) as store:
        load_paths(store, [data], BASE)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "kg.cli",
            "--store",
            str(store_dir),
            "--archive",
            str(archive_dir),
            "--base",
            BASE,
            "--data",
            str(data),
            "release",
            "--date",
            "2026-12-01",
        ],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    archive = Archive(archive_dir)
    with EmbeddedStore(store_dir, read_only=True) as store:
        rows = read_rows(store)
        index = Index(store.kept_index())
        timeline = work / f"timeline-{size}.sqlite"
        rows_s = best(3, lambda: read_rows(store))
        timeline_s = best(3, lambda: write_timeline(index, archive, BASE, timeline))
        void_s = best(3, lambda: VoidFigures(store, BASE, [], Index(store.kept_index()).classes()))
        entries = len(TimelineFile(timeline).entries)
    record = sorted(r.id for r in rows)[len(rows) // 2]
    app = create_app(
        {
            "store": store_dir,
            "archive": archive_dir,
            "base": BASE,
            "data": data,
            "dumps": work / "dumps",
            "TESTING": True,
            "cache_mb": 0,
        }
    )  # rendered anew each time: no response cache
    try:
        client = app.test_client()
        pages = {
            "record page": f"/record/{record}",
            "registry feed": "/feed.atom",
            "record feed": f"/feed/record/{record}.atom",
            "archive page": "/feed.atom?archive=1",
            "sitemap": "/sitemap.xml",
            "void": "/.well-known/void",
        }
        per_request = {name: mean_ms(client, path, requests) for name, path in pages.items()}
    finally:
        close(app)
    return {
        "records": len(rows),
        "entries": entries,
        "rows_s": rows_s,
        "timeline_s": timeline_s,
        "void_s": void_s,
        **per_request,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1000, 10000])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--work", type=Path, default=Path("/tmp/kg-bench-follow"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print("| records | entries | read_rows s | write_timeline s | ratio | VoID figures s | ratio |")
    print("|---|---|---|---|---|---|---|")
    found = []
    for size in args.sizes:
        m = measure(size, args.requests, args.work)
        found.append(m)
        print(
            f"| {m['records']:,} | {m['entries']:,} | {m['rows_s']:.2f} | "
            f"{m['timeline_s']:.2f} | {m['timeline_s'] / m['rows_s']:.2f} | "
            f"{m['void_s']:.2f} | {m['void_s'] / m['rows_s']:.2f} |",
            flush=True,
        )
    names = ["record page", "registry feed", "record feed", "archive page", "sitemap", "void"]
    print()
    print("| records | " + " | ".join(f"{n} ms" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for m in found:
        cells = [
            f"{m[n]:.1f} ({m[n] / m['record page']:.1f}x)" if n != "record page" else f"{m[n]:.1f}"
            for n in names
        ]
        print(f"| {m['records']:,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
