"""The index's facet counts: both ways of counting agree, and repeated searches are kept."""

from __future__ import annotations

import pytest

import kg.read.catalog
from bench import gen
from helpers import BASE, open_test_store
from kg.read.catalog import Catalog
from kg.store.load import load_paths


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root = tmp_path_factory.mktemp("catalog")
    gen.generate(120, 7, root / "data")
    with open_test_store(root / "store") as store:
        load_paths(store, [root / "data"], BASE)
        return Catalog.from_store(store)


SEARCHES = [
    ("", {}),
    ("synthetic", {}),
    ("memory", {"metric": "peak memory"}),
    ("accuracy", {"model": "Evo 7B"}),
    ("", {"source": f"{BASE}source/synthetic-source-1"}),
]


@pytest.mark.parametrize(("query", "filters"), SEARCHES)
def test_tallying_rows_and_anding_row_sets_count_the_same(
    catalog: Catalog,
    query: str,
    filters: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(kg.read.catalog, "BITS_PER_TALLIED_ROW", 0)  # always AND
    anded = catalog._count_facets(query, filters, 30)
    monkeypatch.setattr(kg.read.catalog, "BITS_PER_TALLIED_ROW", 10**12)  # always tally
    tallied = catalog._count_facets(query, filters, 30)
    assert anded == tallied
    # and both agree with the rows themselves
    rows = catalog.matching(query, {k: v for k, v in filters.items() if k != "model"})
    expected = sum(1 for r in rows if r.model == "Evo 7B")
    assert dict((v, n) for v, _, n in anded["model"]).get("Evo 7B", 0) == expected


@pytest.mark.parametrize(("query", "filters"), SEARCHES)
def test_counting_values_picked_from_a_column_counts_the_same(
    catalog: Catalog,
    query: str,
    filters: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(kg.read.catalog, "COLUMN_FROM", 1)  # every facet of one value a row
    monkeypatch.setattr(kg.read.catalog, "COLUMN_ROWS_PER_TALLIED_ROW", 10**12)  # picked
    columns = Catalog(catalog.rows)
    assert "source" in columns._columns and "method" not in columns._columns  # methods: lists
    assert columns._count_facets(query, filters, 30) == catalog._count_facets(query, filters, 30)


def test_facet_counts_are_kept_per_search(catalog: Catalog) -> None:
    first = catalog.facets("synthetic", {"metric": "accuracy"})
    assert catalog.facets(" Synthetic ", {"metric": "accuracy"}) is first  # same words
    assert catalog.facets("synthetic", {}) is not first


@pytest.mark.parametrize("word", ["synthetic", "memory", "evo 7b", "zzz-not-there", "a", "\x00"])
def test_a_word_is_found_in_the_rows_that_contain_it(catalog: Catalog, word: str) -> None:
    expected = [i for i, row in enumerate(catalog.rows) if word in row.text]
    assert list(catalog._rows_containing(word)) == expected
    assert [r.id for r in catalog.matching(word)] == [
        catalog.rows[i].id for i in expected
    ] or " " in word  # matching() splits a query into words


@pytest.mark.parametrize("check", [1, 3, 1024])  # dense at once, after a few, never here
@pytest.mark.parametrize("word", ["synthetic", "memory", "evo 7b", "zzz-not-there", "a", "\x00"])
def test_a_dense_word_is_tested_row_by_row_with_the_same_rows(
    catalog: Catalog,
    word: str,
    check: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(kg.read.catalog, "DENSE_CHECK", check)
    expected = sum(1 << i for i, row in enumerate(catalog.rows) if word in row.text)
    assert catalog._containing(word) == expected
