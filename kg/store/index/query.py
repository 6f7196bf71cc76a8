"""Asking an index: a search and facet filters made into one SQL condition, a page of rows
in an order, and the search's ranking (each facet's counts: facets.py; a misspelt word
corrected: spelling.py).

Search (docs/index.md): each word of the query, cut into tokens as the full-text table cuts
text, must match (a word of several tokens, ``llama-3``, as a phrase); the last word matches
as a prefix while it is being typed. Rows whose id, model, benchmark or source is one of
the query's words exactly come first; then the full-text score (bm25), field-weighted
(:data:`kg.store.index.schema.SEARCHED`); then id order. A search of more than
:data:`RANKED_UP_TO` matches is not scored (:func:`_walked`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .codec import row_from
from .reader import ROW_COLUMNS, Index
from .rows import Row
from .schema import FACETS, LISTED, NAME_KEYS, SEARCHED, SORTS

#: Around a match in a snippet (marked up by the page, after escaping the text).
MARK_START, MARK_END = "\ue000", "\ue001"
#: A token as the full-text table's tokenizer (unicode61) cuts one: letters and digits.
TOKEN = re.compile(r"[^\W_]+")
#: A search matching more rows than this is not ordered by its full-text score: its rows
#: whose id or name is one of its words come first, then the rest in the index's order
#: (:func:`_walked`). Scoring is linear in the matches, 2 to 4 us each (a phrase's
#: positions read for each): 49 ms for the 13,489 rows of "SynthMath-001" at 100k.
RANKED_UP_TO = 10_000


@dataclass(frozen=True)
class Search:
    """A query's words as the full-text table reads them."""

    text: str
    #: the FTS5 expression: one phrase per word, the last one a prefix while typed
    expression: str
    #: the words whole, casefolded, and the whole query: compared with names exactly
    names: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Search | None:
        """The search ``text`` asks for (None: no word in it).

        >>> Search.parse("Meta-Llama-3-8B-Instruct ifev").expression
        '"meta llama 3 8b instruct" "ifev" *'
        >>> Search.parse("gsm8k ").expression
        '"gsm8k"'
        """
        words = text.casefold().split()
        phrases = [" ".join(TOKEN.findall(word)) for word in words]
        phrases = [p for p in phrases if p]
        if not phrases:
            return None
        typing = not text[-1:].isspace() and bool(TOKEN.findall(words[-1]))
        expression = " ".join(f'"{p}"' for p in phrases) + (" *" if typing else "")
        whole = " ".join(words)
        return cls(text, expression, tuple(dict.fromkeys([*words, whole])))


@dataclass
class Selection:
    """A search and facet filters as one SQL condition on ``rows``."""

    search: Search | None
    where: list[str] = field(default_factory=list)
    parameters: list[object] = field(default_factory=list)

    @classmethod
    def of(cls, query: str, filters: Mapping[str, str], skip: str = "") -> Selection:
        selection = cls(Search.parse(query))
        for name, value in sorted(filters.items()):
            if name not in FACETS or not value or name == skip:
                continue
            if name == LISTED:
                selection.add("rows.n IN (SELECT n FROM row_methods WHERE method = ?)", value)
            else:
                selection.add(f"rows.{FACETS[name][0]} = ?", value)
        return selection

    def add(self, condition: str, *parameters: object) -> None:
        self.where.append(condition)
        self.parameters.extend(parameters)

    @property
    def filtered(self) -> str:
        """The filters' condition alone."""
        return " AND ".join(self.where) or "1"

    @property
    def condition(self) -> str:
        """The filters' and the search's condition."""
        if self.search is None:
            return self.filtered
        return f"rows.n IN (SELECT rowid FROM search WHERE search MATCH ?) AND {self.filtered}"

    @property
    def arguments(self) -> list[object]:
        """The parameters of :attr:`condition`."""
        if self.search is None:
            return list(self.parameters)
        return [self.search.expression, *self.parameters]

    @property
    def empty(self) -> bool:
        """Whether it selects every row."""
        return self.search is None and not self.where


@dataclass
class Found:
    """One page of rows, how many match in all, and where the next page starts."""

    rows: list[Row]
    total: int
    next_after: str | None
    #: id -> the matching words in context, marked (:data:`MARK_START`, :data:`MARK_END`)
    snippets: dict[str, str] = field(default_factory=dict)


#: How many selections' counts an index keeps (its file never changes, so neither do they).
COUNTS_KEPT = 256


