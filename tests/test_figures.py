"""The figures a load counts and writes with each version (kg.store.figures): how many data
graphs the version holds, their triples and their links to other sites, which
``queries/stats.rq`` and ``/.well-known/void`` read instead of counting every quad. After
every kind of load they are what a count over the store itself gives, in each store; a
store written before they were counted gets them from its next load."""

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
from kg.rdf.linksets import read_links
from kg.store import GraphStore
from kg.store.base import SCHEMA_ENTRY
from kg.store.figures import FIGURES_GRAPH, LINKS_COUNTED, Figures
from kg.store.index import index_for
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
    return (
        (said["graphs"] and said["graphs"].value, said["triples"] and said["triples"].value),
        (counted["graphs"].value, counted["triples"].value),
    )


def links_in(store: GraphStore, base: str) -> dict[str, dict[tuple[str, str], int]]:
    """Each graph's links to other sites, counted in the store (graph-links.rq)."""
    found: dict[str, dict[tuple[str, str], int]] = {}
    for row in store.query(internal_query("graph-links").text, {"base": ox.Literal(base)}):
        found.setdefault(row["graph"].value, {})[row["property"].value, row["site"].value] = int(
            row["triples"].value
        )
    return found


def assert_counted(backend: Backend, figures_base: str = BASE) -> None:
    """The figures of ``backend``'s store (their subject under ``figures_base``) are what
    the store holds; links are counted against BASE, the base the data was loaded under."""
    with backend.open(read_only=True) as store:
        said, counted = figures(store)
        assert said == counted
        # and each graph's counts in the manifest are its own
        sizes = {
            row["graph"].value: int(row["triples"].value)
            for row in store.query(internal_query("graph-sizes").text)
        }
        manifest = {g: e for g, e in store.manifest().items() if g != SCHEMA_ENTRY}
        assert {g: e.triples for g, e in manifest.items()} == {g: sizes[g] for g in manifest}
        links = links_in(store, BASE)
        assert {
            g: {(p, s): n for p, s, n in read_links(e.links or "")} for g, e in manifest.items()
        } == {g: links.get(g, {}) for g in manifest}
        # the linksets written with the figures: every data graph's links, summed (an
        # import's lists of models and benchmarks link too)
        total: dict[tuple[str, str], int] = {}
        for graph in manifest:
            for key, n in links.get(graph, {}).items():
                total[key] = total.get(key, 0) + n
        written = Figures.read(store, figures_base)
        assert written is not None and written.links is not None
        assert {(p, s): n for p, s, n in written.links} == total


def load(backend: Backend, *paths: Path) -> None:
    with backend.open() as store:
        load_paths(store, list(paths), BASE)


def test_every_load_writes_the_figures_a_count_gives(
    sampled_copy: Path, store_backend: Backend
) -> None:
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


def test_a_store_counted_by_no_load_gets_its_figures_from_the_next(
    sampled_copy: Path, tmp_path: Path
) -> None:
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
        db.execute("ALTER TABLE manifest DROP COLUMN links")
    with open_test_store(path, read_only=True) as store:
        assert figures(store)[0] == (None, None)
        assert all(e.triples == -1 and e.links is None for e in store.manifest().values())
    said = CliRunner().invoke(main, ["--store", str(path), "--base", BASE, "stats"])
    assert said.exit_code == 0 and "run kg load" in said.stderr
    with open_test_store(path) as store:
        load_paths(store, [sampled_copy / SEED_RECORD], BASE)
    backend = Backend("embedded", path)
    assert_counted(backend)


