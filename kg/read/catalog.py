"""The record catalogue behind the index page: full-text search, facets with counts, keyset paging.

It is read from the store with one query (plus one for review methods) and kept in
memory: the same GROUP BY per facet in SPARQL takes a second. Sets of rows are bitsets
(Python integers, bit i for the i-th row by id): each facet value's rows are one,
made once; a search word's rows are one, made once and kept for the next search; a
facet's counts are then an AND and a popcount per value, a few milliseconds at 100k
records where counting row by row took hundreds.
"""

from __future__ import annotations

import bisect
import threading
from array import array
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from itertools import compress, repeat
from typing import Any

from ..model.standing import Standing
from ..store import GraphStore
from ..store.records import GraphsAbout, graphs_about
from ..store.standing import standings
from .bitsets import bit_indices, bitset, from_selector, selector
from .boards import Boards, Quantity, disagreeing
from .rows import Row, read_rows

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
#: The orders the index sorts by (besides ids): a row's key; rows without a value last.
SORTS: dict[str, Callable[[Row], Any]] = {
    "title": lambda r: r.title.casefold(),
    "value": lambda r: r.value,
    "model": lambda r: r.model.casefold() or None,
    "status": lambda r: r.status_label.casefold(),
}
#: How many values of each facet the index shows (the most frequent; a selected one too).
FACET_LIMIT = 30
#: How many search words' row sets are kept.
WORD_CACHE = 512
#: Between rows' search texts when they are joined (never in a text, nor in a word found).
SEPARATOR = "\x00"
#: How many searches' facet counts are kept (the catalog never changes; a new one is built
#: for new data): at 100k records a search's counts take tens of milliseconds.
FACET_CACHE = 256
#: A facet's counts come from ANDing each value's row set with the selection, or from
#: tallying the selected rows' own values, whichever is cheaper: one row tallied costs
#: about as much as ANDing this many bits (a probe at 100k records: 1.45 µs per row,
#: 7 µs per 100k-bit AND and popcount; tests/test_catalog.py checks both ways agree).
BITS_PER_TALLIED_ROW = 20_000
#: A facet of this many values or more, one a row, keeps each row's value in a list, and
#: counts the values of many selected rows by picking theirs from it (itertools.compress)
#: and counting them (Counter), both in C: 3 ms at 100k records where ANDing the row set of
#: each of 2,000 sources took 22.
COLUMN_FROM = 64
#: ... when tallying the selected rows would cost more: one row tallied costs about as
#: much as this many rows' values picked from the list.
COLUMN_ROWS_PER_TALLIED_ROW = 50
#: A word's matches are dense when it is in more than one row of this many so far: a row
#: tested costs about an eighth of a match found by the joined search.
DENSE = 8
#: How many matches the joined search finds between two looks at their density.
DENSE_CHECK = 1024


@dataclass
class Page:
    rows: list[Row]
    total: int
    next_after: str | None


