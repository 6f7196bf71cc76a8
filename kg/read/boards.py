"""What many records say together, from the store version's index: each benchmark's
leaderboard, each model's results, and the disagreements (docs/views.md).

The ranks are the index's, made when it was written (the rule: kg/store/index/ranking.py):
a board is one read of its rows in rank order, kept for the next pages, and a page filters
and slices it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from pathlib import Path

from ..errors import UsageError
from ..store import GraphStore
from ..store.index import BoardInfo, Index, index_for
from ..store.index.ranking import Ranked, model_of
from ..store.index.rows import Row, decimal_or_none

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
        return len({model_of(r.row) for r in self.shown})

    @property
    def not_current(self) -> int:
        """How many rows of the whole board are not current (the default view hides them)."""
        return sum(not r.row.is_current for r in self.ranked)


def read_boards(store: GraphStore, folder: Path | None = None) -> Boards:
    """The leaderboards and model rows of ``store``'s version, from its index (kept with
    the version, else built into ``folder``: kg.store.index.index_for), for a command that
    shows one board or one model."""
    return Boards(index_for(store, folder))


#: How many boards' ranked rows a :class:`Boards` keeps (the largest holds thousands).
BOARD_CACHE = 16


class Boards:
    """Every benchmark's ranking, every model's rows, and every quantity (a model on a
    benchmark) reported more than once, as one store version's index holds them: ranks
    are the index's, made when it was written; a board read is kept for the next page."""

    def __init__(self, index: Index):
        self.index = index
        self._boards: OrderedDict[str, list[Ranked]] = OrderedDict()
        self._lock = threading.Lock()

    def ranked(self, benchmark: str) -> list[Ranked]:
        """Every row of ``benchmark``'s board, ranked (empty for an unknown benchmark)."""
        with self._lock:
            found = self._boards.get(benchmark)
            if found is not None:
                self._boards.move_to_end(benchmark)
                return found
        found = self.index.board_rows(benchmark)
        with self._lock:
            self._boards[benchmark] = found
            if len(self._boards) > BOARD_CACHE:
                self._boards.popitem(last=False)
        return found

    def info(self, benchmark: str) -> BoardInfo | None:
        """A board's label, size, range and direction (None for an unknown benchmark)."""
        return self.index.board(benchmark)

    def benchmarks(self) -> list[BoardInfo]:
        """Every board, by benchmark IRI."""
        return self.index.boards()

    def board(self, benchmark: str, filter: BoardFilter | None = None) -> BoardView | None:
        """The benchmark's leaderboard under ``filter`` (None for an unknown benchmark)."""
        ranked = self.ranked(benchmark)
        if not ranked:
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

    def entry(self, record: str) -> Ranked | None:
        """A record's entry on its benchmark's board (None: it is on none)."""
        return self.index.entry(record)

    def model_entries(self, model: str) -> list[Ranked]:
        """The model's entries on every board, by benchmark."""
        return self.index.ranked(
            "model_node = ? AND benchmark != ''", (model,), "ORDER BY benchmark, id"
        )

    def same_quantity(self, row: Row) -> list[Row]:
        """The other records of ``row``'s model on ``row``'s benchmark."""
        return self.index.rows(
            "model_node = ? AND benchmark = ? AND record != ?",
            (row.model_node, row.benchmark, row.record),
            "ORDER BY id",
        )

    @cached_property
    def disagreements(self) -> list[Disagreement]:
        """Every quantity reported with more than one value (as the store says, when the
        index was written: the canned query ``disagreements``), with the rows the catalogue
        lists of it, the widest spread first."""
        found = []
        for model, benchmark, spread in self.index.disagreeing():
            # a printed value that stands for none is in no disagreement (docs/views.md)
            rows = [
                r
                for r in self.index.rows(
                    "model_node = ? AND benchmark = ?", (model, benchmark), "ORDER BY id"
                )
                if not r.meant
            ]
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
