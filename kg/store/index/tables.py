"""Keeping an index file's tables: rows put and dropped (with their full-text entries, method
lists and quote pairs), boards ranked, facet values and disagreements counted from the
rows, standings and what bears on each record written. The whole write
(``write.py``) and the update of a few files (``update.py``) both go through these."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Mapping
from datetime import UTC, datetime

import pyoxigraph as ox
from rdflib import URIRef

from ...model.standing import Standing
from ...rdf.namespaces import RDF
from ...rdf.sparqltext import inside_where
from ...rdf.vocabulary import load_terms
from ..base import GraphStore, solutions
from ..ontology_graphs import ONTOLOGY_GRAPHS, ontology_graph_names
from ..queries import internal_query
from ..records import GraphsAbout
from .codec import SEARCHED_COLUMNS, WRITTEN, row_cells, row_from, searched_cells, standing_json
from .facet_codes import code_rows
from .ranking import rank
from .rows import Row
from .schema import CODED, FACETS, FORMAT, LISTED, ROW_FIELDS

_ROW_COLUMNS = ", ".join(ROW_FIELDS)
_SEARCHED = ", ".join(SEARCHED_COLUMNS)


def put_rows(db: sqlite3.Connection, rows: Iterable[Row], searched: bool = True) -> None:
    """Add ``rows`` (none of them in the file yet), each with its full-text entry (or
    without, ``searched`` false, for a file whose entries are made at once after its rows:
    :func:`index_searched`)."""
    insert = f"INSERT INTO rows ({', '.join(WRITTEN)}) VALUES ({', '.join('?' * len(WRITTEN))})"
    marks = ", ".join("?" * len(SEARCHED_COLUMNS))
    entry = f"INSERT INTO search (rowid, {_SEARCHED}) VALUES (?, {marks})"
    numbers: list[int] = []
    for row in rows:
        n = db.execute(insert, row_cells(row)).lastrowid
        assert n is not None
        numbers.append(n)
        if searched:
            db.execute(entry, (n, *searched_cells(row)))
        db.executemany(
            "INSERT OR IGNORE INTO row_methods VALUES (?, ?)", ((m, n) for m in row.methods)
        )
        db.executemany(
            "INSERT INTO quote_pairs VALUES (?, ?, ?)", ((s, q, n) for s, q in set(row.pairs))
        )
    if numbers:  # each new row numbered after every row before: one range
        code_rows(db, "n BETWEEN ? AND ?", (min(numbers), max(numbers)))


def restate_rows(db: sqlite3.Connection, changes: list[tuple[Row, Row]]) -> None:
    """Change rows in the file in place, each (as the file holds it, as it is now): only the
    columns whose cells differ (a source's new title, a new standing), and its full-text
    entry where a searched column differs. Dropping and putting a row back rewrites its
    entries in every index of the rows table (30): 0.8 s for 910 rows at 35k."""
    marks = ", ".join("?" * len(SEARCHED_COLUMNS))
    recoded: list[int] = []
    for before, after in changes:
        was, now = row_cells(before), row_cells(after)
        columns = [(c, cell) for c, old, cell in zip(WRITTEN, was, now, strict=True) if old != cell]
        if not columns:
            continue
        found = db.execute("SELECT n FROM rows WHERE record = ?", (after.record,)).fetchone()
        assert found is not None  # ``before`` was read from this file
        old_words, new_words = searched_cells(before), searched_cells(after)
        if old_words != new_words:
            db.execute(
                f"INSERT INTO search (search, rowid, {_SEARCHED}) VALUES ('delete', ?, {marks})",
                (found[0], *old_words),
            )
        db.execute(
            f"UPDATE rows SET {', '.join(f'{c} = ?' for c, _ in columns)} WHERE n = ?",
            (*(cell for _, cell in columns), found[0]),
        )
        if old_words != new_words:
            db.execute(
                f"INSERT INTO search (rowid, {_SEARCHED}) VALUES (?, {marks})",
                (found[0], *new_words),
            )
        if any(c in CODED for c, _ in columns):
            recoded.append(found[0])
    if recoded:  # all at once: 910 rows one by one took 0.2 s
        code_rows(db, "n IN (SELECT value FROM json_each(?))", (json.dumps(recoded),))


def index_searched(db: sqlite3.Connection) -> None:
    """Make the full-text entries of every row at once (the rows table is the full-text
    table's content: the same columns, read in one pass)."""
    db.execute("INSERT INTO search (search) VALUES ('rebuild')")


def drop_rows(db: sqlite3.Connection, records: Collection[str]) -> list[Row]:
    """Remove the rows of ``records`` (those the file has), with their full-text entries;
    the rows as they were."""
    dropped = []
    for record in records:
        found = db.execute(
            f"SELECT n, {_ROW_COLUMNS} FROM rows WHERE record = ?", (record,)
        ).fetchall()
        for cells in found:
            n, row = cells[0], row_from(cells[1:])
            # an external-content table forgets an entry given the values it indexed
            db.execute(
                f"INSERT INTO search (search, rowid, {_SEARCHED}) "
                f"VALUES ('delete', ?, {', '.join('?' * len(SEARCHED_COLUMNS))})",
                (n, *searched_cells(row)),
            )
            for table in ("row_methods", "quote_pairs", "row_facets", "rows"):
                db.execute(f"DELETE FROM {table} WHERE n = ?", (n,))
            dropped.append(row)
    return dropped


def share_quotes(db: sqlite3.Connection, records: Collection[str] | None = None) -> None:
    """Mark whether each row (of ``records``, or every row) shares a quoted sentence of a
    source with another row."""
    restrict = ""
    parameters: list[str] = []
    if records is not None:
        restrict = f"WHERE record IN ({', '.join('?' * len(records))})"
        parameters = list(records)
    db.execute(
        "UPDATE rows SET shares_quote = EXISTS (SELECT 1 FROM quote_pairs mine "
        "JOIN quote_pairs other ON other.source = mine.source AND other.quote = mine.quote "
        f"AND other.n != mine.n WHERE mine.n = rows.n) {restrict}",
        parameters,
    )


def partners(db: sqlite3.Connection, records: Collection[str]) -> set[str]:
    """The records quoted at one of the quoted sentences of ``records``."""
    found: set[str] = set()
    for record in records:
        found.update(
            r
            for (r,) in db.execute(
                "SELECT DISTINCT other_row.record FROM rows mine_row "
                "JOIN quote_pairs mine ON mine.n = mine_row.n "
                "JOIN quote_pairs other ON other.source = mine.source AND other.quote = mine.quote "
                "JOIN rows other_row ON other_row.n = other.n WHERE mine_row.record = ?",
                (record,),
            )
        )
    return found


def rank_boards(db: sqlite3.Connection, benchmarks: Iterable[str]) -> None:
    """Rank each benchmark's board anew (kg/store/index/ranking.py): its rows' rank, ties,
    rows of their model and place; the board's size and range (none left: no board)."""
    for benchmark in benchmarks:
        db.execute("DELETE FROM boards WHERE benchmark = ?", (benchmark,))
        members = [
            row_from(cells)
            for cells in db.execute(
                f"SELECT {_ROW_COLUMNS} FROM rows WHERE benchmark = ?", (benchmark,)
            )
        ]
        if not members:
            continue
        ranked = rank(members)
        db.executemany(
            "UPDATE rows SET rank = ?, tied = ?, model_rows = ?, board_place = ? WHERE id = ?",
            (
                (entry.rank, int(entry.tied), entry.model_rows, place, entry.row.id)
                for place, entry in enumerate(ranked)
            ),
        )
        numbers = [r.value for r in members if r.value is not None]
        first = ranked[0].row
        db.execute(
            "INSERT INTO boards VALUES (?, ?, ?, ?, ?, ?)",
            (
                benchmark,
                first.benchmark_label,
                len(ranked),
                str(min(numbers)) if numbers else None,
                str(max(numbers)) if numbers else None,
                int(first.lower_is_better),
            ),
        )


def count_facets(db: sqlite3.Connection, touched: Mapping[str, Collection[str]] | None) -> None:
    """Count each facet's values (of ``touched``, facet -> values, or all) from the rows,
    each with a label a row gives it."""
    for name, (key, label_key) in FACETS.items():
        values = None if touched is None else list(touched.get(name, ()))
        if values is not None and not values:
            continue
        if values is None:
            db.execute("DELETE FROM facet_values WHERE facet = ?", (name,))
        else:
            db.executemany(
                "DELETE FROM facet_values WHERE facet = ? AND value = ?",
                ((name, v) for v in values),
            )
        if name == LISTED:
            counted = _counted_methods(db, values)
        else:
            counted = _counted(db, key, label_key, values)
        db.executemany(
            "INSERT INTO facet_values VALUES (?, ?, ?, ?)",
            ((name, v, label or v, n) for v, label, n in counted if v),
        )


def _counted(
    db: sqlite3.Connection, key: str, label_key: str, values: list[str] | None
) -> list[tuple[str, str, int]]:
    sql = f"SELECT {key}, max({label_key}), count(*) FROM rows WHERE {key} != ''"
    if values is None:
        return db.execute(f"{sql} GROUP BY {key}").fetchall()
    return [
        found
        for value in values
        if (found := db.execute(f"{sql} AND {key} = ?", (value,)).fetchone())[0] is not None
    ]


def _counted_methods(
    db: sqlite3.Connection, values: list[str] | None
) -> list[tuple[str, str, int]]:
    tally: dict[str, list] = {}
    restrict = "" if values is None else f"WHERE m.method IN ({', '.join('?' * len(values))})"
    for method, labels in db.execute(
        f"SELECT m.method, r.method_labels FROM row_methods m JOIN rows r ON r.n = m.n {restrict}",
        values or [],
    ):
        entry = tally.setdefault(method, [method, 0])
        entry[0] = json.loads(labels).get(method, method)
        entry[1] += 1
    return [(method, label, n) for method, (label, n) in tally.items()]


def write_imports(db: sqlite3.Connection, store: GraphStore) -> None:
    """The part each import the rows name makes (identifier, licence, notice), read for
    those imports alone (``queries/internal/import-parts.rq``), and how many rows each
    import has ("": the registry's own), counted once a version here rather than by the
    first page of each process (60 ms at a million rows)."""
    db.execute("DELETE FROM imports")
    db.execute("DELETE FROM import_rows")
    db.execute("INSERT INTO import_rows SELECT imported_by, count(*) FROM rows GROUP BY 1")
    imports = [i for (i,) in db.execute("SELECT imported_by FROM import_rows") if i]
    if not imports:
        return
    listed = " ".join(str(ox.NamedNode(i)) for i in sorted(imports))
    text = inside_where(internal_query("import-parts").text, f"VALUES ?import {{ {listed} }}")
    db.executemany(
        "INSERT OR REPLACE INTO imports VALUES (?, ?, ?, ?)",
        (
            (
                r["import"].value,
                r["part"].value,
                r["licence"].value if r["licence"] is not None else None,
                r["notice"].value if r["notice"] is not None else None,
            )
            for r in solutions(store.query(text))
        ),
    )


def term_uses(store: GraphStore, graphs: Collection[str] | None = None) -> dict[str, int]:
    """How many statements of the store's data graphs (of ``graphs``, or of all) use each
    term the ontology declares, by IRI; terms no statement uses are absent (the rule:
    ``queries/internal/term-uses.rq``). Of all graphs: each term's statements in every
    named graph less the ontology graphs' own (``term-uses-of-terms.rq``); of some graphs:
    ``term-uses-in-graphs.rq``."""
    declared = _declared_terms()
    if graphs is None:
        listed = " ".join(str(ox.NamedNode(t)) for t in sorted(declared))
        text = inside_where(
            internal_query("term-uses-of-terms").text, f"VALUES ?term {{ {listed} }}"
        )
        own = _uses_in(store, ontology_graph_names(), declared)
        every = _uses(store, text, declared)
        return {term: n - own.get(term, 0) for term, n in every.items() if n > own.get(term, 0)}
    # the ontology's own graphs are not counted
    return _uses_in(store, [g for g in graphs if not g.startswith(ONTOLOGY_GRAPHS)], declared)


def _uses_in(store: GraphStore, graphs: Collection[str], declared: set[str]) -> dict[str, int]:
    """How many statements of ``graphs`` use each of the ``declared`` terms."""
    if not graphs:
        return {}
    listed = " ".join(str(ox.NamedNode(g)) for g in sorted(graphs))
    text = inside_where(internal_query("term-uses-in-graphs").text, f"VALUES ?g {{ {listed} }}")
    return _uses(store, text, declared)


def _uses(store: GraphStore, text: str, declared: set[str]) -> dict[str, int]:
    return {
        row["term"].value: int(row["uses"].value)
        for row in solutions(store.query(text))
        if row["term"].value in declared
    }


def _declared_terms() -> set[str]:
    """The IRIs the ontology types (what term-uses.rq counts: the vocabulary's terms)."""
    graph = load_terms().graph
    return {str(term) for term in graph.subjects(RDF.type, None) if isinstance(term, URIRef)}


def add_term_uses(db: sqlite3.Connection, uses: Mapping[str, int], sign: int = 1) -> None:
    """Add ``uses`` (``sign`` -1: take them away) to the counts kept; none left, none kept."""
    for term, n in uses.items():
        db.execute(
            "INSERT INTO term_uses VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET uses = uses + ?",
            (term, sign * n, sign * n),
        )
    db.execute("DELETE FROM term_uses WHERE uses <= 0")


def write_standings(db: sqlite3.Connection, found: Mapping[str, Standing]) -> None:
    db.execute("DELETE FROM standings")
    db.executemany(
        "INSERT INTO standings VALUES (?, ?)",
        ((record, standing_json(s)) for record, s in found.items()),
    )


def write_about(db: sqlite3.Connection, about: Mapping[str, GraphsAbout]) -> None:
    """Replace what bears on each node of ``about``."""
    db.executemany(
        "INSERT OR REPLACE INTO about VALUES (?, ?)",
        (
            (node, json.dumps([list(a.graphs), [list(r) for r in a.runs]]))
            for node, a in about.items()
        ),
    )


def write_meta(db: sqlite3.Connection, version: str | None, updated_from: str = "") -> None:
    """The file's format, version, size, when it was written, and the version whose index
    it updated ("" when written whole)."""
    size = db.execute("SELECT count(*) FROM rows").fetchone()[0]
    db.executemany(
        "INSERT OR REPLACE INTO meta VALUES (?, ?)",
        [
            ("format", FORMAT),
            ("version", version or ""),
            ("rows", str(size)),
            ("written", datetime.now(UTC).isoformat(timespec="seconds")),
            ("updated_from", updated_from),
        ],
    )
