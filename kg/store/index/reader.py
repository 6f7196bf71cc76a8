"""Reading an index file: rows by id, record, benchmark or model, a leaderboard's ranked
rows, the facets' values, what the record pages read. Opened read-only and immutable, one
connection per thread (and per process: a forked worker opens its own), its pages mapped
from the file, so every process of a server shares them."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from ...model.standing import Standing
from ..records import GraphsAbout
from .codec import row_from, standing_from_json
from .files import ReadOnlyFile, rows_among
from .ranking import Ranked
from .rows import Row, params_between
from .schema import ABOUT_COLUMNS, FACETS, FORMAT, LISTED, ROW_FIELDS

ROW_COLUMNS = ", ".join(f"rows.{name}" for name in ROW_FIELDS)
RANKED_COLUMNS = f"{ROW_COLUMNS}, rows.rank, rows.tied, rows.model_rows"


@dataclass(frozen=True)
class BoardInfo:
    """A benchmark's leaderboard as a whole: its label, size, range and direction."""

    benchmark: str
    label: str
    size: int
    low: Decimal | None
    high: Decimal | None
    lower_is_better: bool


class Index(ReadOnlyFile):
    """One index file, read-only.

    :raises StoreError: when the file is missing, unreadable or of another format.
    """

    def __init__(self, path: Path):
        super().__init__(path, "the index", FORMAT)
        meta = self.meta
        self.version: str = meta["version"]
        self.size = int(meta["rows"])
        #: The version whose index this one updated ("" when it was written whole).
        self.updated_from: str = meta.get("updated_from", "")
        #: Selections' counts, kept by kg/store/index/query.py (the file never changes).
        self.counts: dict[tuple, int] = {}

    def prepare(self, db: sqlite3.Connection) -> None:
        # a board's filter on a range of sizes compares decimals exactly (board_reads.py)
        db.create_function("params_between", 3, params_between, deterministic=True)

    # -- rows ------------------------------------------------------------------------------
    def rows(
        self, where: str = "1", parameters: Sequence[object] = (), tail: str = ""
    ) -> list[Row]:
        """The rows ``where`` admits (an SQL condition on ``rows``), then ``tail`` (order,
        limit)."""
        found = self.execute(f"SELECT {ROW_COLUMNS} FROM rows WHERE {where} {tail}", parameters)
        return [row_from(cells) for cells in found]

    def every_row(self, chunk: int = 5000) -> Iterator[Row]:
        """Every row in id order, read in chunks (never all at once)."""
        after = ""
        while True:
            found = self.rows("id > ?", (after,), f"ORDER BY id LIMIT {int(chunk)}")
            if not found:
                return
            yield from found
            after = found[-1].id

    def quantity_rows(self, model_node: str, benchmark: str) -> list[Row]:
        """The rows of one model on one benchmark, by id: through the model's index, which
        a planner without statistics passes over for the benchmark's in id order (the
        whole board read for a few rows)."""
        found = self.execute(
            f"SELECT {ROW_COLUMNS} FROM rows INDEXED BY rows_by_model_node "
            "WHERE model_node = ? AND benchmark = ? ORDER BY id",
            (model_node, benchmark),
        )
        return [row_from(cells) for cells in found]

    def row(self, ident: str) -> Row | None:
        found = self.rows("id = ?", (ident,))
        return found[0] if found else None

    def count_where(self, column: str, value: str) -> int:
        """How many rows' ``column`` (one of the row fields) is ``value``: a facet's column
        from the facet's counts (750,000 rows of a source are not counted again)."""
        if column not in ROW_FIELDS:
            raise ValueError(column)
        facet = next((name for name, (key, _) in FACETS.items() if key == column), None)
        if facet is not None and facet != LISTED:
            found = self.execute(
                "SELECT count FROM facet_values WHERE facet = ? AND value = ?", (facet, value)
            ).fetchone()
            return found[0] if found else 0
        return self.execute(f"SELECT count(*) FROM rows WHERE {column} = ?", (value,)).fetchone()[0]

    def first_naming(self, column: str, value: str, limit: int) -> list[Row]:
        """The first ``limit`` rows by id whose ``column`` (one of the row fields) is
        ``value``: a walk of its index where it has one in id order
        (:data:`~kg.store.index.schema.ABOUT_COLUMNS`)."""
        if column not in ROW_FIELDS:
            raise ValueError(column)
        found = self.execute(
            f"SELECT {ROW_COLUMNS} FROM rows {_naming(column)} WHERE {column} = ? "
            f"ORDER BY id LIMIT {int(limit)}",
            (value,),
        )
        return [row_from(cells) for cells in found]

    def classes(self) -> dict[str, int]:
        """How many distinct nodes of each class the data graphs hold (VoID's partitions)."""
        return dict(self.execute("SELECT class, entities FROM classes ORDER BY class").fetchall())

    def records_where(self, column: str, value: str) -> list[str]:
        """The IRIs of the records whose ``column`` (one of the facets' keys) is ``value``."""
        if column not in ROW_FIELDS:
            raise ValueError(column)
        # from the index alone where it holds them: not a read of each row (4 s for a board
        # of 132,898 rows before the file's pages are cached)
        found = self.execute(
            f"SELECT record FROM rows {_naming(column)} WHERE {column} = ?", (value,)
        )
        return [r for (r,) in found]

    # -- leaderboards ----------------------------------------------------------------------
    def board(self, benchmark: str) -> BoardInfo | None:
        found = self.execute("SELECT * FROM boards WHERE benchmark = ?", (benchmark,)).fetchone()
        return _board(found) if found else None

    def boards(self) -> list[BoardInfo]:
        return [_board(b) for b in self.execute("SELECT * FROM boards ORDER BY benchmark")]

    def ranked(self, where: str, parameters: Sequence[object] = (), tail: str = "") -> list[Ranked]:
        """Board entries (rows with their rank) ``where`` admits."""
        found = self.execute(
            f"SELECT {RANKED_COLUMNS} FROM rows WHERE {where} {tail}", parameters
        ).fetchall()
        width = len(ROW_FIELDS)
        return [
            Ranked(row_from(c[:width]), c[width], bool(c[width + 1]), c[width + 2]) for c in found
        ]

    def board_rows(self, benchmark: str) -> list[Ranked]:
        """A benchmark's whole board, ranked."""
        return self.ranked("benchmark = ?", (benchmark,), "ORDER BY board_place")

    def entry(self, record: str) -> Ranked | None:
        found = self.ranked("record = ? AND benchmark != ''", (record,))
        return found[0] if found else None

    def disagreeing(self) -> list[tuple[str, str, Decimal]]:
        return [
            (m, b, Decimal(s))
            for m, b, s in self.execute("SELECT model, benchmark, spread FROM disagreeing")
        ]

    # -- what record pages read ------------------------------------------------------------
    def standing(self, record: str) -> Standing | None:
        found = self.execute(
            "SELECT standing FROM standings WHERE record = ?", (record,)
        ).fetchone()
        return standing_from_json(found[0]) if found else None

    def about(self, node: str) -> GraphsAbout | None:
        found = self.execute("SELECT graphs FROM about WHERE node = ?", (node,)).fetchone()
        if found is None:
            return None
        graphs, runs = json.loads(found[0])
        return GraphsAbout(tuple(graphs), tuple((g, r) for g, r in runs))

    def parts(self) -> list[tuple[str, str | None, str | None, int]]:
        """Each part's records: (its name, "" for the registry's own; its licence; its
        notice; how many records), of the rows."""
        # the rows of each import are counted when the file is written
        return list(
            self.execute(
                "SELECT coalesce(i.part, ''), i.licence, i.notice, sum(r.rows) "
                "FROM import_rows r LEFT JOIN imports i ON i.import = r.imported_by "
                "GROUP BY 1, 2, 3 ORDER BY 1"
            )
        )

    def term_uses(self) -> dict[str, int]:
        """How many statements use each term the ontology declares (what /ns shows)."""
        return dict(self.execute("SELECT term, uses FROM term_uses").fetchall())

    # -- facets ----------------------------------------------------------------------------
    def top_values(
        self, facet: str, limit: int, chosen: str | None = None
    ) -> list[tuple[str, str, int]]:
        """(value, label, count) of the ``limit`` most frequent values of ``facet`` over
        every row, and ``chosen`` wherever it stands; a value without a label is its own."""
        shown = "coalesce(nullif(label, ''), value)"
        found = list(
            self.execute(
                f"SELECT value, {shown}, count FROM facet_values WHERE facet = ? AND count > 0 "
                f"ORDER BY count DESC, {shown} LIMIT ?",
                (facet, limit),
            )
        )
        if chosen and all(value != chosen for value, _, _ in found):
            found += self.execute(
                f"SELECT value, {shown}, count FROM facet_values "
                "WHERE facet = ? AND value = ? AND count > 0",
                (facet, chosen),
            )
        return found

    def labels(self, facet: str, values: Sequence[str]) -> dict[str, str]:
        select = "SELECT value, label FROM facet_values WHERE facet = ? AND value"
        return dict(rows_among(self, select, values, facet))


def _naming(column: str) -> str:
    """The index of the records naming a value of ``column``, in id order and with their
    IRIs, where it has one (:data:`~kg.store.index.schema.ABOUT_COLUMNS`)."""
    return f"INDEXED BY rows_about_{column}" if column in ABOUT_COLUMNS else ""


def _board(cells: Sequence) -> BoardInfo:
    benchmark, label, size, low, high, lower = cells
    return BoardInfo(
        benchmark,
        label,
        size,
        Decimal(low) if low is not None else None,
        Decimal(high) if high is not None else None,
        bool(lower),
    )