def count(index: Index, selection: Selection) -> int:
    """How many rows ``selection`` selects: counted once for an index, kept for the page
    and its facets, which both ask (34 ms each for "synt" at a million)."""
    if selection.empty:
        # every row: the file says how many (a count reads a whole index: 1.4 s at a
        # million before its pages are cached)
        return index.size
    key = (selection.condition, tuple(selection.arguments))
    kept = index.counts.get(key)
    if kept is not None:
        return kept
    if selection.search is not None and not selection.where:
        # the full-text table counts its own matches: every entry is a row's (16 times
        # faster than the join at 140,000 matches of a million)
        found = index.execute(
            "SELECT count(*) FROM search WHERE search MATCH ?", [selection.search.expression]
        )
    else:
        found = index.execute(
            f"SELECT count(*) FROM rows WHERE {selection.condition}", selection.arguments
        )
    counted = found.fetchone()[0]
    if len(index.counts) >= COUNTS_KEPT:
        index.counts.clear()
    index.counts[key] = counted
    return counted


def page(
    index: Index, selection: Selection, after: str | None, limit: int, sort: str = ""
) -> Found:
    """A page of the selected rows after ``after``: in relevance order for a search without
    ``sort`` (``after`` is then ``@<rows shown>``), else by id or by one of :data:`SORTS`
    (``-`` first: descending), ``after`` the last id shown.

    :raises KeyError: for a ``sort`` that is not one of :data:`SORTS`.
    """
    total = count(index, selection)
    if selection.search is not None and not sort:
        return _ranked(index, selection, after, limit, total)
    where, parameters = [selection.condition], selection.arguments
    if not sort or sort == "id":
        order = "rows.id"
        if after:
            where.append("rows.id > ?")
            parameters.append(after)
    else:
        name = sort.removeprefix("-")
        SORTS[name]  # KeyError for an unknown order
        key, none = f"rows.sort_{name}", f"rows.none_{name}"
        descending = sort.startswith("-")
        order = f"{none}, {key}{' DESC' if descending else ''}, rows.id"
        if after:
            # after the row ``after``: rows without a key last, equal keys by id
            where.append(
                f"EXISTS (SELECT 1 FROM rows AS a WHERE a.id = ? AND ("
                f"{none} > a.none_{name} OR ({none} = a.none_{name} AND ("
                f"{key} {'<' if descending else '>'} a.sort_{name} "
                f"OR ({key} IS a.sort_{name} AND rows.id > a.id)))))"
            )
            parameters.append(after)
    rows = index.rows(
        " AND ".join(where) or "1", parameters, f"ORDER BY {order} LIMIT {int(limit) + 1}"
    )
    more = len(rows) > limit
    rows = rows[:limit]
    snippets = _snippets(index, selection, rows) if selection.search is not None else {}
    return Found(rows, total, rows[-1].id if more and rows else None, snippets)


def _snippets(index: Index, selection: Selection, rows: list[Row]) -> dict[str, str]:
    """The snippets of a search's ``rows`` shown in another order than relevance."""
    if not rows or selection.search is None:
        return {}
    ids = [row.id for row in rows]
    marks = ", ".join("?" * len(ids))
    numbers = dict(index.execute(f"SELECT n, id FROM rows WHERE id IN ({marks})", ids).fetchall())
    # the query read once, over the range of the rows' numbers (asked for by number, the
    # full-text table reads a prefix's entries again for each: 2.6 ms a row at a million);
    # the unary + keeps the list from being handed to the table as such a lookup
    found = index.execute(
        "SELECT search.rowid, snippet(search, -1, ?, ?, '…', 12) FROM search "
        "WHERE search MATCH ? AND search.rowid BETWEEN ? AND ? "
        f"AND +search.rowid IN ({', '.join('?' * len(numbers))})",
        [
            MARK_START,
            MARK_END,
            selection.search.expression,
            min(numbers),
            max(numbers),
            *numbers,
        ],
    )
    return {numbers[n]: snippet for n, snippet in found}


def _ranked(index: Index, selection: Selection, after: str | None, limit: int, total: int) -> Found:
    assert selection.search is not None
    offset = int(after[1:]) if after and after.startswith("@") and after[1:].isdigit() else 0
    if total > RANKED_UP_TO:
        return _walked(index, selection, offset, limit, total)
    names = selection.search.names
    marks = ", ".join("?" * len(names))
    exact = " + ".join(f"(rows.{key} IN ({marks}))" for key in NAME_KEYS)
    weights = ", ".join(str(w) for w in SEARCHED.values())
    # the page's row numbers first: a sort of the matches' keys alone (with the rows and
    # snippets in the select list, SQLite made every match's before sorting: 5,220
    # snippets for one page of "MATH" at 35k)
    numbers = [
        n
        for (n,) in index.execute(
            "SELECT search.rowid FROM search JOIN rows ON rows.n = search.rowid "
            f"WHERE search MATCH ? AND {selection.filtered} "
            f"ORDER BY {exact} DESC, bm25(search, {weights}), rows.id "
            f"LIMIT {int(limit) + 1} OFFSET {offset}",
            [selection.search.expression, *selection.parameters] + list(names) * len(NAME_KEYS),
        )
    ]
    shown = ", ".join("?" * len(numbers))
    by_number = (
        {
            cells[0]: row_from(cells[1:])
            for cells in index.execute(
                f"SELECT rows.n, {ROW_COLUMNS} FROM rows WHERE rows.n IN ({shown})", numbers
            )
        }
        if numbers
        else {}
    )
    rows = [by_number[n] for n in numbers]
    more = len(rows) > limit
    rows = rows[:limit]
    snippets = _snippets(index, selection, rows)
    return Found(rows, total, f"@{offset + limit}" if more else None, snippets)


