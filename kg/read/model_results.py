"""A model's results: its records grouped by benchmark, each with its place on that
benchmark's leaderboard. The model page shows them; ``kg model ID`` prints them."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .boards import Boards, Ranked
from .rows import Row


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
    rows = boards.by_model.get(iri)
    if not rows:
        return None
    groups: dict[str, list[Row]] = {}
    for row in sorted(rows, key=lambda r: (r.benchmark_label, r.source_title, r.id)):
        groups.setdefault(row.benchmark, []).append(row)
    sections = []
    for benchmark, members in groups.items():
        board = boards.ranked[benchmark]
        numbers = [r.row.value for r in board if r.row.value is not None]
        sections.append(
            BenchmarkResults(
                benchmark=benchmark,
                label=members[0].benchmark_label,
                size=len(board),
                entries=[boards.entry[r.record] for r in members],
                low=min(numbers) if numbers else None,
                high=max(numbers) if numbers else None,
            )
        )
    return ModelResults(iri, list(rows), sections)
