"""Updating an index for a write of a few graphs: a copy of the previous version's index,
with the rows of the records the write bears on read again, instead of the whole store.

Which records a write bears on: every record IRI a changed graph names (in the version
before the write or in the new one: its own graph, a review or run of it, a change of its
standing), every record whose source, file, model or benchmark a changed graph names (a
source's new title, a retraction of the source), and the records quoted at the same
sentences as those. Their rows are read again (``read_rows`` restricted to them), then
what depends on rows is counted again for what they touch: their boards' ranks, their
facets' values, their quantities' disagreements. Standings are read again whole (they
depend on few files); what bears on each of them is read for them alone.

Past :data:`UPDATE_UP_TO` records, or without a previous index of this format, the index is
written whole (:func:`kg.store.index.write.write_index`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping
from dataclasses import replace
from pathlib import Path

import pyoxigraph as ox

from ...errors import StoreError
from ...model.standing import Standing
from ..base import GraphStore, solutions
from ..records import GraphsAbout, graphs_about
from ..standing import standings
from .activities import update_activities
from .classes import update_classes
from .codec import row_from, standing_json
from .disagreeing import find_disagreements
from .files import among
from .headings import name_boards
from .reader import Index
from .rows import Row, read_rows, restated
from .schema import FACETS, ROW_FIELDS, TOUCHED
from .suites import count_source_boards
from .tables import (
    add_term_uses,
    count_facets,
    drop_rows,
    partners,
    put_rows,
    rank_boards,
    restate_rows,
    share_quotes,
    term_uses,
    write_about,
    write_imports,
    write_meta,
    write_standings,
)
from .write import write_index, written

#: A write bearing on more records than this (or on more than a fifth of them) writes the
#: index whole: reading so many rows one way or the other costs about the same.
UPDATE_UP_TO = 20_000


def update_index(
    store: GraphStore,
    before: GraphStore | None,
    previous: Path | None,
    changed: Collection[str],
    path: Path,
    version: str | None,
) -> bool:
    """Write ``path``, the index of ``store`` at ``version``: ``previous`` (the index of
    ``before``, the version the write started from) updated for the graphs ``changed``,
    or written whole. True when it was updated.

    :raises StoreError: when the file cannot be written.
    """
    old = _readable(previous) if before is not None else None
    if before is None or old is None or old.size == 0:
        write_index(store, path, version)
        return False
    named = _named(store, changed) | _named(before, changed)
    found = standings(store)
    own, through = _affected(old, named, set(changed))
    restood = _restood(old, found)
    affected = own | through | restood
    if len(affected) > min(UPDATE_UP_TO, max(old.size // 5, 100)):
        write_index(store, path, version)
        return False
    # the statements the changed graphs held, taken away from the counts
    gone_uses = term_uses(before, changed)
    # Rows reached only through their source or their standing keep their own fields: read
    # back from the index (a source renamed at 35k: 910 rows, 0.7 s from the store).
    kept = (through | restood) - own - named
    # the IRIs named may be records the index does not have yet
    fresh = read_rows(store, found, (affected - kept) | named)
    were = _rows_of(old, kept)
    now = restated([replace(row) for row in were], store, found)  # copies: ``were`` stays
    affected |= {row.record for row in fresh}

    def fill(db: sqlite3.Connection) -> None:
        around = partners(db, affected)  # quoted with them before the write
        gone = drop_rows(db, affected - kept)
        put_rows(db, fresh)
        restate_rows(db, list(zip(were, now, strict=True)))  # in place: their own fields stay
        around |= partners(db, affected)  # and after
        share_quotes(db, around | {row.record for row in [*fresh, *now]})
        rows = [*gone, *were, *fresh, *now]
        boards = sorted({r.benchmark for r in rows if r.benchmark})
        rank_boards(db, boards)
        count_source_boards(db, boards)
        count_facets(db, _touched(rows))
        name_boards(db)
        find_disagreements(
            db, sorted({(r.model_node, r.benchmark) for r in rows if r.model_node and r.benchmark})
        )
        write_standings(db, found)
        write_imports(db, store)
        add_term_uses(db, gone_uses, -1)
        add_term_uses(db, term_uses(store, changed))
        # what bears on a record reached only through its source's own graph is as it was
        # (a retraction is a graph of its own, which changes its records' standing)
        records = {row.record for row in rows} - (kept - restood)
        db.executemany("DELETE FROM about WHERE node = ?", ((r,) for r in records))
        write_about(db, _about(store, records))
        _list_touched(db, affected | named, update_activities(db, store, changed, named))
        update_classes(db, store, before, changed)
        write_meta(db, version, old.version)

    written(path, fill, start=previous)
    return True


def _list_touched(db: sqlite3.Connection, records: set[str], activities: set[str] | None) -> None:
    """List what this update may have changed (:data:`~.schema.TOUCHED`), replacing the
    list the previous version's update left in the copy."""
    db.execute("DROP TABLE IF EXISTS touched")
    if activities is None:
        return  # every activity read again: no list, anything may have changed
    db.execute(TOUCHED)
    db.executemany("INSERT INTO touched VALUES ('record', ?)", ((r,) for r in sorted(records)))
    db.executemany("INSERT INTO touched VALUES ('activity', ?)", ((a,) for a in sorted(activities)))


