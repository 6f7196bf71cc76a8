"""The figures a load counts and writes with each version (kg.store.figures): how many data
graphs the version holds and their triples, which ``queries/stats.rq`` reads instead of
counting every quad. After every kind of load they are what a count over the store
itself gives, in each store; a store written before graphs were counted gets them from
its next load."""

from __future__ import annotations

import glob
import re
import sqlite3
from pathlib import Path

import pyoxigraph as ox
from click.testing import CliRunner

from helpers import AGENT_FILE, BASE, SEED_RECORD, open_test_store
from helpers.servers import Backend
from kg.cli import main
from kg.store import GraphStore
from kg.store.base import SCHEMA_ENTRY
from kg.store.figures import FIGURES_GRAPH
from kg.store.load import load_paths
from kg.store.queries import canned_query, internal_query

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
#: The figures counted over the store: the graphs that type their own name, and their
#: triples (what queries/stats.rq counted before the load wrote them).
COUNTED = """SELECT ?graphs ?triples WHERE {
  { SELECT (COUNT(?g) AS ?graphs) WHERE { { SELECT DISTINCT ?g WHERE { GRAPH ?g { ?g a ?t } } } } }
  { SELECT (COUNT(*) AS ?triples) WHERE {
      { SELECT DISTINCT ?g WHERE { GRAPH ?g { ?g a ?t } } } GRAPH ?g { ?s ?p ?o } } }
}"""


def figures(store: GraphStore) -> tuple[tuple[str | None, str | None], tuple[str, str]]:
    """(what the stats query says, what a count over the store says)."""
    [said] = list(store.query(canned_query("stats").text))
    [counted] = list(store.query(COUNTED))
    return ((said["graphs"] and said["graphs"].value, said["triples"] and said["triples"].value),
            (counted["graphs"].value, counted["triples"].value))


def assert_counted(backend: Backend) -> None:
    with backend.open(read_only=True) as store:
        said, counted = figures(store)
        assert said == counted
        # and each graph's count in the manifest is its own
        sizes = {row["graph"].value: int(row["triples"].value)
                 for row in store.query(internal_query("graph-sizes").text)}
        manifest = {g: e.triples for g, e in store.manifest().items() if g != SCHEMA_ENTRY}
        assert manifest == {g: sizes[g] for g in manifest}


def load(backend: Backend, *paths: Path) -> None:
    with backend.open() as store:
        load_paths(store, list(paths), BASE)


def test_every_load_writes_the_figures_a_count_gives(sampled_copy: Path,
                                                    store_backend: Backend) -> None:
    load(store_backend, sampled_copy)
    assert_counted(store_backend)
    # a file added, then one changed alone (a longer note: the same graphs, more text),
    # then a field more, then the added file deleted (a full reload drops its graph)
    extra = sampled_copy / "agents" / "second.yaml"
    extra.write_text("kind: agent\nid: second\nagent_type: person\nlabel: A second agent\n")
    load(store_backend, sampled_copy)
    assert_counted(store_backend)
    with store_backend.open(read_only=True) as store:
        before = figures(store)[0]
    extra.write_text(extra.read_text() + "homepage: https://example.org/second\n")
    load(store_backend, extra)
    assert_counted(store_backend)
    with store_backend.open(read_only=True) as store:
        after = figures(store)[0]
    assert after[0] == before[0] and int(after[1]) == int(before[1]) + 1
    extra.unlink()
    load(store_backend, sampled_copy)
    assert_counted(store_backend)
    # a load that changes nothing leaves them as they are
    load(store_backend, sampled_copy / AGENT_FILE)
    assert_counted(store_backend)


def test_a_store_counted_by_no_load_gets_its_figures_from_the_next(sampled_copy: Path,
                                                                  tmp_path: Path) -> None:
    """A store written before loads counted graphs: no figures graph, a manifest without
    the counts. The stats query leaves graphs and triples unbound (nothing made up), and
    the next load, even one that changes no file, counts them."""
    path = tmp_path / "store"
    with open_test_store(path) as store:
        load_paths(store, [sampled_copy], BASE)
    [version] = [v for v in glob.glob(str(path / "v-*")) if not v.endswith(".sqlite")]
    older = ox.Store(version)  # made as an older claimgraph left it
    older.remove_graph(ox.NamedNode(FIGURES_GRAPH))
    older.flush()
    del older
    with sqlite3.connect(f"{version}.manifest.sqlite") as db:
        db.execute("ALTER TABLE manifest DROP COLUMN triples")
        db.execute("ALTER TABLE manifest DROP COLUMN node")
    with open_test_store(path, read_only=True) as store:
        assert figures(store)[0] == (None, None)
        assert all(e.triples == -1 for e in store.manifest().values())
    said = CliRunner().invoke(main, ["--store", str(path), "--base", BASE, "stats"])
    assert said.exit_code == 0 and "run kg load" in said.stderr
    with open_test_store(path) as store:
        load_paths(store, [sampled_copy / SEED_RECORD], BASE)
    backend = Backend("embedded", path)
    assert_counted(backend)


def test_the_void_partitions_and_links_are_what_the_quads_hold(sampled_copy: Path,
                                                               store_backend: Backend) -> None:
    """VoID's class partitions and linksets (the two internal queries /.well-known/void
    reads) against the same figures counted in Python from the data graphs' quads, in
    each store."""
    load(store_backend, sampled_copy)
    with store_backend.open(read_only=True) as store:
        manifest = {g for g, e in store.manifest().items() if g != SCHEMA_ENTRY and e.node}
        quads = list(store.quads(sorted(manifest)))
        classes = {row["class"].value: int(row["entities"].value)
                   for row in store.query(internal_query("void-classes").text)}
        links = {(row["property"].value, row["site"].value): int(row["triples"].value)
                 for row in store.query(internal_query("void-links").text,
                                        {"base": ox.Literal(BASE)})}
    typed: dict[str, set] = {}
    counted: dict[tuple[str, str], int] = {}
    for q in quads:
        if q.predicate.value == RDF_TYPE:
            typed.setdefault(q.object.value, set()).add(q.subject)
        elif isinstance(q.object, ox.NamedNode) and not q.object.value.startswith(
                (BASE, "https://w3id.org/claimgraph/")):
            site = re.match(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*", q.object.value)
            key = (q.predicate.value, site.group() if site else q.object.value)
            counted[key] = counted.get(key, 0) + 1
    assert classes == {cls: len(nodes) for cls, nodes in typed.items()}
    assert links == counted and links  # the bundled data link to DOIs and the like


def test_a_store_loaded_again_under_another_base_keeps_one_set_of_figures(
        sampled_copy: Path, tmp_path: Path) -> None:
    """The figures graph is named apart from the base: loading the same files under a new
    base replaces the figures, it does not leave the old ones beside them."""
    path = tmp_path / "store"
    for base in (BASE, "https://other.example/"):
        with open_test_store(path) as store:
            load_paths(store, [sampled_copy], base)
    with open_test_store(path, read_only=True) as store:
        assert len(list(store.query(canned_query("stats").text))) == 1
    assert_counted(Backend("embedded", path))
