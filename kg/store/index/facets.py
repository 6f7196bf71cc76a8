"""Each facet's counts over what a search and filters select (docs/index.md): the facets
without a filter of their own counted in one pass, each filtered facet over the selection
without its own filter, a large selection over a sample of it (and said so)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from functools import partial

from .facet_codes import code_of, values_of
from .query import Selection, count
from .reader import Index
from .schema import FACETS, LISTED

#: A selection of more rows than this has its facets counted over this many of them, its
#: first in the index's order, and says so (:class:`FacetCounts`): counting is linear in
#: the rows counted (about 6 us a row), 0.9 s for a word that 150,000 of a million
#: results hold, where a search answers within 100 ms (bench/README.md).
FACET_SAMPLE = 5_000


class FacetCounts(dict[str, list[tuple[str, str, int]]]):
    """For each facet, its (value, label, count), most frequent first; and for each facet
    counted over a sample of its selection, (the rows counted, the rows selected)."""

    def __init__(self) -> None:
        super().__init__()
        self.sampled: dict[str, tuple[int, int]] = {}


def facet_counts(index: Index, query: str, filters: Mapping[str, str], limit: int) -> FacetCounts:
    """For each facet, (value, label, count) over the rows the query and the other facets'
    filters select, most frequent first: the ``limit`` most frequent values, and the
    selected one wherever it stands.

    The facets without a filter of their own share one selection, counted in one pass
    over its rows; a facet with a filter is counted over the selection without it. A
    selection of more than :data:`FACET_SAMPLE` rows is counted over its first
    FACET_SAMPLE (:attr:`FacetCounts.sampled`)."""
    groups: dict[str, list[str]] = {}
    selections: dict[str, Selection] = {}
    for name in FACETS:
        selection = Selection.of(query, filters, skip=name)
        key = selection.condition + repr(selection.arguments)
        selections.setdefault(key, selection)
        groups.setdefault(key, []).append(name)
    tallies: dict[str, dict[str, int]] = {}
    top: dict[str, list[tuple[str, str, int]]] = {}
    out = FacetCounts()
    for key, names in groups.items():
        selection = selections[key]
        if selection.empty:  # every row: the index's own counts, the top ones only
            top.update({n: index.top_values(n, limit, filters.get(n)) for n in names})
            continue
        tallied, seen = _tallied(index, selection, names, limit, filters)
        tallies.update(tallied)
        # fewer rows than the sample: every selected row was counted, no need to ask
        selected = count(index, selection) if seen is None or seen >= FACET_SAMPLE else seen
        if selected > FACET_SAMPLE:
            out.sampled.update({name: (FACET_SAMPLE, selected) for name in names})
    for name in FACETS:
        if name in top:
            out[name] = top[name]
            continue
        key, label_key = FACETS[name]
        # a facet whose values are their own labels (model, developer, precision) asks for
        # none
        labels = partial(index.labels, name) if key != label_key else _unlabelled
        out[name] = most_frequent(tallies[name], limit, filters.get(name), labels)
    return out


def _unlabelled(values: list[str]) -> Mapping[str, str]:
    return {}


def most_frequent(
    counts: Mapping[str, int],
    limit: int,
    chosen: str | None,
    labels: Callable[[list[str]], Mapping[str, str]],
) -> list[tuple[str, str, int]]:
    """(value, label, count) of the ``limit`` most frequent values of ``counts`` (ties at the
    cut settled by label) and ``chosen`` wherever it stands, most frequent first; a value
    without a label is its own. ``labels`` is asked only of the values that can be shown:
    a sample of 5,000 rows holds thousands of models, a board of a million thousands of
    developers."""
    counted = {value: n for value, n in counts.items() if n}
    cut = sorted(counted.values(), reverse=True)[:limit]
    shown = [v for v, n in counted.items() if (cut and n >= cut[-1]) or v == chosen]
    found = labels(shown)
    ordered = sorted(
        ((v, found.get(v) or v, counted[v]) for v in shown), key=lambda c: (-c[2], c[1])
    )
    return ordered[:limit] + [c for c in ordered[limit:] if c[0] == chosen]


def _tallied(
    index: Index, selection: Selection, names: list[str], limit: int, chosen: Mapping[str, str]
) -> tuple[dict[str, dict[str, int]], int | None]:
    """The facets ``names`` counted in one pass over the first :data:`FACET_SAMPLE` rows
    the selection holds (the methods, a list per row, by SQLite over the same rows), and
    how many rows that pass read (None: only the methods were counted). Of each facet only
    the values :func:`most_frequent` can show are given: the ``limit`` most frequent,
    those tied with the last of them, and the ``chosen`` one."""
    single = [name for name in names if name != LISTED]
    tallies: dict[str, dict[str, int]] = {name: {} for name in names}
    seen = None
    # in the rows' order, so that both queries take the same rows; a search's rows walked
    # in the full-text table's order (the same), which stops at the sample, where a list
    # of its matches would be made whole first (1M rowids for "synt": 0.12 s)
    if selection.search is not None:
        order = f"ORDER BY search.rowid LIMIT {int(FACET_SAMPLE)}"
        if selection.where:
            walked = "search JOIN rows ON rows.n = search.rowid"
            first = f"WHERE search MATCH ? AND {selection.filtered} {order}"
        else:  # no filter: the rows themselves are not read, only their codes
            walked, first = "search", f"WHERE search MATCH ? {order}"
        number = "search.rowid"
    else:
        walked, number = "rows", "rows.n"
        first = f"WHERE {selection.condition} ORDER BY rows.n LIMIT {int(FACET_SAMPLE)}"
    if single:
        columns = ", ".join(f"row_facets.{FACETS[name][0]}" for name in single)
        found = index.execute(
            f"SELECT {columns} FROM {walked} JOIN row_facets ON row_facets.n = {number} {first}",
            selection.arguments,
        ).fetchall()
        seen = len(found)
        # counted a column at a time (Counter's loop is C): three times faster than a
        # Python loop over each row's cells
        coded = list(zip(*found, strict=True)) if found else [() for _ in single]
        counted = {name: Counter[int](c) for name, c in zip(single, coded, strict=True)}
        kept = {name: _shown(counter, limit) for name, counter in counted.items()}
        values = values_of(index, {code for codes in kept.values() for code in codes})
        for name, codes in kept.items():
            tally = {values[code]: counted[name][code] for code in codes}
            wanted = chosen.get(name)
            if wanted and wanted not in tally:  # counted, but not among the most frequent
                code = code_of(index, wanted)
                tally[wanted] = counted[name][code] if code is not None else 0
            tally.pop("", None)
            tallies[name] = tally
    if LISTED in names:
        tallies[LISTED] = dict(
            index.execute(
                f"SELECT method, count(*) FROM row_methods WHERE n IN "
                f"(SELECT {number} FROM {walked} {first}) GROUP BY method",
                selection.arguments,
            ).fetchall()
        )
    return tallies, seen


def _shown(counter: Counter[int], limit: int) -> list[int]:
    """The codes of ``counter``'s ``limit`` most frequent values and of those tied with the
    last of them (the empty value and a NULL among them, which are never shown)."""
    counter.pop(None, None)  # type: ignore[call-overload]
    # one more than the limit: the empty value may be among them
    cut = sorted(counter.values(), reverse=True)[: limit + 1]
    return [code for code, n in counter.items() if n >= cut[-1]] if cut else []
