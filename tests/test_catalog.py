"""The index page's catalogue, asked of the store version's index file: facet counts agree
with the rows themselves, every order pages through every matching row once, and a
search finds exactly the rows holding its words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import kg.store.index.facets
from bench import gen
from helpers import BASE, open_test_store
from kg.read.catalog import Catalog
from kg.store.index.facets import facet_counts
from kg.store.index.rows import Row
from kg.store.index.schema import FACETS, SEARCHED, SORTS
from kg.store.load import load_paths


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root = tmp_path_factory.mktemp("catalog")
    gen.generate(120, 7, root / "data")
    with open_test_store(root / "store") as store:
        load_paths(store, [root / "data"], BASE)
    with open_test_store(root / "store", read_only=True) as reader:
        return Catalog.from_store(reader)


SEARCHES = [
    ("", {}),
    ("synthetic", {}),
    ("memory", {"metric": "peak-memory"}),
    ("accuracy", {"model": "Evo 7B"}),
    ("", {"source": f"{BASE}source/synthetic-source-1"}),
    ("", {"method": "https://w3id.org/claimgraph/vocab#pdf-text-parse"}),
]


def _tokens(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.casefold())


def _holds(row: Row, query: str) -> bool:
    """Whether every word of ``query`` is in the row's searched columns (the last as a
    prefix), as the full-text table cuts them."""
    text = " ".join(_tokens(" ".join(str(getattr(row, c)) for c in SEARCHED)))
    words = [" ".join(_tokens(w)) for w in query.split()]
    words = [w for w in words if w]
    padded = f" {text} "
    return all(f" {w} " in padded for w in words[:-1]) and (not words or f" {words[-1]}" in padded)


def _admits(row: Row, filters: dict[str, str]) -> bool:
    for name, value in filters.items():
        found = getattr(row, FACETS[name][0])
        if value not in (found if isinstance(found, list) else [found]):
            return False
    return True


def test_the_kept_index_is_read(catalog: Catalog) -> None:
    assert catalog.index.path.name.endswith(".index.sqlite")
    assert catalog.index.path.parent.name == "store"  # beside its version
    assert len(catalog) == sum(1 for _ in catalog.rows()) > 100


@pytest.mark.parametrize(("query", "filters"), SEARCHES)
def test_facet_counts_are_the_rows_own(
    catalog: Catalog, query: str, filters: dict[str, str]
) -> None:
    every = list(catalog.rows())
    counted = catalog.facets(query, filters, limit=1000)
    for name, (key, _) in FACETS.items():
        others = {k: v for k, v in filters.items() if k != name}
        expected: dict[str, int] = {}
        for row in every:
            if _holds(row, query) and _admits(row, others):
                values = getattr(row, key)
                for value in values if isinstance(values, list) else [values] if values else []:
                    expected[value] = expected.get(value, 0) + 1
        assert {v: n for v, _, n in counted[name]} == expected, name


@pytest.mark.parametrize(("query", "filters"), SEARCHES)
@pytest.mark.parametrize("limit", [1, 2])
def test_a_facet_shows_its_most_frequent_values_and_the_chosen_one(
    catalog: Catalog, query: str, filters: dict[str, str], limit: int
) -> None:
    """Cut at ``limit`` values: the most frequent ones with their full counts (ties at the
    cut settled by label), and a chosen value wherever it stands."""
    counted = catalog.facets(query, filters, limit=limit)
    everything = catalog.facets(query, filters, limit=10**6)
    for name in FACETS:
        full = {v: n for v, _, n in everything[name]}
        assert all(full[v] == n for v, _, n in counted[name]), name
        first = [n for _, _, n in counted[name][:limit]]
        assert first == sorted(full.values(), reverse=True)[:limit], name
        chosen = filters.get(name)
        if chosen in full:
            assert chosen in {v for v, _, _ in counted[name]}, name


@pytest.mark.parametrize("query", ["synthetic", "accuracy"])
def test_a_chosen_value_shows_wherever_it_stands(catalog: Catalog, query: str) -> None:
    everything = catalog.facets(query, {}, limit=10**6)
    for name in FACETS:
        if len(everything[name]) < 2:
            continue
        rarest, _, n = everything[name][-1]
        shown = catalog.facets(query, {name: rarest}, limit=1)[name]
        assert shown[0][2] >= n and (rarest, n) in {(v, m) for v, _, m in shown}, name


@pytest.mark.parametrize(("query", "filters"), SEARCHES)
def test_a_search_finds_exactly_the_rows_holding_its_words(
    catalog: Catalog, query: str, filters: dict[str, str]
) -> None:
    expected = [r.id for r in catalog.rows() if _holds(r, query) and _admits(r, filters)]
    assert [r.id for r in catalog.matching(query, filters)] == expected
    assert catalog.page(query, filters).total == len(expected)


@pytest.mark.parametrize("sort", ["", "id", *SORTS, *(f"-{s}" for s in SORTS)])
@pytest.mark.parametrize("query", ["", "synthetic accuracy"])
def test_paging_visits_every_row_once_in_order(catalog: Catalog, sort: str, query: str) -> None:
    seen: list[Row] = []
    after = None
    while True:
        page = catalog.page(query, {}, after, 7, sort)
        seen += page.rows
        if page.next_after is None:
            break
        after = page.next_after
    expected = catalog.matching(query)
    assert sorted(r.id for r in seen) == [r.id for r in expected]
    assert len(seen) == page.total
    if sort.removeprefix("-") in SORTS:
        key = SORTS[sort.removeprefix("-")]
        keys = [key(r) for r in seen]
        present = [k for k in keys if k is not None]
        assert present == sorted(present, reverse=sort.startswith("-"))
        assert all(k is None for k in keys[len(present) :])  # rows without one come last


def test_an_unknown_sort_is_refused(catalog: Catalog) -> None:
    with pytest.raises(KeyError):
        catalog.page("", {}, None, 5, "colour")


def test_facet_counts_are_kept_per_search(catalog: Catalog) -> None:
    first = catalog.facets("synthetic", {"metric": "accuracy"})
    assert catalog.facets(" Synthetic", {"metric": "accuracy"}) is first  # same words
    assert catalog.facets("synthetic", {}) is not first


def test_an_index_is_built_for_a_store_that_keeps_none(tmp_path: Path) -> None:
    """An in-memory store keeps no index: one is built for the catalogue, and it lists
    what the store holds."""
    gen.generate(10, 3, tmp_path / "data")
    with open_test_store(None) as store:  # type: ignore[arg-type]
        load_paths(store, [tmp_path / "data"], BASE)
        assert store.kept_index() is None
        catalog = Catalog.from_store(store)
        assert len(catalog) == 10
        assert catalog.row_of(catalog.matching()[0].id, catalog.matching()[0].record)


def test_a_large_selection_counts_its_facets_over_its_first_rows(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past FACET_SAMPLE rows, a facet counts the selection's first rows, and says how
    many of how many."""
    query = "synthetic"
    selected = [r for r in catalog.rows() if _holds(r, query)]
    monkeypatch.setattr(kg.store.index.facets, "FACET_SAMPLE", 7)
    assert len(selected) > 7
    counted = facet_counts(catalog.index, query, {}, 1000)
    first = sorted(
        selected,
        key=lambda r: catalog.index.execute("SELECT n FROM rows WHERE id = ?", (r.id,)).fetchone()[
            0
        ],
    )[:7]
    for name, (key, _) in FACETS.items():
        assert counted.sampled[name] == (7, len(selected))
        expected: dict[str, int] = {}
        for row in first:
            values = getattr(row, key)
            for value in values if isinstance(values, list) else [values] if values else []:
                expected[value] = expected.get(value, 0) + 1
        assert {v: n for v, _, n in counted[name]} == expected, name
    monkeypatch.setattr(kg.store.index.facets, "FACET_SAMPLE", 10**6)
    assert facet_counts(catalog.index, query, {}, 1000).sampled == {}