class Catalog:
    """Every record's index row, sorted by id."""

    def __init__(
        self,
        rows: Iterable[Row],
        standings: Mapping[str, Standing] | None = None,
        about: Mapping[str, GraphsAbout] | None = None,
        disagreeing: Mapping[Quantity, Decimal] | None = None,
    ):
        self.rows = sorted(rows, key=lambda r: r.id)
        #: The standing of every claim anything bears on, by IRI, where it was read with
        #: the rows (None: not read); a claim not in it is current. Record pages read
        #: theirs here instead of with seven queries each.
        self.standings = standings
        #: The graphs and runs about every node something bears on, by IRI, where they
        #: were read with the rows (None: not read): a record page's query, once.
        self.about = about
        #: The quantities the store says disagree, and their spreads (kg.read.boards).
        self._disagreeing = disagreeing
        self._ids = [r.id for r in self.rows]
        self._all = (1 << len(self.rows)) - 1
        #: facet -> value -> (label, the bitset of its rows)
        self._values: dict[str, dict[str, tuple[str, int]]] = {}
        for name, (key, label_key) in FACETS.items():
            members: dict[str, list[int]] = {}
            labels: dict[str, str] = {}
            for i, row in enumerate(self.rows):
                for value in _values(row, key):
                    members.setdefault(value, []).append(i)
                    labels.setdefault(value, _label(row, label_key, value))
            self._values[name] = {
                value: (labels[value], bitset(indices)) for value, indices in members.items()
            }
        # Every row's search text, joined: a word is found by one C search, not one per row.
        self._starts: list[int] = []
        offset = 0
        for row in self.rows:
            self._starts.append(offset)
            offset += len(row.text) + 1
        #: facet -> (its values, each row's value as an index into them, 0 for none), for
        #: the facets of many values and one a row (counting small ints is 3 times faster
        #: than counting strings)
        self._columns: dict[str, tuple[list[str], array[int]]] = {}
        for name, (key, _) in FACETS.items():
            if len(self._values[name]) >= COLUMN_FROM and not any(
                isinstance(getattr(row, key), list) for row in self.rows
            ):
                names = ["", *self._values[name]]
                code = {value: i for i, value in enumerate(names)}
                self._columns[name] = (
                    names,
                    array(
                        "H" if len(names) < 2**16 else "L",
                        [code[getattr(row, key) or ""] for row in self.rows],
                    ),
                )
        self._texts = [r.text.replace(SEPARATOR, " ") for r in self.rows]
        self._text = SEPARATOR.join(self._texts)
        self._words: OrderedDict[str, int] = OrderedDict()
        self._facets: OrderedDict[tuple, dict[str, list[tuple[str, str, int]]]] = OrderedDict()
        self._lock = threading.Lock()
        self._index = {row.id: i for i, row in enumerate(self.rows)}
        self._orders: dict[str, tuple[list[int], list[int]]] = {}
        #: facet -> (value, label, count) over every row, most frequent first
        self._totals = {
            name: sorted(
                ((value, label, members.bit_count()) for value, (label, members) in values.items()),
                key=lambda c: (-c[2], c[1]),
            )
            for name, values in self._values.items()
        }

    @classmethod
    def from_store(cls, store: GraphStore) -> Catalog:
        found = standings(store)
        return cls(read_rows(store, found), found, graphs_about(store), disagreeing(store))

    def row_of(self, ident: str, record: str) -> Row | None:
        """The row of the record with id ``ident`` and IRI ``record`` (None: not listed)."""
        i = self._index.get(ident)
        return self.rows[i] if i is not None and self.rows[i].record == record else None

    @cached_property
    def boards(self) -> Boards:
        """The leaderboards, model rows and disagreements of these rows (made on first use:
        two threads asking at once may both make them, and one is kept)."""
        return Boards(self.rows, self._disagreeing)

    # -- row sets -------------------------------------------------------------------------
    def _word(self, word: str) -> int:
        """The rows whose text contains ``word`` (kept: searches repeat)."""
        with self._lock:
            found = self._words.get(word)
            if found is not None:
                self._words.move_to_end(word)
                return found
        found = self._containing(word)
        with self._lock:
            self._words[word] = found
            if len(self._words) > WORD_CACHE:
                self._words.popitem(last=False)
        return found

    def _containing(self, word: str) -> int:
        """The bitset of the rows whose text contains ``word``: the joined search while
        matches are rare; once they are dense (more than one row in :data:`DENSE`), one
        test per remaining row instead, in C. The joined search costs a bisection and a
        find per match (a microsecond), the test a fraction of that per row, so a word in
        every row ("synthetic" at 100k records) took 80 ms and takes 30."""
        rows: list[int] = []
        for row in self._rows_containing(word):
            rows.append(row)
            if len(rows) % DENSE_CHECK == 0 and row < DENSE * len(rows):
                rest = row + 1
                tested = bytes(map(str.__contains__, self._texts[rest:], repeat(word)))
                return bitset(rows) | (from_selector(tested) << rest)
        return bitset(rows)

    def _rows_containing(self, word: str) -> Iterator[int]:
        """The rows whose text contains ``word``, in order: one search through all the
        texts joined (in C), a row found per match, so a rare word costs little."""
        if SEPARATOR in word:
            return
        if not word:  # in every text
            yield from range(len(self._starts))
            return
        text, starts = self._text, self._starts
        at = text.find(word)
        while at >= 0:
            row = bisect.bisect_right(starts, at) - 1
            yield row
            if row + 1 == len(starts):
                return
            at = text.find(word, starts[row + 1])

    def _selected(self, query: str, filters: Mapping[str, str], skip: str = "") -> int:
        """The rows containing every word of ``query`` and having every facet value of
        ``filters`` (but the facet ``skip``)."""
        rows = self._all
        for word in query.casefold().split():
            rows &= self._word(word)
        for name, value in filters.items():
            if name in FACETS and value and name != skip:
                rows &= self._values[name].get(value, ("", 0))[1]
        return rows

    def matching(self, query: str = "", filters: Mapping[str, str] | None = None) -> list[Row]:
        """Rows containing every word of ``query`` and having every facet value of ``filters``."""
        return [self.rows[i] for i in bit_indices(self._selected(query, filters or {}))]

    def page(
        self,
        query: str = "",
        filters: Mapping[str, str] | None = None,
        after: str | None = None,
        limit: int = 50,
        sort: str = "",
    ) -> Page:
        """One page of matching rows after the id ``after`` (keyset paging: by id, or in
        the order ``sort`` names, one of :data:`SORTS`, ``-`` first for descending).

        :raises KeyError: for a ``sort`` that is not one of :data:`SORTS`.
        """
        selected = self._selected(query, filters or {})
        if not sort or sort == "id":
            start = bisect.bisect_right(self._ids, after) if after else 0
            chunk = [self.rows[i] for i in bit_indices(selected, start, limit + 1)]
        else:
            order, place = self._order(sort)
            members = set(bit_indices(selected))
            at = place[self._index[after]] + 1 if after in self._index else 0
            chunk = []
            for i in order[at:]:
                if i in members:
                    chunk.append(self.rows[i])
                    if len(chunk) > limit:
                        break
        more = len(chunk) > limit
        chunk = chunk[:limit]
        return Page(
            rows=chunk, total=selected.bit_count(), next_after=chunk[-1].id if more else None
        )

    def _order(self, sort: str) -> tuple[list[int], list[int]]:
        """The rows' indices in ``sort``'s order (ties by id), and each row's place in it:
        made once per order, as a catalogue never changes."""
        with self._lock:
            made = self._orders.get(sort)
        if made is None:
            key = SORTS[sort.removeprefix("-")]
            keys = [key(row) for row in self.rows]
            # Stable both ways (reverse keeps equal keys in id order); no value comes last.
            order = sorted(
                (i for i, k in enumerate(keys) if k is not None),
                key=keys.__getitem__,
                reverse=sort.startswith("-"),
            )
            order += [i for i, k in enumerate(keys) if k is None]
            place = [0] * len(order)
            for position, i in enumerate(order):
                place[i] = position
            made = (order, place)
            with self._lock:
                self._orders[sort] = made
        return made

    def facets(
        self,
        query: str = "",
        filters: Mapping[str, str] | None = None,
        limit: int = FACET_LIMIT,
    ) -> dict[str, list[tuple[str, str, int]]]:
        """For each facet, (value, label, count) over the rows matching the query and the
        other facets' filters, most frequent first: the ``limit`` most frequent values,
        and the selected one wherever it stands."""
        filters = dict(filters or {})
        key = (tuple(query.casefold().split()), tuple(sorted(filters.items())), limit)
        with self._lock:
            cached = self._facets.get(key)
            if cached is not None:
                self._facets.move_to_end(key)
                return cached
        out = self._count_facets(query, filters, limit)
        with self._lock:
            self._facets[key] = out
            if len(self._facets) > FACET_CACHE:
                self._facets.popitem(last=False)
        return out

    def _count_facets(
        self, query: str, filters: dict[str, str], limit: int
    ) -> dict[str, list[tuple[str, str, int]]]:
        out: dict[str, list[tuple[str, str, int]]] = {}
        for name, values in self._values.items():
            rows = self._selected(query, filters, skip=name)
            selected = rows.bit_count()
            if rows == self._all:
                counts = self._totals[name]
            elif name in self._columns and selected * COLUMN_ROWS_PER_TALLIED_ROW > len(
                self.rows
            ):  # many rows, many values: count them all at once, in C
                names, codes = self._columns[name]
                picked = Counter(compress(codes, selector(rows)))
                counts = [
                    (names[code], values[names[code]][0], n) for code, n in picked.items() if code
                ]
            elif selected * BITS_PER_TALLIED_ROW < len(values) * len(self.rows):
                # few rows, many values (sources): count the rows' own values
                tally: dict[str, int] = {}
                key = FACETS[name][0]
                for i in bit_indices(rows):
                    for value in _values(self.rows[i], key):
                        tally[value] = tally.get(value, 0) + 1
                counts = [(value, values[value][0], n) for value, n in tally.items()]
            else:  # one AND and popcount per value
                counts = [
                    (value, label, (rows & members).bit_count())
                    for value, (label, members) in values.items()
                ]
            counts = sorted((c for c in counts if c[2]), key=lambda c: (-c[2], c[1]))
            shown = counts[:limit]
            chosen = filters.get(name)
            shown += [c for c in counts[limit:] if c[0] == chosen]
            out[name] = shown
        return out


def _values(row: Row, key: str) -> list[str]:
    value = getattr(row, key)
    if isinstance(value, list):
        return value
    return [value] if value else []


def _label(row: Row, key: str, value: str) -> str:
    label = getattr(row, key)
    if isinstance(label, dict):
        return label.get(value, value)
    return label or value
