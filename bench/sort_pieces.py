"""Sort benchmark: what sorting every record by its id costs oxigraph: whole, in pieces, by a copy.

    python bench/sort_pieces.py STORE [STORE ...] [--pieces 3 5 7] [--rounds 3]

Each STORE is an embedded store's directory (its live version is opened read-only). Two
canned queries (``current-claims``, ``results-without-reproduction``) return every
record sorted by id. oxigraph keeps a string of more than 15 bytes in the store and reads
it back on every comparison; a string the query makes (``CONCAT`` with a constant) is
kept in memory. In this one process, best of ``--rounds``, in seconds:

- **join**: the claims and their ids, unsorted (the baseline);
- **by id**: the same sorted by the id alone;
- **N pieces**: sorted by N pieces of 15 characters, then the id (the queries' way before);
- **copy**: sorted by ``CONCAT("~", ?id)``, a copy made in the query (the same order:
  one constant first); the queries' way now;
- **empty copy**: sorted by ``CONCAT("", ?id)``, which oxigraph folds back into the id.

Each sorted run's order is checked against Python's sort of the ids.

Also how many sorted ids share their first 45, 60 and 75 characters with the next: where
most do, most comparisons reach the whole id.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import pyoxigraph as ox

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import best  # noqa: E402

JOIN = """PREFIX kg: <https://w3id.org/claimgraph/ns#>
PREFIX dcterms: <http://purl.org/dc/terms/>
SELECT ?record ?id WHERE {{
  ?record a kg:Claim .
  {{ SELECT ?record ?id WHERE {{ ?record dcterms:identifier ?id }} }}
  {binds}
}}
{order}"""


def text(pieces: int | None, by_id: bool = True) -> str:
    """The query sorted by ``pieces`` pieces and then the id (None: no pieces)."""
    binds = " ".join(f"BIND(SUBSTR(?id, {15 * i + 1}, 15) AS ?k{i})" for i in range(pieces or 0))
    keys = [f"?k{i}" for i in range(pieces or 0)] + (["?id"] if by_id else [])
    return JOIN.format(binds=binds, order=f"ORDER BY {' '.join(keys)}" if keys else "")


def copy_text(prefix: str) -> str:
    """The query sorted by a copy of the id that starts with ``prefix``."""
    return JOIN.format(binds=f'BIND(CONCAT("{prefix}", ?id) AS ?key)', order="ORDER BY ?key")


def shared(ids: list[str], length: int) -> int:
    """How many of the sorted ``ids`` share their first ``length`` characters with the next."""
    return sum(1 for a, b in itertools.pairwise(ids) if a[:length] == b[:length])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--pieces", nargs="+", type=int, default=[3, 5, 7])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(
        "| store | records | share 45 / 60 / 75 | join s | by id s | "
        + " | ".join(f"{n} pieces s" for n in args.pieces)
        + " | copy s | empty copy s |"
    )
    print("|---|---|---|---|---|" + "---|" * (len(args.pieces) + 2))
    for path in args.stores:
        store = ox.Store.read_only(str((path / "live").resolve()))

        def run(sparql: str, store: ox.Store = store) -> float:
            return best(
                args.rounds, lambda: list(store.query(sparql, use_default_graph_as_union=True))
            )

        def order(sparql: str, store: ox.Store = store) -> list[str]:
            return [row["id"].value for row in store.query(sparql, use_default_graph_as_union=True)]

        started = time.perf_counter()
        ids = sorted(
            row["id"].value
            for row in store.query(text(None, False), use_default_graph_as_union=True)
        )
        print(
            f"{path}: {len(ids):,} ids read in {time.perf_counter() - started:.2f} s",
            file=sys.stderr,
            flush=True,
        )
        for sparql in [text(None), *(text(n) for n in args.pieces), copy_text("~"), copy_text("")]:
            if order(sparql) != ids:
                raise SystemExit(f"{path}: not sorted by id:\n{sparql}")
        join = run(text(None, False))
        sorted_by = [run(text(n)) for n in args.pieces]
        sorted_by += [run(copy_text("~")), run(copy_text(""))]
        cells = [f"{t:.2f} ({t / join:.1f}x)" for t in sorted_by]
        by_id = run(text(None))
        print(
            f"| {path} | {len(ids):,} | {shared(ids, 45):,} / {shared(ids, 60):,} / "
            f"{shared(ids, 75):,} | {join:.2f} | {by_id:.2f} ({by_id / join:.1f}x) | "
            + " | ".join(cells)
            + " |",
            flush=True,
        )


if __name__ == "__main__":
    main()
