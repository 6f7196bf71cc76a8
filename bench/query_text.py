"""What reading a query's text costs /sparql before it runs (issue 25): the checks of
kg.rdf.sparqltext and kg.web.sparql.guard on each canned query, with the quick keyword
finder against its pattern tried at every character, in one process.

    python bench/query_text.py [--rounds 5] [--repeat 2000]

Each canned query's text is read as /sparql and its query worker read it: the update and
SERVICE check (`check_query`), the query's form (`query_form`, asked twice), whether it
names its dataset (`union_default`) and the row cap (`with_row_limit`). Two ways, taking
turns, the least of ``--rounds`` rounds of ``--repeat`` reads:

- **pattern**: every keyword search runs its pattern over the whole text (the look-behind
  tried at every character), and the row cap walks the text a character at a time, as
  both did before;
- **quick**: as served: a pattern is tried only where one of its words occurs.

The ratio is quick over pattern.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg.rdf import sparqltext  # noqa: E402
from kg.store.base import union_default  # noqa: E402
from kg.store.queries import canned_queries  # noqa: E402
from kg.web.sparql.guard import check_query  # noqa: E402


def by_characters(text: str, rows: int) -> str | None:
    """The row cap as it was written before: a walk over every character for the depth."""
    if sparqltext.query_form(text) != "SELECT":
        return None
    depth, outer = 0, []
    for char in sparqltext.tokens(text):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        outer.append(char if depth == 0 and char != "}" else " ")
    if sparqltext._OUTER_CAP.pattern.search("".join(outer)):
        return None
    return f"{text}\nLIMIT {rows}"


def read_all(text: str, row_limit: Callable[[str, int], str | None]) -> None:
    check_query(text)
    sparqltext.query_form(text)
    sparqltext.query_form(text)
    union_default(text)
    row_limit(text, 10_001)


def micros(text: str, repeat: int, row_limit: Callable[[str, int], str | None]) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        read_all(text, row_limit)
    return (time.perf_counter() - started) / repeat * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=2000)
    args = parser.parse_args()
    quick = sparqltext.Keywords.finditer

    def everywhere(self: sparqltext.Keywords, text: str):  # the pattern alone
        return self.pattern.finditer(text)

    texts = {name: query.text for name, query in canned_queries().items()}
    for name, text in texts.items():  # both ways read every text alike
        sparqltext.Keywords.finditer = everywhere  # type: ignore[method-assign]
        slow = (sparqltext.with_row_limit(text, 11), sparqltext.query_form(text))
        sparqltext.Keywords.finditer = quick  # type: ignore[method-assign]
        assert slow == (sparqltext.with_row_limit(text, 11), sparqltext.query_form(text)), name
        assert by_characters(text, 11) == sparqltext.with_row_limit(text, 11), name
    best = {(name, way): float("inf") for name in texts for way in ("pattern", "quick")}
    try:
        for _ in range(args.rounds):
            for name, text in texts.items():
                sparqltext.Keywords.finditer = everywhere  # type: ignore[method-assign]
                best[name, "pattern"] = min(
                    best[name, "pattern"], micros(text, args.repeat, by_characters)
                )
                sparqltext.Keywords.finditer = quick  # type: ignore[method-assign]
                best[name, "quick"] = min(
                    best[name, "quick"], micros(text, args.repeat, sparqltext.with_row_limit)
                )
    finally:
        sparqltext.Keywords.finditer = quick  # type: ignore[method-assign]
    print("| canned query | characters | pattern µs | quick µs | ratio |")
    print("|---|---|---|---|---|")
    for name, text in texts.items():
        slow, fast = best[name, "pattern"], best[name, "quick"]
        print(f"| {name} | {len(text):,} | {slow:.1f} | {fast:.1f} | {fast / slow:.2f} |")


if __name__ == "__main__":
    main()
