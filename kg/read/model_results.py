"""A model's results: its records grouped by benchmark, each with its place on that
benchmark's leaderboard. The model page shows them; ``kg model ID`` prints them."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..store.index.ranking import Ranked
from ..store.index.rows import Row
from .boards import Boards


@dataclass(frozen=True)
class BenchmarkResults:
    """The model's rows on one benchmark."""

    benchmark: str
    label: str
    #: how many rows the benchmark's whole leaderboard has
    size: int
    #: the model's rows, ranked on that leaderboard
    entries: list[Ranked]
    #: the leaderboard's numbers, lowest and highest (None when it has none)
    low: Decimal | None
    high: Decimal | None


@dataclass(frozen=True)
class ModelResults:
    """Every result of one model, by benchmark (benchmarks by label)."""

    iri: str
    rows: list[Row]
    sections: list[BenchmarkResults]

    @property
    def sources(self) -> list[str]:
        """The titles of the sources that report its results."""
        return sorted({r.source_title for r in self.rows})


def model_results(boards: Boards, iri: str) -> ModelResults | None:
    """The results of the model ``iri`` (None when no ranked result names it)."""
    entries = boards.model_entries(iri)
    if not entries:
        return None
    groups: dict[str, list[Ranked]] = {}
    for entry in sorted(
        entries, key=lambda e: (e.row.benchmark_label, e.row.source_title, e.row.id)
    ):
        groups.setdefault(entry.row.benchmark, []).append(entry)
    sections = []
    for benchmark, members in groups.items():
        board = boards.info(benchmark)
        assert board is not None  # the index has a board for every row's benchmark
        sections.append(
            BenchmarkResults(
                benchmark=benchmark,
                label=members[0].row.benchmark_label,
                size=board.size,
                entries=members,
                low=board.low,
                high=board.high,
            )
        )
    return ModelResults(iri, [e.row for e in entries], sections)
