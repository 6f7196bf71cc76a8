"""What many records say together, from the store version's index: each benchmark's
leaderboard, each model's results, and the disagreements (docs/views.md).

The ranks are the index's, made when it was written (the rule: kg/store/index/ranking.py).
A board is never read whole for a page: its filters' counts come from its distinct
combinations of values, and a page, the chart's values and a row's place from one walk of
an index each (kg/store/index/board_reads.py), so the largest board of a million results
answers as a small one does (bench/README.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from ..errors import UsageError
from ..model.standing import CURRENT
from ..store import GraphStore
from ..store.index import BoardInfo, Index, board_reads, index_for
from ..store.index.facets import most_frequent
from ..store.index.ranking import Ranked
from ..store.index.rows import Row, decimal_or_none
from ..store.index.schema import BOARD_FACET_COLUMNS
from .chart import MAX_BARS, Bars

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
#: A board's filter offers its facet's most frequent values up to this many (and the chosen
#: one): the largest board of a million results has thousands of developers.
BOARD_FACET_TOP = 50
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

    def condition(self) -> tuple[str, list[object]]:
        """The whole filter as an SQL condition on a board's columns
        (kg/store/index/board_reads.py), with its parameters: the facets' choices (the
        current rows only where no standing is chosen), the check and the sizes."""
        where, parameters = self.shared()
        for name, wanted in sorted(self.values.items()):
            if name == "standing" and wanted == EVERY_STANDING:
                continue
            column = BOARD_FACETS[name][1]
            if name == "verification" and wanted == UNCHECKED:
                where.append(f"{column} = ''")
            else:
                where.append(f"{column} = ?")
                parameters.append(wanted)
        if "standing" not in self.values:
            where.append(f"standing IN ({', '.join('?' * len(CURRENT))})")
            parameters.extend(CURRENT)
        return " AND ".join(where) or "1", parameters

    def shared(self) -> tuple[list[str], list[object]]:
        """What every facet's counts obey as the rows shown do, as SQL conditions and their
        parameters: the check and the sizes (no facet's own choice)."""
        where: list[str] = []
        parameters: list[object] = []
        if self.checked_only:
            where.append("verification = 'passed'")
        if self.params_min is not None or self.params_max is not None:
            where.append("params_between(params, ?, ?)")
            parameters += [_text(self.params_min), _text(self.params_max)]
        return where, parameters

    def fails(self, values: Mapping[str, str]) -> list[str]:
        """The facets whose choice a row of these facet ``values`` does not meet (the
        check and the sizes aside: :meth:`shared` asks those)."""
        failing = []
        for name in BOARD_FACETS:
            value = values[name]
            wanted = self.values.get(name)
            if wanted is None:  # current only, unless a standing is asked for
                ok = name != "standing" or value in CURRENT
            else:
                ok = value == wanted or (name == "standing" and wanted == EVERY_STANDING)
            if not ok:
                failing.append(name)
        return failing

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


def _text(number: Decimal | None) -> str | None:
    return None if number is None else str(number)


@dataclass
class BoardView:
    """One benchmark's leaderboard under a filter, as a page shows it: counted whole, read
    a page at a time (kg/store/index/board_reads.py)."""

    benchmark: str
    label: str
    lower_is_better: bool
    filter: BoardFilter
    #: rows on the whole board
    size: int
    #: rows the filter admits
    total: int
    #: models of the admitted rows
    models: int
    #: rows of the whole board that are not current (the default view hides them)
    not_current: int
    #: facet -> (value, label, count) over the rows the other facets admit: the
    #: :data:`BOARD_FACET_TOP` most frequent, and the chosen one
    facets: dict[str, list[tuple[str, str, int]]]
    #: facet -> how many values it has over the rows the other facets admit
    facet_sizes: dict[str, int]
    index: Index = field(repr=False)
    condition: tuple[str, list[object]] = field(repr=False)

    def page(self, start: int, limit: int, sort: str = "rank") -> list[Ranked]:
        """The admitted rows from place ``start`` (0: the first), ``limit`` of them, in
        the order of ``sort`` (kg.store.index.board_reads.BOARD_ORDERS; best first)."""
        return board_reads.page(self.index, self.benchmark, *self.condition, start, limit, sort)

    def rows(self) -> Iterator[Ranked]:
        """Every admitted row, in rank order (read in pieces)."""
        return board_reads.every(self.index, self.benchmark, *self.condition)

    def place(self, record: str) -> int | None:
        """Where the row of record IRI ``record`` stands among the admitted rows (None:
        not among them)."""
        return board_reads.place(self.index, self.benchmark, *self.condition, record)

    def find_model(self, text: str) -> tuple[str, str] | None:
        """(record IRI, id) of the best admitted row of the model named ``text`` (or whose
        name holds it); None when no admitted row's does."""
        return board_reads.first_of_model(self.index, self.benchmark, *self.condition, text)

    def place_of_rank(self, rank: int) -> int:
        """Where the first admitted row of rank ``rank`` or worse stands."""
        return board_reads.place_of_rank(self.index, self.benchmark, *self.condition, rank)

    def bars(self, place: int | None = None) -> Bars:
        """What the chart draws: the ranked values of the admitted rows, best first; the
        rows themselves where few enough for a bar each; the row at ``place`` (of
        :meth:`place`) marked where it holds a rank."""
        values = board_reads.ranked_values(self.index, self.benchmark, *self.condition)
        entries = self.page(0, len(values)) if len(values) <= MAX_BARS else []
        return Bars(values, entries, place if place is not None and place < len(values) else None)


def read_boards(store: GraphStore, folder: Path | None = None) -> Boards:
    """The leaderboards and model rows of ``store``'s version, from its index (kept with
    the version, else built into ``folder``: kg.store.index.index_for), for a command that
    shows one board or one model."""
    return Boards(index_for(store, folder))


class Boards:
    """Every benchmark's ranking, every model's rows, and every quantity (a model on a
    benchmark) reported more than once, as one store version's index holds them: ranks
    are the index's, made when it was written."""

    def __init__(self, index: Index):
        self.index = index
        self._choices: dict[str, list[tuple[str, int]]] | None = None

    def info(self, benchmark: str) -> BoardInfo | None:
        """A board's label, size, range and direction (None for an unknown benchmark)."""
        return self.index.board(benchmark)

    def benchmarks(self) -> list[BoardInfo]:
        """Every board, by benchmark IRI."""
        return self.index.boards()

    def board(self, benchmark: str, filter: BoardFilter | None = None) -> BoardView | None:
        """The benchmark's leaderboard under ``filter`` (None for an unknown benchmark)."""
        info = self.index.board(benchmark)
        if info is None:
            return None
        filter = filter or BoardFilter()
        # each facet counts the rows the others admit: one pass over the board's distinct
        # combinations of values, a row of them counted for every facet it does not fail
        shared, parameters = filter.shared()
        counts: dict[str, dict[str, int]] = {name: {} for name in BOARD_FACETS}
        total = 0
        for cells in board_reads.tally(
            self.index, benchmark, " AND ".join(shared) or "1", parameters
        ):
            by_column = dict(zip(BOARD_FACET_COLUMNS, cells, strict=False))
            values = {
                name: by_column[column] or (UNCHECKED if name == "verification" else "")
                for name, (_, column, _) in BOARD_FACETS.items()
            }
            failing, n = filter.fails(values), cells[-1]
            if not failing:
                total += n
            # admitted: it counts in every facet; failing one facet's choice only: in that
            # facet's counts (which leave its own choice out); failing two: in none
            counted = failing if len(failing) == 1 else [] if failing else list(BOARD_FACETS)
            for name in counted:
                if values[name]:
                    tally = counts[name]
                    tally[values[name]] = tally.get(values[name], 0) + n
        condition = filter.condition()
        return BoardView(
            benchmark=benchmark,
            label=info.label,
            lower_is_better=info.lower_is_better,
            filter=filter,
            size=info.size,
            total=total,
            models=board_reads.models(self.index, benchmark, *condition),
            not_current=board_reads.not_current(self.index, benchmark),
            facets={
                name: self._labelled(name, found, filter.values.get(name))
                for name, found in counts.items()
            },
            facet_sizes={name: len(found) for name, found in counts.items()},
            index=self.index,
            condition=condition,
        )

    def _labelled(
        self, name: str, counts: dict[str, int], chosen: str | None
    ) -> list[tuple[str, str, int]]:
        """The :data:`BOARD_FACET_TOP` most frequent values and ``chosen``, labelled as the
        index's facets label them."""

        def labels(values: list[str]) -> dict[str, str]:
            found = self.index.labels(name, [v for v in values if v != UNCHECKED])
            if name == "verification":
                found[UNCHECKED] = UNCHECKED_LABEL
            return found

        return most_frequent(counts, BOARD_FACET_TOP, chosen, labels)

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
        found = self.index.quantity_rows(row.model_node, row.benchmark)
        return [other for other in found if other.record != row.record]

    def disagreement_count(self, filters: dict[str, str] | None = None) -> int:
        """How many quantities are reported with more than one value (of those ``filters``
        keep: :data:`~kg.store.index.board_reads.DISAGREEMENT_FILTERS`)."""
        return board_reads.disagreement_count(self.index, filters)

    def disagreement_choices(self) -> dict[str, list[tuple[str, int]]]:
        """Each filter's values, with how many quantities each keeps (read once for the
        version: the index file never changes)."""
        if self._choices is None:
            self._choices = board_reads.disagreement_choices(self.index)
        return self._choices

    def disagreements(
        self, start: int = 0, limit: int = 50, filters: dict[str, str] | None = None
    ) -> list[Disagreement]:
        """The quantities reported with more than one value (as the store says, when the
        index was written: the canned query ``disagreements``), the widest spread first,
        ``limit`` of them from ``start``, each with the rows the catalogue lists of it;
        ``filters`` narrow them."""
        found = []
        for model, benchmark, spread, relative, scale in board_reads.disagreements(
            self.index, start, limit, filters
        ):
            # a printed value that stands for none is in no disagreement (docs/views.md)
            rows = [r for r in self.index.quantity_rows(model, benchmark) if not r.meant]
            ordered = sorted(rows, key=lambda r: (r.value is None, r.value, r.id))
            found.append(Disagreement(model, benchmark, ordered, spread, relative, scale))
        return found


@dataclass
class Disagreement:
    """One model on one benchmark, reported with different values."""

    model: str
    benchmark: str
    rows: list[Row]
    spread: Decimal
    #: the spread as a share of the metric's scale: the one its upstream declares
    #: (``scale``, "0 to 1"), else ("") the range the benchmark's values span
    relative: float = 0.0
    scale: str = ""

    @property
    def sources(self) -> int:
        return len({r.source for r in self.rows})
