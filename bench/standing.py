"""Standing benchmark: what the standing rule adds to a record page and to the index.

    python bench/standing.py [SIZES ...] [--changes-every 100] [--pages 200]
                             [--work /tmp/kg-bench-standing]

For each size, ``bench/gen.py N --seed 1`` makes a synthetic corpus, one record in every
``--changes-every`` gets a change of standing (withdrawn, with a reason), and the corpus
is loaded into a fresh embedded store. Then, in this one process and store:

- **record page**: ``record_closure`` (the record's graphs, what every page reads: the
  baseline) against ``standing`` (the rule's three queries and the rule) for ``--pages``
  records drawn evenly, mean milliseconds of each and their ratio;
- **index**: ``read_rows`` (every record's index row, the standing included) against
  ``standings`` of every record alone, seconds and ratio.

Times are wall clock (``time.perf_counter``), each the best of three passes.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.gen import generate  # noqa: E402
from bench.timing import best  # noqa: E402
from kg.model.yamltext import dump_yaml  # noqa: E402
from kg.store import EmbeddedStore  # noqa: E402
from kg.store.index.rows import read_rows  # noqa: E402
from kg.store.load import load_paths  # noqa: E402
from kg.store.records import record_closure  # noqa: E402
from kg.store.standing import standing, standings  # noqa: E402

BASE = "https://claimgraph.example/"


def corpus(size: int, every: int, work: Path) -> tuple[Path, list[str]]:
    out = work / f"corpus-{size}"
    shutil.rmtree(out, ignore_errors=True)
    generate(size, 1, out)
    ids = sorted(p.stem for p in (out / "records").glob("*.yaml"))
    agent = sorted(p.stem for p in (out / "agents").glob("*.yaml"))[0]
    (out / "standing").mkdir()
    for n, ident in enumerate(ids[::every]):
        with (out / "standing" / f"withdrawn-{n}.yaml").open("w") as f:
            dump_yaml(
                {
                    "kind": "standing",
                    "id": f"withdrawn-{n}",
                    "change": "withdrawn",
                    "records": [ident],
                    "agent": agent,
                    "at": "2026-12-02T10:00:00Z",
                    "reason": "a benchmark's change of standing",
                },
                f,
            )
    return out, ids


def measure(size: int, every: int, pages: int, work: Path) -> dict[str, float]:
    data, ids = corpus(size, every, work)
    store_dir = work / f"store-{size}"
    shutil.rmtree(store_dir, ignore_errors=True)
    with EmbeddedStore(store_dir) as store:
        load_paths(store, [data], BASE)
    chosen = ids[:: max(1, len(ids) // pages)][:pages]
    iris = [f"{BASE}record/{i}" for i in chosen]
    with EmbeddedStore(store_dir, read_only=True) as store:
        closure = best(3, lambda: [record_closure(store, BASE, i) for i in chosen])
        rule = best(3, lambda: [standing(store, iri) for iri in iris])
        rows = best(3, lambda: read_rows(store))
        every_standing = best(3, lambda: standings(store))
        withdrawn = sum(s.standing == "withdrawn" for s in standings(store).values())
    return {
        "records": len(ids),
        "withdrawn": withdrawn,
        "closure_ms": 1000 * closure / len(chosen),
        "rule_ms": 1000 * rule / len(chosen),
        "rows_s": rows,
        "standings_s": every_standing,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1000, 10000])
    parser.add_argument("--changes-every", type=int, default=100)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--work", type=Path, default=Path("/tmp/kg-bench-standing"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print(
        "| records | withdrawn | record_closure ms | standing ms | ratio | read_rows s "
        "| standings s | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for size in args.sizes:
        m = measure(size, args.changes_every, args.pages, args.work)
        print(
            f"| {m['records']:,} | {m['withdrawn']:,} | {m['closure_ms']:.2f} | "
            f"{m['rule_ms']:.2f} | {m['rule_ms'] / m['closure_ms']:.2f} | "
            f"{m['rows_s']:.2f} | {m['standings_s']:.2f} | "
            f"{m['standings_s'] / m['rows_s']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
