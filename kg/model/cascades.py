"""Which results of a batch are consequences of another file's problem, not problems of
their own: both SHACL engines report through here, so that they report the same.

A constraint that joins files (SHACL-SPARQL: a run's claimed value against its record's)
fails in every file that refers to a broken one: edit a record's value and each run
that quotes it disagrees. The broken file's problem fails the batch already; once it is
fixed, the files that refer to it are checked again. So a joining result is left out
for a file that refers to another file with results of its own, unless that file
refers back (files that refer to each other in a ring are reported whole).

>>> files = {"run": {"record"}, "record": {"source"}}
>>> found = {"run": ["claimed value differs"], "record": ["value differs from print"]}
>>> without_cascades(found, files, joins=lambda result: True)
{'record': ['value differs from print']}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from typing import TypeVar

R = TypeVar("R")


def without_cascades(
    found: Mapping[str, list[R]],
    refers: Mapping[str, set[str]],
    joins: Callable[[R], bool],
    troubled: AbstractSet[str] = frozenset(),
) -> dict[str, list[R]]:
    """``found`` less the joining results of each file that refers to a troubled file.

    ``found`` holds each file's results; ``refers`` the files each file refers to (by
    the nodes it names that another file defines); ``joins`` tells a result of a
    constraint across files from one within a file (kept always); ``troubled`` names
    files with problems besides ``found`` (ones that failed before these checks).
    Where every result would be left out and nothing else fails, all are kept.
    """
    bad = set(troubled) | {f for f, results in found.items() if results}
    kept: dict[str, list[R]] = {}
    for file, results in found.items():
        upstream = {
            other
            for other in refers.get(file, ())
            if other != file and other in bad and file not in refers.get(other, ())
        }
        chosen = [r for r in results if not (upstream and joins(r))]
        if chosen:
            kept[file] = chosen
    if not kept and not troubled:
        return {f: list(results) for f, results in found.items() if results}
    return kept
