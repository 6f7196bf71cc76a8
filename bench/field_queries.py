"""Queries written out from the field declarations, against the same queries written by hand.

    python bench/field_queries.py STORE... [--before REV] [--rounds 3] [--records 200]

``internal_query(NAME).text`` (its field blocks written out from kg/model/fields.py) and the
text of ``queries/internal/NAME.rq`` at commit ``--before`` (default ec945eb, the last one
written by hand) run in this process on each store (a store folder: ``.kg/store``, or
``/work/benchdata/store-10000/kg``). Each row gives both CPU times, the fastest of
``--rounds``, their ratio, and whether both answered the same (solutions as sets of rows,
a CONSTRUCT as a set of triples):

- **index-rows**: every field of every node, once;
- **verify-targets**: every record's targets, once;
- **quote-column**: one record's column, per record, over ``--records`` records (seed 1).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg.config import load_settings  # noqa: E402
from kg.store import GraphStore, open_store  # noqa: E402
from kg.store.base import solutions, triples  # noqa: E402
from kg.store.queries import internal_query, to_term  # noqa: E402

CLAIMS = """PREFIX kg: <https://w3id.org/claimgraph/ns#>
PREFIX dcterms: <http://purl.org/dc/terms/>
SELECT ?id WHERE { ?r a kg:Claim ; dcterms:identifier ?id }"""


def answer(store: GraphStore, text: str, bound: dict | None = None) -> frozenset:
    """What a query answers, as a set: rows (name, value) for solutions, else triples."""
    result = store.query(text, bound)
    if isinstance(result, ox.QuerySolutions):
        names = [v.value for v in result.variables]
        return frozenset(
            tuple((n, row[n].value if row[n] is not None else None) for n in names)
            for row in solutions(result)
        )
    return frozenset(str(t) for t in triples(result))


def cpu(rounds: int, work: Callable[[], object]) -> float:
    """The least CPU time of ``rounds`` runs, in seconds (the machine is shared)."""
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--before", default="ec945eb")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--records", type=int, default=200)
    args = parser.parse_args()

    def by_hand(name: str) -> str:
        return subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{args.before}:queries/internal/{name}.rq"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    print(f"| query | store | records | by hand ({args.before}) | declared | ratio | same answer |")
    print("|---|---|---|---|---|---|---|")
    for path in args.stores:
        settings = load_settings({"store": path})
        with open_store(settings, read_only=True) as store:
            ids = sorted(row["id"].value for row in solutions(store.query(CLAIMS)))
            sample = random.Random(1).sample(ids, min(args.records, len(ids)))
            for name in ("index-rows", "verify-targets", "quote-column"):
                old, new = by_hand(name), internal_query(name).text
                if name == "quote-column":  # per record: the mean over the sample, in ms
                    binds = [{"record": to_term("record", i, settings.base)} for i in sample]
                    same = all(answer(store, old, b) == answer(store, new, b) for b in binds)
                    times = [
                        cpu(args.rounds, lambda t=t, bs=binds: [answer(store, t, b) for b in bs])
                        * 1000
                        / len(binds)
                        for t in (old, new)
                    ]
                    unit = "ms a record"
                else:
                    same = answer(store, old) == answer(store, new)
                    times = [cpu(args.rounds, lambda t=t: answer(store, t)) for t in (old, new)]
                    unit = "s"
                print(
                    f"| {name} | {path} | {len(ids):,} | {times[0]:.3f} {unit} | "
                    f"{times[1]:.3f} {unit} | {times[1] / times[0]:.2f} | "
                    f"{'yes' if same else 'NO'} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