def _walked(index: Index, selection: Selection, offset: int, limit: int, total: int) -> Found:
    """A page of a search of many matches: the rows whose id or name is one of its words
    first, found by the names' indexes, then the other matches in the full-text table's
    order, each part read only as far as the page goes."""
    assert selection.search is not None
    names = list(selection.search.names)
    marks = ", ".join("?" * len(names))
    named = " OR ".join(f"rows.{key} IN ({marks})" for key in NAME_KEYS)
    if len(names) == 1:
        # one word: a row whose id or name it is holds it, so the full-text table is not
        # asked which rows match, and each name's index gives its rows in order
        where = f"({named}) AND {selection.filtered}"
        arguments = [*names * len(NAME_KEYS), *selection.parameters]
        shown = _first_named(index, names[0], selection, offset + limit + 1)[offset:]
        marks_shown = ", ".join("?" * len(shown))
        rows = index.rows(f"rows.n IN ({marks_shown})", shown, "ORDER BY rows.n") if shown else []
    else:
        matched = "rows.n IN (SELECT rowid FROM search WHERE search MATCH ?)"
        where = f"({named}) AND {matched} AND {selection.filtered}"
        arguments = [*names * len(NAME_KEYS), selection.search.expression, *selection.parameters]
        # (+: sorted, so that the rows come from the names' indexes, never from a walk of
        # every match in row order looking for a name: 0.3 ms against 0.8 s for "synt")
        tail = f"ORDER BY +rows.n LIMIT {int(limit) + 1} OFFSET {offset}"
        rows = index.rows(where, arguments, tail)
    wanted = limit + 1 - len(rows)
    if wanted > 0:  # the named rows end by this page: where the others start is needed
        if rows or not offset:
            exact = offset + len(rows)
        else:  # past them all: how many there are
            found = index.execute(f"SELECT count(*) FROM rows WHERE {where}", arguments)
            exact = found.fetchone()[0]
        # (a row without a name has NULL there, which NOT IN would not admit)
        unnamed = " AND ".join(f"coalesce(rows.{key}, '') NOT IN ({marks})" for key in NAME_KEYS)
        found = index.execute(
            f"SELECT {ROW_COLUMNS} FROM search JOIN rows ON rows.n = search.rowid "
            f"WHERE search MATCH ? AND {selection.filtered} AND {unnamed} "
            f"ORDER BY search.rowid LIMIT {int(wanted)} OFFSET {max(offset - exact, 0)}",
            [selection.search.expression, *selection.parameters, *names * len(NAME_KEYS)],
        )
        rows += [row_from(cells) for cells in found]
    more = len(rows) > limit
    rows = rows[:limit]
    snippets = _snippets(index, selection, rows)
    return Found(rows, total, f"@{offset + limit}" if more else None, snippets)


def _first_named(index: Index, name: str, selection: Selection, wanted: int) -> list[int]:
    """The numbers of the first ``wanted`` rows (in row order) the filters select whose id
    or name is ``name``: a walk of each name's index, which holds its rows in row order
    (not a sort of the 133,374 rows a benchmark's name has at a million)."""
    numbers: set[int] = set()
    for key in NAME_KEYS:
        walked = "INDEXED BY rows_by_id" if key == "id" else f"INDEXED BY rows_by_name_{key}"
        numbers.update(
            n
            for (n,) in index.execute(
                f"SELECT rows.n FROM rows {walked} WHERE rows.{key} = ? "
                f"AND {selection.filtered} ORDER BY rows.n LIMIT {int(wanted)}",
                [name, *selection.parameters],
            )
        )
    return sorted(numbers)[:wanted]


def matching(index: Index, query: str, filters: Mapping[str, str]) -> Iterable[Row]:
    """Every selected row, in id order."""
    selection = Selection.of(query, filters)
    return index.rows(selection.condition, selection.arguments, "ORDER BY rows.id")
