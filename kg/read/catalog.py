"""The record catalogue behind the index page: ranked search, facets with counts, paging,
read from the store version's index (:mod:`kg.store.index`), never from the whole store.

A catalogue holds no rows: each page asks the index file for the rows it shows, so a
server's memory does not grow with the records and its first answer needs no build. What
is asked often (a search's facet counts) is kept, a bounded number of times.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from markupsafe import Markup, escape

from ..model.standing import Standing
from ..store import GraphStore
from ..store.index import Index, index_for
from ..store.index.facets import FacetCounts, facet_counts
from ..store.index.query import (
    MARK_END,
    MARK_START,
    Search,
    Selection,
    matching,
    page,
)
from ..store.index.rows import Row
from ..store.index.schema import FACETS, SORTS
from ..store.index.spelling import corrected
from ..store.records import GraphsAbout
from .boards import Boards

__all__ = ["FACETS", "FACET_LIMIT", "SORTS", "Catalog", "FacetCounts", "Page"]

#: How many values of each facet the index shows (the most frequent; a selected one too).
FACET_LIMIT = 30
#: How many searches' facet counts are kept.
FACET_CACHE = 256


@dataclass
class Page:
    rows: list[Row]
    total: int
    next_after: str | None
    #: id -> the matching words in context, marked with kg.store.index.query's marks
    snippets: dict[str, str] = field(default_factory=dict)
    #: the query spelled as the index knows it, where the query as typed found nothing
    corrected: str | None = None

    def snippet(self, ident: str) -> Markup:
        """The row's matching words in context, HTML with each match in ``<mark>`` ("" when
        it was not found by a search)."""
        return marked(self.snippets.get(ident, ""))


def marked(snippet: str) -> Markup:
    """A snippet as HTML: its text escaped, its matches in ``<mark>``.

    >>> marked("a <b> \ue000llama\ue001 c")
    Markup('a &lt;b&gt; <mark>llama</mark> c')
    """
    escaped = str(escape(snippet))
    return Markup(escaped.replace(MARK_START, "<mark>").replace(MARK_END, "</mark>"))


class Catalog:
    """Every record's index row, as one store version's index file holds them."""

    def __init__(self, index: Index):
        self.index = index
        self._facets: OrderedDict[tuple, FacetCounts] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def from_store(cls, store: GraphStore, folder: Path | None = None) -> Catalog:
        """The catalogue of ``store``'s version: its kept index, else one built into
        ``folder`` (kg.store.index.index_for)."""
        return cls(index_for(store, folder))

    @property
    def version(self) -> str:
        """The store version the index was read from."""
        return self.index.version

    def __len__(self) -> int:
        return self.index.size

    def rows(self) -> Iterator[Row]:
        """Every row, in id order, read in chunks."""
        return self.index.every_row()

    def row_of(self, ident: str, record: str) -> Row | None:
        """The row of the record with id ``ident`` and IRI ``record`` (None: not listed)."""
        row = self.index.row(ident)
        return row if row is not None and row.record == record else None

    @cached_property
    def standings(self) -> Mapping[str, Standing]:
        """The standing of every claim anything bears on, by IRI; a claim not in it is
        current. Record pages read theirs here instead of with seven queries each."""
        return _Lookup(self.index.standing)

    @cached_property
    def about(self) -> Mapping[str, GraphsAbout]:
        """The graphs and runs about every node something bears on, by IRI: a record
        page's query, once per version."""
        return _Lookup(self.index.about)

    @cached_property
    def boards(self) -> Boards:
        """The leaderboards, model rows and disagreements."""
        return Boards(self.index)

    def matching(self, query: str = "", filters: Mapping[str, str] | None = None) -> list[Row]:
        """Rows matching ``query`` and having every facet value of ``filters``, by id."""
        return list(matching(self.index, query, filters or {}))

    def page(
        self,
        query: str = "",
        filters: Mapping[str, str] | None = None,
        after: str | None = None,
        limit: int = 50,
        sort: str = "",
    ) -> Page:
        """One page of matching rows: for a search without ``sort``, the most relevant
        first (``after``: ``@`` and the rows shown before); else by id or in the order
        ``sort`` names, one of :data:`SORTS` (``-`` first for descending), after the id
        ``after``. A search that finds nothing is tried again with its words spelled as
        the index knows them (within one edit), and says so.

        :raises KeyError: for a ``sort`` that is not one of :data:`SORTS`.
        """
        filters = filters or {}
        found = page(self.index, Selection.of(query, filters), after, limit, sort)
        if found.total or not query.strip():
            return Page(found.rows, found.total, found.next_after, found.snippets)
        spelled = corrected(self.index, query)
        if spelled is None:
            return Page(found.rows, found.total, found.next_after, found.snippets)
        again = page(self.index, Selection.of(spelled, filters), after, limit, sort)
        return Page(again.rows, again.total, again.next_after, again.snippets, spelled)

    def facets(
        self,
        query: str = "",
        filters: Mapping[str, str] | None = None,
        limit: int = FACET_LIMIT,
    ) -> FacetCounts:
        """For each facet, (value, label, count) over the rows matching the query and the
        other facets' filters, most frequent first: the ``limit`` most frequent values,
        and the selected one wherever it stands (kept per search). A facet of a large
        selection is counted over a sample of it, and says so (``sampled``)."""
        filters = {k: v for k, v in (filters or {}).items() if k in FACETS and v}
        search = Search.parse(query)
        key = (search and search.expression, tuple(sorted(filters.items())), limit)
        with self._lock:
            cached = self._facets.get(key)
            if cached is not None:
                self._facets.move_to_end(key)
                return cached
        out = facet_counts(self.index, query, filters, limit)
        with self._lock:
            self._facets[key] = out
            if len(self._facets) > FACET_CACHE:
                self._facets.popitem(last=False)
        return out


class _Lookup(Mapping):
    """A mapping read from the index one key at a time."""

    def __init__(self, read):
        self._read = read

    def __getitem__(self, key: str):
        found = self._read(key)
        if found is None:
            raise KeyError(key)
        return found

    def get(self, key, default=None):
        found = self._read(key)
        return default if found is None else found

    def __iter__(self) -> Iterator[str]:
        raise TypeError("read one key at a time")

    def __len__(self) -> int:
        raise TypeError("read one key at a time")
