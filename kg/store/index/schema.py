"""The index file's tables, declared once: what the writer fills and the reader reads.

One SQLite file per store version (docs/index.md). ``n`` is a row's number (SQLite's
rowid, what the full-text table and the method lists refer to); listings are in id order.
Each order the index page sorts by has a key column and a flag for rows without a key, with
an index each way, so a page of any order is a walk along an index. The full-text table
takes its text from ``rows`` (external content), so the snippets come from the rows
themselves. A write of a few files updates a copy of the previous version's file
(``kg/store/index/update.py``) instead of writing it anew.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from decimal import Decimal
from typing import Any

from .rows import Row

#: Bumped when the tables change: a file of another format is built again, never read.
FORMAT = "claimgraph-index/15"

#: Facet name -> (the row key holding the value, the row key holding its label).
FACETS: dict[str, tuple[str, str]] = {
    "metric": ("metric", "metric_label"),
    "model": ("model", "model"),
    "evidence_kind": ("evidence_kind", "evidence_kind_label"),
    "review_status": ("status", "status_label"),
    "source": ("source", "source_title"),
    "benchmark": ("benchmark", "benchmark_label"),
    "evaluator": ("evaluator", "evaluator_label"),
    "developer": ("developer", "developer"),
    "method": ("methods", "method_labels"),
    "verification": ("verification", "verification_label"),
    "precision": ("precision", "precision"),
    "standing": ("standing", "standing_label"),
}
#: The facet whose values are a list per row (kept in ``row_methods``).
LISTED = "method"

#: The orders the index sorts by (besides ids): a row's key; rows without a value last,
#: in both directions, and equal keys in id order.
SORTS: dict[str, Callable[[Row], Any]] = {
    "title": lambda r: r.title.casefold(),
    "value": lambda r: r.value,
    "model": lambda r: r.model.casefold() or None,
    "status": lambda r: r.status_label.casefold(),
}


def sort_key(row: Row, sort: str) -> object:
    """The key column's value of ``sort`` for ``row`` (None: the row has no key)."""
    key = SORTS[sort](row)
    return float(key) if isinstance(key, Decimal) else key


#: The Row fields kept as columns, in order (lists and maps as JSON text).
ROW_FIELDS = tuple(f.name for f in fields(Row) if f.name != "pairs")
#: The searched columns and their weights (bm25): a match in a model's name counts for more
#: than one in a quoted sentence.
SEARCHED: dict[str, float] = {
    "id": 10.0,
    "model": 8.0,
    "benchmark_label": 6.0,
    "source_title": 3.0,
    "title": 2.0,
    "dataset": 1.0,
    "quote": 1.0,
}
#: The keys a query's words are compared with whole, for exact matches first.
NAME_KEYS = ("id", "model_key", "model_tail", "benchmark_key", "source_key")


#: The columns a board's facets filter by (kg/read/boards.py), in the order of the board's
#: indexes (then its size filter's ``params``): a board's rows are read through two
#: covering indexes, so that a page of a board of 100,000 rows reads neither every row nor
#: a row it does not show (bench/README.md).
BOARD_FACET_COLUMNS = (
    "standing",
    "source",
    "evaluator",
    "developer",
    "precision",
    "status",
    "verification",
)


#: The columns whose node's page lists the records naming it, the first by id
#: (kg/read/node.py), of thousands: each with an index in id order, so that the first 100
#: of a source's 750,000 are a walk of 100 entries (a model's few rows are sorted); the
#: index holds the records' IRIs too, which a node's feed reads whole (133,000 of a board).
ABOUT_COLUMNS = ("source", "benchmark")


def _board_indexes() -> str:
    filtered = ", ".join((*BOARD_FACET_COLUMNS, "params"))
    return (
        # in rank order: a page, the chart's values, the models shown
        f"CREATE INDEX rows_on_board ON rows(benchmark, board_place, {filtered}, "
        "value_number, rank, model_node, model);\n"
        # by the filters' values: each facet's counts, one pass without a sort
        f"CREATE INDEX rows_on_board_by_value ON rows(benchmark, {filtered});"
    )


def _row_indexes() -> str:
    """The indexes of the rows table: made after its rows when a file is written whole
    (one sorted pass each, where rows added one by one update every index)."""
    key_indexes = "\n".join(
        f"CREATE INDEX rows_sorted_by_{sort} ON rows(none_{sort}, sort_{sort}, id);\n"
        f"CREATE INDEX rows_sorted_by_{sort}_desc ON rows(none_{sort}, sort_{sort} DESC, id);"
        for sort in SORTS
    )
    facet_indexes = "\n".join(
        f"CREATE INDEX rows_by_{key} ON rows({key}, n);"
        for name, (key, _) in FACETS.items()
        if name != LISTED
    )
    about_indexes = "\n".join(
        f"CREATE INDEX rows_about_{column} ON rows({column}, id, record);"
        for column in ABOUT_COLUMNS
    )
    # a search of many matches finds its exact names by these (kg/store/index/query.py)
    name_indexes = "\n".join(
        f"CREATE INDEX rows_by_name_{key} ON rows({key});" for key in NAME_KEYS if key != "id"
    )
    return f"""
CREATE UNIQUE INDEX rows_by_id ON rows(id);
CREATE INDEX rows_by_record ON rows(record);
{_board_indexes()}
{about_indexes}
{name_indexes}
CREATE INDEX rows_by_model_node ON rows(model_node, benchmark);
CREATE INDEX rows_by_evaluation ON rows(evaluation);
CREATE INDEX rows_by_import ON rows(imported_by);
{facet_indexes}
{key_indexes}
"""