def test_a_store_counted_before_links_were_gets_its_linksets_from_the_next_load(
    sampled_copy: Path, tmp_path: Path
) -> None:
    """A store whose figures an older load wrote: graphs and triples, no linksets, and a
    manifest without the links column. Its VoID description shows no linksets rather than
    none counted as zero, and the next load, one that changes no file, counts them."""
    path = tmp_path / "store"
    with open_test_store(path) as store:
        load_paths(store, [sampled_copy], BASE)
    [version] = [v for v in glob.glob(str(path / "v-*")) if not v.endswith(".sqlite")]
    older = ox.Store(version)
    figures_graph = ox.NamedNode(FIGURES_GRAPH)
    kept = [
        q
        for q in older.quads_for_pattern(None, None, None, figures_graph)
        if isinstance(q.subject, ox.NamedNode)
        and q.predicate != LINKS_COUNTED
        and not isinstance(q.object, ox.BlankNode)
    ]
    older.remove_graph(figures_graph)
    older.extend(kept)
    older.flush()
    del older
    with sqlite3.connect(f"{version}.manifest.sqlite") as db:
        db.execute("ALTER TABLE manifest DROP COLUMN links")
    with open_test_store(path, read_only=True) as store:
        written = Figures.read(store, BASE)
        assert written is not None and written.links is None and written.triples > 0
    with open_test_store(path) as store:
        load_paths(store, [sampled_copy / AGENT_FILE], BASE)
    assert_counted(Backend("embedded", path))


def test_the_void_partitions_and_links_are_what_the_quads_hold(
    sampled_copy: Path, store_backend: Backend, tmp_path: Path
) -> None:
    """VoID's class partitions (the internal query /.well-known/void runs) and linksets
    (the load's count) against the same figures counted in Python from the data graphs'
    quads, in each store."""
    load(store_backend, sampled_copy)
    with store_backend.open(read_only=True) as store:
        manifest = {g for g, e in store.manifest().items() if g != SCHEMA_ENTRY and e.node}
        quads = list(store.quads(sorted(manifest)))
        # links are counted in every data graph, an import's lists included
        data = {g for g in store.manifest() if g != SCHEMA_ENTRY}
        linking = list(store.quads(sorted(data)))
        classes = {
            row["class"].value: int(row["entities"].value)
            for row in store.query(internal_query("void-classes").text)
        }
        # the index's counts: its class partitions, and the uses of each vocabulary term
        # (counted by term, less the ontology's own) as the rule's query counts them
        index = index_for(store, tmp_path / "index")
        indexed = index.classes()
        uses = {
            row["term"].value: int(row["uses"].value)
            for row in store.query(internal_query("term-uses").text)
        }
        assert index.term_uses() == uses and uses
        written = Figures.read(store, BASE)
        assert written is not None and written.links is not None
        links = {(prop, site): n for prop, site, n in written.links}
    typed: dict[str, set] = {}
    counted: dict[tuple[str, str], int] = {}
    for q in quads:
        if q.predicate.value == RDF_TYPE:
            typed.setdefault(q.object.value, set()).add(q.subject)
    for q in linking:
        if (
            q.predicate.value != RDF_TYPE
            and isinstance(q.object, ox.NamedNode)
            and not q.object.value.startswith((BASE, "https://w3id.org/claimgraph/"))
        ):
            site = re.match(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*", q.object.value)
            key = (q.predicate.value, site.group() if site else q.object.value)
            counted[key] = counted.get(key, 0) + 1
    assert classes == {cls: len(nodes) for cls, nodes in typed.items()} == indexed
    assert links == counted and links  # the bundled data link to DOIs and the like


def test_a_store_loaded_again_under_another_base_keeps_one_set_of_figures(
    sampled_copy: Path, tmp_path: Path
) -> None:
    """The figures graph is named apart from the base: loading the same files under a new
    base replaces the figures, it does not leave the old ones beside them. (The unchanged
    files are not loaded again: their graphs and links keep the first base.)"""
    path = tmp_path / "store"
    for base in (BASE, "https://other.example/"):
        with open_test_store(path) as store:
            load_paths(store, [sampled_copy], base)
    with open_test_store(path, read_only=True) as store:
        assert len(list(store.query(canned_query("stats").text))) == 1
    assert_counted(Backend("embedded", path), "https://other.example/")
