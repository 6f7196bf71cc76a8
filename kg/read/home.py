"""What the home page shows of the registry: how much it holds, its sources and most-used
benchmarks with their counts, and the latest changes; all from the version's index and
timeline files, so the first request after a start or a load reads a few pages of them."""

from __future__ import annotations

from dataclasses import dataclass

from ..store.index import Index
from ..store.index.listings import activity_counts, value_counts
from ..store.index.timeline import Entry
from ..store.index.timeline_file import TimelineFile

#: The facets whose number of values the home page says (a list each: kg/read/lists.py).
COUNTED = ("source", "benchmark", "model", "developer")


@dataclass(frozen=True)
class Overview:
    records: int
    #: facet -> how many values of it some record has
    values: dict[str, int]
    #: activity kind (review, run, import, standing) -> how many
    activities: dict[str, int]
    #: (value, label, records) of every source, most records first (at most ``top``)
    sources: list[tuple[str, str, int]]
    #: (value, label, records) of the most-used benchmarks
    benchmarks: list[tuple[str, str, int]]
    #: the latest entries of the registry's feed, newest first
    changes: list[Entry]


def overview(index: Index, timeline: TimelineFile, top: int = 12, changes: int = 8) -> Overview:
    """The home page's figures for the index's version."""
    return Overview(
        records=index.size,
        values=value_counts(index, COUNTED),
        activities=activity_counts(index),
        sources=index.top_values("source", top),
        benchmarks=index.top_values("benchmark", top),
        changes=list(timeline.entries[-changes:])[::-1],  # oldest first there
    )
