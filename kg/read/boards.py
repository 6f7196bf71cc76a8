"""What many records say together, from the index rows: each benchmark's leaderboard, each
model's results, and the disagreements (docs/views.md).

The rows are the catalogue's (``kg/read/rows.py``), so a board costs no query: the
:class:`Boards` of a catalogue are made once (a few tens of milliseconds at 35k records)
and kept with it, and a page filters and slices them.

Ranking: best first by the metric's direction, on the exact numeric value
(``qudt:numericValue``, a decimal); equal values share a rank and the next rank skips
("1, 2, 2, 4"), and tied rows keep the order of their ids. A record without a number is
listed after the ranked ones, unranked; so is a record whose printed value stands for no
value (HELM's -1: not computed, docs/imports.md), whose row has no number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from typing import cast

from ..errors import UsageError
from ..store import GraphStore
from ..store.base import solutions
from ..store.queries import canned_query
from ..store.standing import standings
from .rows import Row, decimal_or_none, read_rows


@dataclass
class Ranked:
    """A row of a leaderboard."""

    row: Row
    #: 1 for the best; equal values share one; None for a record without a number.
    rank: int | None
    #: Another row of the board has the same value.
    tied: bool = False
    #: How many rows of the whole board are of this row's model (2: submitted twice).
    model_rows: int = 1


def rank(rows: Iterable[Row]) -> list[Ranked]:
    """``rows`` of one benchmark, ranked (see the module's text).

    >>> from kg.read.rows import Row
    >>> def row(i, v):
    ...     return Row(record=i, id=i, title=i, metric="m", metric_label="m", model=i[0],
    ...                dataset="", quote="", printed=v, unit="", evidence_kind="",
    ...                evidence_kind_label="", status="", status_label="", source="",
    ...                source_title="", value=Decimal(v), model_node=i[0])
    >>> [(r.row.id, r.rank, r.tied) for r in rank([row("a1", "0.5"), row("b", "0.7"),
    ...                                            row("c", "0.5"), row("d", "0.1")])]
    [('b', 1, False), ('a1', 2, True), ('c', 2, True), ('d', 4, False)]
    """
    rows = list(rows)
    # A claim that is not current (retracted, superseded, disputed, ...) holds no rank: it
    # is listed after the ranked ones, as a row without a number is (docs/standing.md).
    numbered = [r for r in rows if r.value is not None and r.is_current]
    lower = bool(numbered) and numbered[0].lower_is_better
    numbered.sort(key=lambda r: r.id)
    # stable: ties stay by id; every row in numbered has a value
    numbered.sort(key=lambda r: cast(Decimal, r.value), reverse=not lower)
    ranked: list[Ranked] = []
    for position, row in enumerate(numbered, start=1):
        if ranked and ranked[-1].row.value == row.value:
            ranked[-1].tied = True
            ranked.append(Ranked(row, ranked[-1].rank, tied=True))
        else:
            ranked.append(Ranked(row, position))
    ranked += [
        Ranked(r, None)
        for r in sorted(rows, key=lambda r: r.id)
        if r.value is None or not r.is_current
    ]
    per_model: dict[str, int] = {}
    for entry in ranked:
        per_model[_model(entry.row)] = per_model.get(_model(entry.row), 0) + 1
    for entry in ranked:
        entry.model_rows = per_model[_model(entry.row)]
    return ranked


def _model(row: Row) -> str:
    return row.model_node or row.model


#: A board's filters: name -> (title, the row key it reads, its value's label key).
BOARD_FACETS: dict[str, tuple[str, str, str]] = {
    "source": ("Source", "source", "source_title"),
    "evaluator": ("Evaluator relationship", "evaluator", "evaluator_label"),
    "developer": ("Model developer", "developer", "developer"),
    "precision": ("Precision", "precision", "precision"),
    "review_status": ("Review status", "status", "status_label"),
    "verification": ("Check against the source", "verification", "verification_label"),
    "standing": ("Standing", "standing", "standing_label"),
}
#: ``standing`` of a filter that keeps every row, whatever its standing (the default keeps
#: the current ones: current and corrected).
EVERY_STANDING = "all"
#: ``verification`` of a row no machine check has read: a facet value of its own.
UNCHECKED = "none"
UNCHECKED_LABEL = "not checked by machine"


@dataclass
class BoardFilter:
    """What a leaderboard shows: facet values, a range of parameters (billions), and
    whether only rows whose value was checked against its source file (and passed) count."""

    values: dict[str, str] = field(default_factory=dict)
    params_min: Decimal | None = None
    params_max: Decimal | None = None
    checked_only: bool = False

    @classmethod
    def from_args(cls, args: Mapping[str, str]) -> BoardFilter:
        """The filter a page's query arguments give (a permalink holds them all).

        :raises UsageError: for a parameter bound that is not a number.
        """
        return cls(
            values={name: args[name] for name in BOARD_FACETS if args.get(name)},
            params_min=_bound(args, "params_min"),
            params_max=_bound(args, "params_max"),
            checked_only=args.get("checked", "") in ("1", "true", "yes", "on"),
        )

    def admits(self, row: Row, skip: str = "") -> bool:
        for name, wanted in self.values.items():
            if name == "standing" and wanted == EVERY_STANDING:
                continue
            if name != skip and _facet_value(row, name) != wanted:
                return False
        if "standing" not in self.values and skip != "standing" and not row.is_current:
            return False  # current only, unless a standing is asked for
        if self.checked_only and row.verification != "passed":
            return False
        if self.params_min is not None or self.params_max is not None:
            params = row.params_number
            if params is None:  # a range asks for a known size
                return False
            if self.params_min is not None and params < self.params_min:
                return False
            if self.params_max is not None and params > self.params_max:
                return False
        return True

    def args(self) -> dict[str, str]:
        """The filter as query arguments (the inverse of :meth:`from_args`)."""
        out = dict(self.values)
        if self.params_min is not None:
            out["params_min"] = str(self.params_min)
        if self.params_max is not None:
            out["params_max"] = str(self.params_max)
        if self.checked_only:
            out["checked"] = "1"
        return out

    @property
    def active(self) -> bool:
        return bool(self.args())


def _bound(args: Mapping[str, str], name: str) -> Decimal | None:
    raw = args.get(name, "").strip()
    if not raw:
        return None
    number = decimal_or_none(raw)
    if number is None:
        raise UsageError(f"?{name}= takes a number of billions of parameters (got {raw!r})")
    return number


def _facet_value(row: Row, name: str) -> str:
    value = getattr(row, BOARD_FACETS[name][1])
    return value or (UNCHECKED if name == "verification" else "")


def _facet_label(row: Row, name: str) -> str:
    if name == "verification" and not row.verification:
        return UNCHECKED_LABEL
    return getattr(row, BOARD_FACETS[name][2]) or _facet_value(row, name)


@dataclass
class BoardView:
    """One benchmark's leaderboard as a page shows it."""

    benchmark: str
    label: str
    lower_is_better: bool
    #: every row of the benchmark, ranked (ranks are over the whole board)
    ranked: list[Ranked]
    #: the rows the filter admits, in rank order
    shown: list[Ranked]
    #: facet -> (value, label, count) over the rows the other facets admit
    facets: dict[str, list[tuple[str, str, int]]]
    filter: BoardFilter

    @property
    def models(self) -> int:
        return len({_model(r.row) for r in self.shown})

    @property
    def not_current(self) -> int:
        """How many rows of the whole board are not current (the default view hides them)."""
        return sum(not r.row.is_current for r in self.ranked)


def read_boards(store: GraphStore) -> Boards:
    """The leaderboards and model rows of every record of ``store`` (its rows read with
    their standing: what the catalogue reads, without the search index), for a command
    that shows one board or one model: the disagreements are not read (the catalogue
    reads them, :func:`disagreeing`)."""
    return Boards(read_rows(store, standings(store)))


#: A quantity: a model node on a benchmark node (docs/views.md).
Quantity = tuple[str, str]


def disagreeing(store: GraphStore) -> dict[Quantity, Decimal]:
    """The quantities reported with more than one value, each with its spread (highest
    less lowest): the canned query ``disagreements`` (queries/disagreements.rq), the one
    statement of what disagrees, run once per store version."""
    found: dict[Quantity, Decimal] = {}
    for row in solutions(store.query(canned_query("disagreements").text)):
        key = (row["model"].value, row["benchmark"].value)
        if key not in found:
            found[key] = Decimal(row["high"].value) - Decimal(row["low"].value)
    return found


class Boards:
    """Every benchmark's ranking, every model's rows, and every quantity (a model on a
    benchmark) reported more than once, over one catalogue's rows."""

    def __init__(self, rows: Iterable[Row], disagreeing: Mapping[Quantity, Decimal] | None = None):
        """``disagreeing``: the quantities reported with more than one value, and their
        spread (:func:`disagreeing`); None where they were not read (no disagreements)."""
        self._disagreeing = disagreeing or {}
        by_benchmark: dict[str, list[Row]] = {}
        self.by_model: dict[str, list[Row]] = {}
        self.by_quantity: dict[tuple[str, str], list[Row]] = {}
        for row in rows:
            if not row.benchmark:
                continue
            by_benchmark.setdefault(row.benchmark, []).append(row)
            if row.model_node:
                self.by_model.setdefault(row.model_node, []).append(row)
                self.by_quantity.setdefault((row.model_node, row.benchmark), []).append(row)
        self.ranked = {benchmark: rank(rows) for benchmark, rows in by_benchmark.items()}
        #: record IRI -> its entry on its benchmark's board
        self.entry = {r.row.record: r for board in self.ranked.values() for r in board}

    def board(self, benchmark: str, filter: BoardFilter | None = None) -> BoardView | None:
        """The benchmark's leaderboard under ``filter`` (None for an unknown benchmark)."""
        ranked = self.ranked.get(benchmark)
        if ranked is None:
            return None
        filter = filter or BoardFilter()
        shown = [r for r in ranked if filter.admits(r.row)]
        facets = {}
        for name in BOARD_FACETS:
            counts: dict[str, list] = {}
            for entry in ranked:
                if filter.admits(entry.row, skip=name):
                    value = _facet_value(entry.row, name)
                    if value:
                        counts.setdefault(value, [_facet_label(entry.row, name), 0])[1] += 1
            facets[name] = sorted(
                ((v, label, n) for v, (label, n) in counts.items()), key=lambda c: (-c[2], c[1])
            )
        first = ranked[0].row
        return BoardView(
            benchmark=benchmark,
            label=first.benchmark_label,
            lower_is_better=first.lower_is_better,
            ranked=ranked,
            shown=shown,
            facets=facets,
            filter=filter,
        )

    def same_quantity(self, row: Row) -> list[Row]:
        """The other records of ``row``'s model on ``row``'s benchmark."""
        return [
            r
            for r in self.by_quantity.get((row.model_node, row.benchmark), [])
            if r.record != row.record
        ]

    @cached_property
    def disagreements(self) -> list[Disagreement]:
        """Every quantity reported with more than one value (as the store says:
        :func:`disagreeing`), with the rows the catalogue lists of it, the widest spread
        first (made once: 475 of 34,504 quantities at the snapshot's 35,043 records)."""
        found = []
        for (model, benchmark), spread in self._disagreeing.items():
            # a printed value that stands for none is in no disagreement (docs/views.md)
            rows = [r for r in self.by_quantity.get((model, benchmark), []) if not r.meant]
            if len({r.value for r in rows if r.value is not None}) > 1:  # rows it lists
                ordered = sorted(rows, key=lambda r: (r.value is None, r.value, r.id))
                found.append(Disagreement(model, benchmark, ordered, spread))
        found.sort(key=lambda d: (-d.spread, d.rows[0].benchmark_label, d.rows[0].model))
        return found


@dataclass
class Disagreement:
    """One model on one benchmark, reported with different values."""

    model: str
    benchmark: str
    rows: list[Row]
    spread: Decimal

    @property
    def sources(self) -> int:
        return len({r.source for r in self.rows})
