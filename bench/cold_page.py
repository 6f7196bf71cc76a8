"""One page's first request in a fresh process, optionally with the OS's page cache dropped
first, and where its time goes.

    python bench/cold_page.py STORE --data DATA PATH [PATH ...] [--drop-cache] [--profile]

STORE and DATA as ``kg serve`` takes them (only read). For each PATH: a new process makes
the app in-process (its templates compiled, as ``kg serve``'s workers do), asks
``/healthz``, then PATH once, and prints the status, the milliseconds and the bytes; with
``--profile``, the 25 calls that took the longest (``cProfile``, cumulative). With
``--drop-cache`` (root only) the OS's page cache is dropped before each process, so the
request reads the index file from disk, as the first request after a large import does.

Wall-clock milliseconds (``time.perf_counter``) of the one request; one run each.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What each fresh process runs (argv: store, data, path, profile).
ONE_REQUEST = """
import cProfile, pstats, sys, time
from kg.web import compile_templates, create_app
store, data, path, profile = sys.argv[1:5]
app = create_app({"store": store, "data": data, "TESTING": True, "cache_mb": 0})
compile_templates(app)
client = app.test_client()
client.get("/healthz")
profiler = cProfile.Profile()
if profile == "1":
    profiler.enable()
start = time.perf_counter()
answer = client.get(path, headers={"Accept": "text/html"})
took = (time.perf_counter() - start) * 1000
profiler.disable()
print(f"{answer.status_code} {took:.1f} ms {len(answer.data)} bytes {path}")
if profile == "1":
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
"""


def drop_cache() -> None:
    subprocess.run(["sync"], check=True)
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store")
    parser.add_argument("--data", required=True)
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument("--drop-cache", action="store_true")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    for path in args.paths:
        if args.drop_cache:
            drop_cache()
        subprocess.run(
            [
                sys.executable,
                "-c",
                ONE_REQUEST,
                args.store,
                args.data,
                path,
                "1" if args.profile else "0",
            ],
            cwd=ROOT,
            check=True,
        )


if __name__ == "__main__":
    main()
