"""The text copy the embedded store keeps of each graph it writes (kg.store.copies): after
every kind of write it gives exactly what the store's indexes give, in their order; a
record's page is the same read from copies or from the indexes; what no version names is
collected; a failed or merged write leaves no wrong copy."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pyoxigraph as ox
import pytest

import kg.rdf.terms
import kg.store.load
from bench import gen
from helpers import BASE, DATA, SEED_RECORD, open_test_store
from helpers.checks import assert_copies_hold_the_store
from helpers.variants import break_file, deleter
from helpers.web import app_over
from kg.errors import InvalidDataError
from kg.rdf.terms import BULK_PIECE
from kg.store.copies import COPIES, CopyReader, map_path
from kg.store.embedded import BULK_THRESHOLD, EmbeddedStore, live_version
from kg.store.load import load_paths
from kg.store.versions import KEEP_VERSIONS

XSD = "http://www.w3.org/2001/XMLSchema#"


def graph(name: str, n: int, value: str = "8.3750") -> list[ox.Quad]:
    """``n`` statements in graph ``name`` with what a store does not give back as it came:
    a decimal with trailing zeros, a derived integer type, a language tag in capitals; and
    blank nodes."""
    g, node = ox.NamedNode(name), ox.BlankNode(f"b{abs(hash(name)) % 10**8}n1")
    quads = [
        ox.Quad(
            node,
            ox.NamedNode("urn:p:decimal"),
            ox.Literal(value, datatype=ox.NamedNode(XSD + "decimal")),
            g,
        ),
        ox.Quad(
            node,
            ox.NamedNode("urn:p:count"),
            ox.Literal("016", datatype=ox.NamedNode(XSD + "nonNegativeInteger")),
            g,
        ),
        ox.Quad(
            ox.NamedNode(name), ox.NamedNode("urn:p:label"), ox.Literal("Peak", language="EN-GB"), g
        ),
        ox.Quad(ox.NamedNode(name), ox.NamedNode("urn:p:at"), node, g),
    ]
    quads += [
        ox.Quad(ox.NamedNode(f"{name}#s{i}"), ox.NamedNode("urn:p:i"), ox.Literal(str(i)), g)
        for i in range(n - len(quads))
    ]
    return quads


def copies_rows(store_dir: Path) -> int:
    with sqlite3.connect(store_dir / COPIES) as db:
        return db.execute("SELECT count(*) FROM copy").fetchone()[0]


def mapped(store_dir: Path) -> dict[str, str]:
    live = live_version(store_dir)
    assert live is not None
    with sqlite3.connect(f"file:{map_path(live)}?mode=ro", uri=True) as db:
        return dict(db.execute("SELECT name, sha256 FROM graph"))


@pytest.mark.parametrize("size", [10, BULK_THRESHOLD // 50], ids=["one-update", "bulk"])
def test_replaced_graphs_have_copies_of_what_the_store_holds(tmp_path: Path, size: int) -> None:
    store_dir = tmp_path / "store"
    names = [f"urn:g:{i}" for i in range(60)]
    with EmbeddedStore(store_dir) as store:
        store.replace_graphs({name: graph(name, size) for name in names})
        # the second write replaces some, drops some, leaves the rest to the first's copies
        store.replace_graphs(
            {name: graph(name, size, "1.50") for name in names[:20]}, remove=names[20:30]
        )
    assert assert_copies_hold_the_store(store_dir) == 50
    assert set(mapped(store_dir)) == set(names[:20] + names[30:])
    with EmbeddedStore(store_dir, read_only=True) as store:
        assert not list(store.quads(names[20:30]))  # dropped graphs read as empty
        assert [
            q.object.value
            for q in store.graph_quads([names[0]])
            if q.predicate.value == "urn:p:decimal"
        ] == ["1.5"]


@pytest.mark.parametrize("piece", [BULK_PIECE, 997], ids=["one-call", "in-pieces"])
def test_an_nquads_file_bulk_loaded_in_one_step_has_copies(
    tmp_path: Path, piece: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the bulk loader is given at most `piece` quads a call (its memory bounded): a graph
    # cut between two calls is whole in the store and in its copy
    monkeypatch.setattr(kg.rdf.terms, "BULK_PIECE", piece)
    store_dir = tmp_path / "store"
    names = [f"urn:g:{i}" for i in range(3000)]
    quads = [q for name in names for q in graph(name, 30)]
    nquads = tmp_path / "all.nq"
    nquads.write_bytes(ox.serialize(quads, format=ox.RdfFormat.N_QUADS))
    assert nquads.stat().st_size > 200 * BULK_THRESHOLD  # the bulk loader's path
    with EmbeddedStore(store_dir) as store:
        store.load_nquads(nquads, names)
    assert assert_copies_hold_the_store(store_dir) == len(names)
    with EmbeddedStore(store_dir, read_only=True) as store:
        assert len(list(store.quads(names))) == len(quads)


def test_a_graph_merged_into_or_given_in_pieces_gets_no_copy(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    with EmbeddedStore(store_dir) as store:
        store.replace_graphs({"urn:g:kept": graph("urn:g:kept", 5)})
        # quads of a graph the write did not drop first: the store merges them
        merged = ox.Quad(
            ox.NamedNode("urn:x"),
            ox.NamedNode("urn:p"),
            ox.Literal("more"),
            ox.NamedNode("urn:g:kept"),
        )
        pieces = graph("urn:g:pieces", 6)
        store.replace_graphs(
            {"urn:g:other": [merged, *pieces[:3], *graph("urn:g:b", 2), *pieces[3:]]}
        )
    assert "urn:g:kept" not in mapped(store_dir)
    assert "urn:g:pieces" not in mapped(store_dir)
    assert "urn:g:b" in mapped(store_dir)
    with EmbeddedStore(store_dir, read_only=True) as store:
        assert len(list(store.quads(["urn:g:kept"]))) == 6  # read from the store's indexes
        assert len(list(store.quads(["urn:g:pieces"]))) == 6
    assert assert_copies_hold_the_store(store_dir) == 1  # urn:g:b (urn:g:other is empty)


def test_copies_no_version_names_are_collected(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    with EmbeddedStore(store_dir) as store:
        for n in range(KEEP_VERSIONS + 3):
            store.replace_graphs(
                {"urn:g:a": graph("urn:g:a", 5, f"{n}.0"), "urn:g:b": graph("urn:g:b", 5)}
            )
    # each version names its own copy of urn:g:a; urn:g:b's is the same text throughout
    assert copies_rows(store_dir) == KEEP_VERSIONS + 1
    maps = sorted(p.name for p in store_dir.glob("v-*.copies.sqlite"))
    assert maps == sorted(f"{p.name}.copies.sqlite" for p in store_dir.glob("v-*") if p.is_dir())
    assert len(maps) == KEEP_VERSIONS


def test_a_load_that_fails_leaves_the_copies_as_they_were(tmp_path: Path, data_copy: Path) -> None:
    store_dir = tmp_path / "store"
    with open_test_store(store_dir) as store:
        load_paths(store, [data_copy], BASE)
    rows, maps = copies_rows(store_dir), sorted(store_dir.glob("v-*.copies.sqlite"))
    break_file(data_copy, SEED_RECORD, deleter("title"))
    with open_test_store(store_dir) as store, pytest.raises(InvalidDataError):
        load_paths(store, [data_copy], BASE, force=True)
    assert copies_rows(store_dir) == rows
    assert sorted(store_dir.glob("v-*.copies.sqlite")) == maps


def test_loads_reloads_and_removals_keep_the_copies_true(tmp_path: Path, data_copy: Path) -> None:
    """The bundled data (records, sources, reviews, runs, and imported records), loaded,
    loaded again whole, and with a file added then removed."""
    store_dir = tmp_path / "store"
    extra = data_copy / "agents" / "second.yaml"
    extra.write_text("kind: agent\nid: second\nagent_type: person\nlabel: A second agent\n")
    with open_test_store(store_dir) as store:
        load_paths(store, [data_copy], BASE)
        everything = set(reader_graphs(store_dir))
        assert assert_copies_hold_the_store(store_dir) == len(everything)
        first = statements(store_dir)

        load_paths(store, [data_copy], BASE, force=True)  # everything again
        # the labels of blank nodes are the mapping's, so the same each time
        assert statements(store_dir) == first
        assert assert_copies_hold_the_store(store_dir) == len(everything)

        extra.unlink()
        load_paths(store, [data_copy], BASE)
        left = set(reader_graphs(store_dir))
        assert left == everything - {f"{BASE}agent/second"}
        assert set(mapped(store_dir)) == left, "a removed graph keeps no copy"
        assert assert_copies_hold_the_store(store_dir) == len(left)


def statements(store_dir: Path) -> list[str]:
    """Every quad as N-Quads, blank nodes by their labels."""
    return sorted(str(q) for quads in reader_graphs(store_dir).values() for q in quads)


def reader_graphs(store_dir: Path) -> dict[str, list[ox.Quad]]:
    with EmbeddedStore(store_dir, read_only=True) as reader:
        return {g: list(reader.quads([g])) for g in reader.named_graphs()}


def test_a_staged_load_in_many_chunks_has_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    gen.generate(kg.store.load.STAGE_FROM, 5, corpus)
    monkeypatch.setattr(kg.store.load, "STAGE_UP_TO", 10**9)  # staged on any machine
    monkeypatch.setattr(kg.store.load, "CHUNK_BYTES", 1 << 18)  # and in many chunks
    store_dir = tmp_path / "store"
    with open_test_store(store_dir) as store:
        load_paths(store, [corpus], BASE)
    with EmbeddedStore(store_dir, read_only=True) as reader:
        graphs = reader.named_graphs()
    assert len(list(store_dir.glob("kg-load-*"))) == 0
    assert assert_copies_hold_the_store(store_dir) == len(graphs)


def test_record_pages_are_the_same_read_from_the_copies_or_the_store(tmp_path: Path) -> None:
    shutil.copytree(DATA, tmp_path / "data")
    with app_over(tmp_path) as app:
        with EmbeddedStore(tmp_path / "store", read_only=True) as reader:
            records = sorted(
                row["r"].value.removeprefix(f"{BASE}record/")
                for row in reader.query(
                    "SELECT ?r WHERE { GRAPH ?r { ?r a <https://w3id.org/claimgraph/ns#Claim> } }"
                )
            )
            copies = CopyReader(tmp_path / "store", reader.version_dir)
            assert all(copies.graph(f"{BASE}record/{r}") is not None for r in records)
        client = app.test_client()
        read_from_copies = {r: client.get(f"/record/{r}").text for r in records}
    assert len(records) > 20
    live = live_version(tmp_path / "store")
    assert live is not None
    map_path(live).unlink()  # what a version written before copies has: none
    with app_over(tmp_path) as app:
        client = app.test_client()
        read_from_store = {r: client.get(f"/record/{r}").text for r in records}
    assert read_from_copies == read_from_store


def test_a_store_without_its_copies_reads_its_indexes(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    names = [f"urn:g:{i}" for i in range(5)]
    with EmbeddedStore(store_dir) as store:
        store.replace_graphs({name: graph(name, 8) for name in names})
    (store_dir / COPIES).unlink()  # lost, or never copied with the rest
    with EmbeddedStore(store_dir, read_only=True) as store:
        assert CopyReader(store_dir, store.version_dir).graph(names[0]) is None
        assert sorted(map(str, store.graph_quads(names))) == sorted(map(str, store.quads(names)))
    with EmbeddedStore(store_dir) as store:  # the map still names the lost copies
        store.replace_graphs({names[0]: graph(names[0], 8, "2.0")})
    assert assert_copies_hold_the_store(store_dir) == 1