def _readable(previous: Path | None) -> Index | None:
    """The previous version's index, where there is one of this format."""
    if previous is None or not previous.exists():
        return None
    try:
        return Index(previous)
    except StoreError:  # another format, or unreadable: the index is written whole
        return None


def _named(store: GraphStore, graphs: Collection[str]) -> set[str]:
    """Every IRI the graphs ``graphs`` of ``store`` name, as subject or object."""
    if not graphs:
        return set()
    listed = " ".join(str(ox.NamedNode(g)) for g in sorted(graphs))
    query = (  # a small internal lookup: the graphs' own IRIs
        f"SELECT DISTINCT ?iri WHERE {{ VALUES ?g {{ {listed} }} GRAPH ?g "
        "{ { ?iri ?p ?o } UNION { ?s ?p ?iri } } FILTER(isIRI(?iri)) }"
    )
    return {row["iri"].value for row in solutions(store.query(query))} | set(graphs)


def _affected(index: Index, named: set[str], changed: set[str]) -> tuple[set[str], set[str]]:
    """The records of ``index`` a write of the graphs ``changed`` bears on: those whose own
    statements it may change (the graphs name them: their own graphs, reviews, runs,
    changes of standing; or their file's facts of the model are one of the graphs), and
    those it reaches only through their source (its title)."""
    found = {
        column: among(index, f"SELECT record FROM rows WHERE {column}", values)
        for column, values in (("record", named), ("evaluation", changed), ("source", changed))
    }
    return found["record"] | found["evaluation"], found["source"]


def _rows_of(index: Index, records: Collection[str]) -> list[Row]:
    """The rows of ``records`` as ``index`` holds them, each with its quote pairs."""
    rows = []
    for record in sorted(records):
        for n, *cells in index.execute(
            f"SELECT n, {', '.join(ROW_FIELDS)} FROM rows WHERE record = ?", (record,)
        ):
            row = row_from(cells)
            row.pairs = sorted(
                index.execute("SELECT source, quote FROM quote_pairs WHERE n = ?", (n,))
            )
            rows.append(row)
    return rows


def _restood(index: Index, found: Mapping[str, Standing]) -> set[str]:
    """The records whose standing the write changed (a source retracted changes all of
    its records'): the index's standings against the store's now."""
    before = {
        record: text for record, text in index.execute("SELECT record, standing FROM standings")
    }
    now = {record: standing_json(standing) for record, standing in found.items()}
    return {r for r in before.keys() | now.keys() if before.get(r) != now.get(r)}


def _touched(rows: list[Row]) -> dict[str, set[str]]:
    """Each facet's values that ``rows`` hold."""
    touched: dict[str, set[str]] = {name: set() for name in FACETS}
    for row in rows:
        for name, (key, _) in FACETS.items():
            value = getattr(row, key)
            touched[name].update(value if isinstance(value, list) else [value] if value else [])
    return touched


#: Past this many records, what bears on them is read for every record at once (one
#: query over the store) rather than one query each.
ABOUT_ONE_BY_ONE = 200


def _about(store: GraphStore, records: set[str]) -> dict[str, GraphsAbout]:
    """What bears on each of ``records`` (kg.store.records.graphs_about)."""
    if len(records) > ABOUT_ONE_BY_ONE:
        return {node: a for node, a in graphs_about(store).items() if node in records}
    found: dict[str, GraphsAbout] = {}
    for record in sorted(records):
        found.update(graphs_about(store, ox.NamedNode(record)))
    return found
