"""The outcomes of a check of a source file (``kg verify``), and which one a review's checks
sum to: the verify feature writes them, the index reads them."""

from __future__ import annotations

from collections.abc import Iterable

PASSED, FAILED, NOT_CHECKED = "passed", "failed", "not-checked"


def worst_outcome(outcomes: Iterable[str]) -> str:
    """failed if any is, else not-checked if any is, else passed.

    >>> worst_outcome(["passed", "not-checked"])
    'not-checked'
    """
    seen = set(outcomes)
    if FAILED in seen:
        return FAILED
    return NOT_CHECKED if NOT_CHECKED in seen else PASSED
