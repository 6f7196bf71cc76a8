"""A model's results: its records grouped by benchmark, each with its place on that
benchmark's leaderboard. The model page shows them; ``kg model ID`` prints them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
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
    #: record id -> what tells it from the model's other rows here ("" for a single row)
    differs: dict[str, str] = field(default_factory=dict)


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

    @property
    def name(self) -> str:
        """Its name as its results' files write it most often."""
        return _most_common([r.model for r in self.rows])

    @property
    def developer(self) -> str:
        """Its developer as its results' files write it most often ("" when none does)."""
        return _most_common([r.developer for r in self.rows if r.developer])

    @property
    def sizes(self) -> list[str]:
        """The parameter counts (billions) its results' files state, as written."""
        return sorted({r.params for r in self.rows if r.params}, key=lambda p: (len(p), p))


#: What may tell a model's rows on one board apart, in the order a label names them:
#: (the word for it, how a row gives it).
DIFFERING: tuple[tuple[str, Callable[[Row], str]], ...] = (
    ("source", lambda r: r.source_title),
    ("precision", lambda r: r.precision),
    ("parameters", lambda r: f"{r.params} B" if r.params else ""),
    ("file", lambda r: r.evaluation.rstrip("/").rpartition("/")[2]),
)


def what_differs(rows: list[Row]) -> dict[str, str]:
    """For each of ``rows`` (one model's on one board), what tells it from the others: the
    fields whose values differ among them ("precision bfloat16 · file 3f2a…"), or its
    place among them where nothing does; "" for a single row.

    >>> from kg.store.index.rows import Row
    >>> def row(i, precision):
    ...     return Row("r" + i, i, "t", "m", "", "M", "", "", "0.5", "", "", "", "", "", "s",
    ...                "S", precision=precision, evaluation="e/" + i)
    >>> what_differs([row("1", "bfloat16"), row("2", "float16")])
    {'1': 'precision bfloat16 · file 1', '2': 'precision float16 · file 2'}
    """
    if len(rows) < 2:
        return {r.id: "" for r in rows}
    out = {}
    fields = [(word, give) for word, give in DIFFERING if len({give(r) for r in rows}) > 1]
    for place, r in enumerate(rows, 1):
        said = [f"{word} {give(r) or 'not stated'}" for word, give in fields]
        out[r.id] = " · ".join(said) or f"submission {place} of {len(rows)}"
    return out


def _most_common(values: list[str]) -> str:
    return Counter(values).most_common(1)[0][0] if values else ""


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
                label=board.label,  # the board's heading: unique among the boards
                size=board.size,
                entries=members,
                low=board.low,
                high=board.high,
                differs=what_differs([e.row for e in members]),
            )
        )
    return ModelResults(iri, [e.row for e in entries], sections)
