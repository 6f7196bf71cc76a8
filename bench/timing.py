"""Timing shared by the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable


def best(runs: int, work: Callable[[], object]) -> float:
    """The fastest of ``runs`` runs of ``work``, in seconds (wall clock): the machine is
    shared, and the fastest run is the one least disturbed."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)
