"""Canned queries as committed at a git revision against the working tree's, in one process.

    python bench/query_revisions.py STORE [STORE ...] [--rev HEAD] [--queries NAME ...]
        [--rounds 3]

For each canned query whose file differs from the one at ``--rev`` (or each of
``--queries``), both texts are run on each STORE's live version (opened read-only, the
default graph as the union), with the parameters bench/canned.py picks from the store
bound by a VALUES clause. Rounds alternate old and new; the table has the best of each,
the ratio new/old, and whether both gave the same rows in the same order (a change of
a query's text must not change its answer). Exits non-zero if any answer differs.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyoxigraph as ox

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.canned import picks, texts  # noqa: E402
from bench.serve import live_or_exit  # noqa: E402
from kg.store.queries import SparqlFile, canned_queries, read_sparql_file  # noqa: E402


def committed(rev: str, names: list[str] | None, work: Path) -> dict[str, SparqlFile]:
    """The canned queries as committed at ``rev``: those named, or those that differ."""
    out = {}
    for name, query in canned_queries().items():
        if names and name not in names:
            continue
        shown = subprocess.run(
            ["git", "show", f"{rev}:queries/{name}.rq"], cwd=ROOT, capture_output=True, text=True
        )
        if shown.returncode != 0:  # new since rev: nothing to compare with
            continue
        if names or shown.stdout != query.text:
            path = work / f"{name}.rq"
            path.write_text(shown.stdout, encoding="utf-8")
            out[name] = read_sparql_file(path)
    return out


def rows(store: ox.Store, text: str) -> tuple[float, list[tuple]]:
    started = time.perf_counter()
    answer = [
        tuple(str(term) if term is not None else None for term in row)
        for row in store.query(text, use_default_graph_as_union=True)
    ]
    return time.perf_counter() - started, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", nargs="+", type=Path, help="store directories (kg --store)")
    parser.add_argument("--rev", default="HEAD", help="the git revision of the old texts")
    parser.add_argument("--queries", nargs="+", help="only these canned queries")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    differ = False
    print(f"| records | canned query | rows | {args.rev} s | working tree s | ratio | same |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        old = committed(args.rev, args.queries, Path(work))
        if not old:
            raise SystemExit(f"no canned query differs from {args.rev}")
        for path in args.stores:
            live = live_or_exit(path)
            found = picks(live)
            before, _ = texts(found, old)
            after, _ = texts(found, {name: canned_queries()[name] for name in old})
            store = ox.Store.read_only(str(live))
            for name in old:
                times: dict[str, list[float]] = {"old": [], "new": []}
                answers: dict[str, list[tuple]] = {}
                for _ in range(args.rounds):
                    for which, text in (("old", before[name]), ("new", after[name])):
                        took, answers[which] = rows(store, text)
                        times[which].append(took)
                same = answers["old"] == answers["new"]
                differ |= not same
                a, b = min(times["old"]), min(times["new"])
                print(
                    f"| {int(found['records'] or 0):,} | {name} | {len(answers['new']):,} "
                    f"| {a:.3f} | {b:.3f} | {b / a:.2f} | {'yes' if same else 'NO'} |",
                    flush=True,
                )
            del store
    if differ:
        raise SystemExit("a new text gave other rows or another order than the old")


if __name__ == "__main__":
    main()
