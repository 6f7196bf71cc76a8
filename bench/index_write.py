"""The index written whole, phase by phase, and the term-use counts against their rule.

    python bench/index_write.py STORE [--out FILE] [--term-uses-only]

STORE is an embedded store directory (only read). In this one process:

- **phases**: ``write_index`` of the store's live version into ``--out`` (a temporary file,
  removed, unless given), each phase's seconds and the process's resident memory after
  it, then the whole and the peak (the rows' reading and writing are summed over their
  chunks);
- **term uses**: the counts the index keeps (``term_uses``: by term, less the ontology
  graphs' own) against ``queries/internal/term-uses.rq`` (the rule: a filter on every
  statement's graph), their seconds and whether they agree.

Wall-clock seconds (``time.perf_counter``), one run each: at a million records the write
takes twenty minutes.
"""

from __future__ import annotations

import argparse
import functools
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import kg.store.index.write as write  # noqa: E402
from kg.store import EmbeddedStore  # noqa: E402
from kg.store.base import solutions  # noqa: E402
from kg.store.index.tables import term_uses  # noqa: E402
from kg.store.queries import internal_query  # noqa: E402

#: The phases ``write_index`` calls, timed one call each.
PHASES = (
    "share_quotes",
    "rank_boards",
    "count_facets",
    "find_disagreements",
    "write_standings",
    "write_imports",
    "term_uses",
    "graphs_about",
    "write_about",
    "write_activities",
    "write_classes",
    "write_meta",
)
#: The phases called once a chunk of records, summed.
CHUNKED = ("read_rows", "put_rows")


def resident_mb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


def timed(name: str, spent: dict[str, float], fn: Callable[..., Any], log: bool):
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - start
            if log:
                print(f"  {name}: {spent[name]:.1f} s, {resident_mb()} MB", flush=True)

    return call


def phases(store: EmbeddedStore, out: Path) -> None:
    spent: dict[str, float] = {}
    for name in PHASES + CHUNKED:
        setattr(write, name, timed(name, spent, getattr(write, name), name in PHASES))
    start = time.perf_counter()
    write.write_index(store, out, store.version())
    whole = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print("| phase | seconds |\n|---|---|")
    for name in CHUNKED + PHASES:
        print(f"| {name} | {spent.get(name, 0.0):.1f} |")
    print(f"| whole | {whole:.1f} |")
    print(f"peak resident memory {peak} MB; the file {out.stat().st_size / 1e9:.2f} GB")


def compare_term_uses(store: EmbeddedStore) -> None:
    start = time.perf_counter()
    rule = {
        row["term"].value: int(row["uses"].value)
        for row in solutions(store.query(internal_query("term-uses").text))
    }
    by_rule = time.perf_counter() - start
    start = time.perf_counter()
    kept = term_uses(store)
    by_term = time.perf_counter() - start
    print(
        f"term uses: term-uses.rq {by_rule:.2f} s, by term {by_term:.2f} s "
        f"(ratio {by_term / by_rule:.2f}), {len(kept)} terms, the same: {kept == rule}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--out", type=Path, help="where the index is written (kept)")
    parser.add_argument("--term-uses-only", action="store_true")
    args = parser.parse_args()
    store = EmbeddedStore(args.store, read_only=True)
    try:
        compare_term_uses(store)
        if args.term_uses_only:
            return
        if args.out is not None:
            phases(store, args.out)
            return
        with tempfile.TemporaryDirectory() as folder:
            phases(store, Path(folder) / "index.sqlite")
    finally:
        store.close()


if __name__ == "__main__":
    main()
