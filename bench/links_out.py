"""Links out of a store, by kind of node, property and target site (docs/links.md).

    python bench/links_out.py STORE [--base https://claimgraph.example/]

STORE is an embedded store a load wrote (``kg --store STORE load data``). Prints one line per
(kind, property, site) with its count, then the totals by kind and by site: the figures the
closing note of issue 50 asks for. It counts with ``queries/internal/links-out.rq`` (each
statement once in the union of the graphs, rdf:type and the registry's own IRIs left out),
the statements VoID's linksets count by property and site.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyoxigraph as ox  # noqa: E402

from kg.store import EmbeddedStore  # noqa: E402
from kg.store.queries import internal_query  # noqa: E402


def links_out(store: EmbeddedStore, base: str) -> list[tuple[str, str, str, int]]:
    """(kind, property, site, statements) of every link out of ``store``."""
    rows = store.query(internal_query("links-out").text, {"base": ox.Literal(base)})
    return [
        (r["kind"].value, r["property"].value, r["site"].value, int(r["triples"].value))
        for r in rows
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--base", default="https://claimgraph.example/")
    args = parser.parse_args()
    store = EmbeddedStore(args.store, read_only=True)
    links = links_out(store, args.base)
    by_kind: Counter[str] = Counter()
    by_site: Counter[str] = Counter()
    print("| kind | property | site | statements |\n|---|---|---|---:|")
    for kind, prop, where, n in links:
        print(f"| {kind} | {prop} | {where} | {n:,} |")
        by_kind[kind] += n
        by_site[where] += n
    print("\n| kind | links out |\n|---|---:|")
    for kind, n in sorted(by_kind.items()):
        print(f"| {kind} | {n:,} |")
    print("\n| site | links in |\n|---|---:|")
    for where, n in by_site.most_common():
        print(f"| {where} | {n:,} |")


if __name__ == "__main__":
    main()
