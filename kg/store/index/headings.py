"""Each leaderboard's heading, unique among the boards: its benchmark's name where no other
board has it, else the name with the source of its records ("GPQA (HF Open LLM v2)" and
"GPQA (helm_capabilities)"), else with its id too. Written into the boards table and the
benchmark facet's labels, so that every page naming a board (its own, the home page, the
lists, the facets) names it the same way; made again after every write or update (the
boards are few: 90 at 35k, 88 at a million)."""

from __future__ import annotations

import sqlite3
from collections import Counter

from .listings import first_rows


def name_boards(db: sqlite3.Connection) -> None:
    """Give every board of the file its heading (see the module)."""
    boards = [b for (b,) in db.execute("SELECT benchmark FROM boards")]
    found = first_rows(db, "benchmark", boards, "benchmark_label, source_title")
    first = {b: (found[b][0] or b, found[b][1] or "") if b in found else (b, "") for b in boards}
    headings = headings_of(first)
    db.executemany(
        "UPDATE boards SET label = ? WHERE benchmark = ?",
        ((heading, b) for b, heading in headings.items()),
    )
    db.executemany(
        "UPDATE facet_values SET label = ? WHERE facet = 'benchmark' AND value = ?",
        ((heading, b) for b, heading in headings.items()),
    )


def headings_of(boards: dict[str, tuple[str, str]]) -> dict[str, str]:
    """Each board's heading from its (name, source title), keyed by its benchmark IRI.

    >>> headings_of({
    ...     "x/gpqa-1": ("GPQA", "HF Open LLM v2"), "x/gpqa-2": ("GPQA", "helm"),
    ...     "x/bbh-1": ("BBH", "HF Open LLM v2"),
    ...     "x/m-1": ("MMLU", "helm"), "x/m-2": ("MMLU", "helm"),
    ... })  # doctest: +NORMALIZE_WHITESPACE
    {'x/gpqa-1': 'GPQA (HF Open LLM v2)', 'x/gpqa-2': 'GPQA (helm)', 'x/bbh-1': 'BBH',
     'x/m-1': 'MMLU (helm, m-1)', 'x/m-2': 'MMLU (helm, m-2)'}
    """
    names = Counter(name for name, _ in boards.values())
    sourced = Counter(boards.values())
    out = {}
    for benchmark, (name, source) in boards.items():
        if names[name] == 1:
            out[benchmark] = name
        elif sourced[(name, source)] == 1 and source:
            out[benchmark] = f"{name} ({source})"
        else:
            tail = benchmark.rstrip("/").rpartition("/")[2]
            out[benchmark] = f"{name} ({source}, {tail})" if source else f"{name} ({tail})"
    return out