#: The row keys of the facets with one value a row, as ``row_facets`` keeps them coded.
CODED = tuple(key for name, (key, _) in FACETS.items() if name != LISTED)


def _tables() -> str:
    coded = ", ".join(f"{key} INTEGER" for key in CODED)
    row_columns = ",\n  ".join(f"{name} TEXT" for name in ROW_FIELDS if name != "value")
    keys = ",\n  ".join(f"sort_{sort}, none_{sort} INTEGER" for sort in SORTS)
    searched = ", ".join(SEARCHED)
    return f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE rows (
  n INTEGER PRIMARY KEY,
  {row_columns},
  value TEXT,
  value_number REAL,
  model_key TEXT, model_tail TEXT, benchmark_key TEXT, source_key TEXT,
  rank INTEGER, tied INTEGER, model_rows INTEGER, board_place INTEGER,
  {keys}
);
CREATE TABLE quote_pairs (source TEXT NOT NULL, quote TEXT NOT NULL, n INTEGER NOT NULL);
CREATE INDEX quote_pairs_by_pair ON quote_pairs(source, quote);
CREATE INDEX quote_pairs_by_row ON quote_pairs(n);
CREATE TABLE row_methods (method TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (method, n))
  WITHOUT ROWID;
CREATE TABLE facet_codes (code INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);
CREATE TABLE row_facets (n INTEGER PRIMARY KEY, {coded});
CREATE TABLE facet_values (
  facet TEXT NOT NULL, value TEXT NOT NULL, label TEXT NOT NULL, count INTEGER NOT NULL,
  PRIMARY KEY (facet, value)
) WITHOUT ROWID;
CREATE TABLE boards (
  benchmark TEXT PRIMARY KEY, label TEXT NOT NULL, size INTEGER NOT NULL,
  low TEXT, high TEXT, lower_is_better INTEGER NOT NULL
);
CREATE TABLE source_boards (
  source TEXT NOT NULL, benchmark TEXT NOT NULL, rows INTEGER NOT NULL,
  PRIMARY KEY (source, benchmark)
) WITHOUT ROWID;
CREATE TABLE import_rows (imported_by TEXT PRIMARY KEY, rows INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE imports (
  import TEXT PRIMARY KEY, part TEXT NOT NULL, licence TEXT, notice TEXT
) WITHOUT ROWID;
CREATE TABLE term_uses (term TEXT PRIMARY KEY, uses INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE standings (record TEXT PRIMARY KEY, standing TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE about (node TEXT PRIMARY KEY, graphs TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE disagreeing (
  model TEXT NOT NULL, benchmark TEXT NOT NULL, spread TEXT NOT NULL, spread_number REAL NOT NULL,
  relative REAL NOT NULL, scale TEXT NOT NULL,
  benchmark_label TEXT NOT NULL, model_label TEXT NOT NULL,
  PRIMARY KEY (model, benchmark)
) WITHOUT ROWID;
CREATE INDEX disagreeing_widest ON disagreeing(relative DESC, benchmark_label, model_label);
CREATE TABLE disagreeing_by (
  facet TEXT NOT NULL, value TEXT NOT NULL, model TEXT NOT NULL, benchmark TEXT NOT NULL,
  PRIMARY KEY (facet, value, model, benchmark)
) WITHOUT ROWID;
CREATE INDEX disagreeing_by_quantity ON disagreeing_by(model, benchmark);
CREATE TABLE classes (class TEXT PRIMARY KEY, entities INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE activities (
  activity TEXT PRIMARY KEY, kind TEXT NOT NULL, at TEXT NOT NULL, graph TEXT NOT NULL,
  note TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX activities_by_graph ON activities(graph);
CREATE TABLE activity_records (
  activity TEXT NOT NULL, record TEXT NOT NULL, what TEXT NOT NULL,
  PRIMARY KEY (activity, record)
) WITHOUT ROWID;
CREATE INDEX activity_records_by_record ON activity_records(record);
CREATE VIRTUAL TABLE search USING fts5(
  {searched}, content='rows', content_rowid='n',
  tokenize="unicode61 remove_diacritics 2", prefix='1 2 3 4 5 6'
);
CREATE VIRTUAL TABLE words USING fts5vocab(search, 'row');
"""


#: What an updated index lists of what its update may have changed: the records whose rows
#: it read or changed, and the activities it read again (kind 'record' or 'activity').
#: Absent from an index written whole, or updated with every activity read again: then
#: anything may have changed. The timeline's update compares only these
#: (kg/store/index/timeline_update.py).
TOUCHED = """
CREATE TABLE touched (
  kind TEXT NOT NULL, iri TEXT NOT NULL, PRIMARY KEY (kind, iri)
) WITHOUT ROWID;
"""

#: The index file's tables, and its rows' indexes: a file written whole gets its rows in
#: between (kg/store/index/write.py).
TABLES = _tables()
ROW_INDEXES = _row_indexes()
