"""kg release, kg diff, kg history: releases of a real on-disk store, through the CLI."""

from __future__ import annotations

import gzip
import json
import shutil
from collections import defaultdict
from pathlib import Path

import pyoxigraph as ox
import pytest

from helpers import (
    BASE,
    NEW_HARDWARE,
    OLD_HARDWARE,
    RUNS,
    SAMPLE_GRAPHS,
    SEED_ID,
    SEED_RECORD,
    SEED_SOURCE,
)
from kg.cli import main
from kg.model.validation import shapes_graph
from kg.rdf.canonical import graph_version
from kg.rdf.vocabulary import load_terms
from kg.release.build import check_release_node, release_triples
from kg.store.archive import Archive
from kg.store.queries import canned_query

SEED_GRAPH = f"{BASE}record/{SEED_ID}"


@pytest.fixture
def kg(runner, sampled_copy: Path, monkeypatch):
    """kg in a fresh directory holding data/ (a kept file of each origin folder); store
    .kg/store, archive .kg/store-archive."""
    monkeypatch.chdir(sampled_copy.parent)
    for name in ("KG_STORE", "KG_DATA", "KG_ARCHIVE"):
        monkeypatch.delenv(name, raising=False)

    def run(*args: str, code: int = 0):
        result = runner.invoke(main, list(args))
        assert result.exit_code == code, result.output
        return result

    return run


def change_hardware(data: Path) -> None:
    path = data / SEED_RECORD
    text = path.read_text()
    assert OLD_HARDWARE in text
    path.write_text(text.replace(OLD_HARDWARE, NEW_HARDWARE))


def test_release_twice_gives_the_same_id(kg) -> None:
    kg("load")
    first = kg("release", "--date", "2026-12-01", "--note", "first")
    ident = first.stdout.strip()
    assert ident.startswith("2026-12-01-") and len(ident) == len("2026-12-01-") + 12
    assert f"released {ident}: {SAMPLE_GRAPHS} graph(s)" in first.stderr
    again = kg("release", "--date", "2026-12-01")
    assert again.stdout.strip() == ident
    assert "nothing changed" in again.stderr
    # Unchanged content on another day is still that release.
    assert kg("release", "--date", "2026-12-09").stdout.strip() == ident
    assert kg("releases").stdout.splitlines() == [f"{ident}  2026-12-01  first"]


def test_a_changed_value_makes_a_new_release_and_diff_names_it(kg, sampled_copy: Path) -> None:
    kg("load")
    old = kg("release", "--date", "2026-12-01").stdout.strip()
    change_hardware(sampled_copy)
    kg("load")
    new = kg("release", "--date", "2026-12-02").stdout.strip()
    assert new != old and new.startswith("2026-12-02-")

    diff = kg("diff", old, new)
    lines = diff.stdout.splitlines()
    assert len(lines) == 3, diff.stdout
    assert lines[0].startswith(f"changed record {SEED_ID} (")
    assert lines[1] == f'  - kg:hardwareAsReported = "{OLD_HARDWARE}"'
    assert lines[2] == f'  + kg:hardwareAsReported = "{NEW_HARDWARE}"'
    assert "1 changed, 0 added, 0 removed" in diff.stderr
    assert kg("diff", old, new, "--brief").stdout.splitlines() == lines[:1]
    # and back again: the statements swap sides
    assert (
        kg("diff", new, old).stdout.splitlines()[1]
        == f'  - kg:hardwareAsReported = "{NEW_HARDWARE}"'
    )

    history = kg("history", SEED_ID).stdout.splitlines()
    assert history[0].startswith(f"{old}  ") and history[0].endswith("  added")
    assert history[1].startswith(f"{new}  ") and history[1].endswith("  changed")
    assert history[2:] == [
        f'    - kg:hardwareAsReported = "{OLD_HARDWARE}"',
        f'    + kg:hardwareAsReported = "{NEW_HARDWARE}"',
    ]

    # The past stays queryable: the old release holds the old value, the live store the new.
    query = "SELECT ?h WHERE { ?r <https://w3id.org/claimgraph/ns#hardwareAsReported> ?h }"
    assert OLD_HARDWARE in kg("query", query, "--release", old, "-f", "csv").stdout
    assert NEW_HARDWARE in kg("query", query, "-f", "csv").stdout
    assert OLD_HARDWARE in kg("show", SEED_ID, "--release", old, "-f", "nt").stdout


def test_the_history_of_a_source_has_no_standing_line(kg, sampled_copy: Path) -> None:
    """Any kind of graph has a history; only a record's shows a standing (a source has
    none). This command once ended in a traceback (HistoryEntry had no standing)."""
    kg("load")
    old = kg("release", "--date", "2026-12-01").stdout.strip()
    source = sampled_copy / SEED_SOURCE
    source.write_text(source.read_text().replace("\ntitle: ", "\ntitle: Revised ", 1))
    kg("load")
    new = kg("release", "--date", "2026-12-02").stdout.strip()
    ident = SEED_SOURCE.removeprefix("sources/").removesuffix(".yaml")
    lines = kg("history", "--kind", "source", ident).stdout.splitlines()
    assert lines[0].startswith(f"{old}  ") and lines[0].endswith("  added")
    assert lines[1].startswith(f"{new}  ") and lines[1].endswith("  changed")
    assert any(line.startswith('    + dcterms:title = "Revised ') for line in lines[2:]), lines
    assert not any("standing" in line for line in lines)


def test_added_and_removed_graphs(kg, sampled_copy: Path) -> None:
    kg("load")
    old = kg("release", "--date", "2026-12-01").stdout.strip()
    (sampled_copy / "agents" / "claimgraph-runner.yaml").rename(sampled_copy / "runner.yaml.off")
    for run in (sampled_copy / "runs").glob("*.yaml"):
        run.unlink()  # runs name the runner agent: they go with it
    extra = sampled_copy / "evaluations" / "copy.yaml"
    source = next((sampled_copy / "evaluations").glob("*.yaml")).read_text()
    extra.write_text(source.replace("id: nt-2-5b-training", "id: copy-nt-2-5b-training", 1))
    kg("load")
    new = kg("release", "--date", "2026-12-02").stdout.strip()
    lines = kg("diff", old, new).stdout.splitlines()
    assert "added evaluation copy-nt-2-5b-training-peak-memory-stage-deepspeed" in lines
    assert "removed agent claimgraph-runner" in lines
    assert sum(1 for line in lines if line.startswith("removed activity ")) == RUNS


def test_the_release_is_kept_with_its_node_dump_and_manifest(kg) -> None:
    kg("load")
    ident = kg("release", "--date", "2026-12-01", "--note", "a note").stdout.strip()
    folder = Path(".kg/store-archive/releases") / ident
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["id"] == ident and manifest["note"] == "a note"
    assert len(manifest["graphs"]) == SAMPLE_GRAPHS and manifest["previous"] is None

    # The dump gives back every graph version: each hashes to its manifest entry, and the
    # lexical forms are those the files wrote (the store would write "6"^^xsd:integer).
    by_graph: dict[str, list[ox.Quad]] = defaultdict(list)
    with gzip.open(folder / "dump.nq.gz") as dump:
        for quad in ox.parse(dump, ox.RdfFormat.N_QUADS):
            by_graph[quad.graph_name.value].append(quad)
    assert {g: graph_version(q).hash for g, q in by_graph.items()} == manifest["graphs"]
    page = ox.Literal(
        "6", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#positiveInteger")
    )
    assert any(q.object == page for q in by_graph[SEED_GRAPH])
    import hashlib

    assert (
        hashlib.sha256((folder / "dump.nq.gz").read_bytes()).hexdigest()
        == manifest["dump"]["sha256"]
    )

    # The release node: a prov:Bundle and dcat:Dataset with its members and their hashes.
    node = ox.Store()
    node.load(path=str(folder / "release.ttl"), format=ox.RdfFormat.TURTLE)
    prefixes = (
        "PREFIX prov: <http://www.w3.org/ns/prov#> PREFIX dcat: <http://www.w3.org/ns/dcat#> "
        "PREFIX dcterms: <http://purl.org/dc/terms/> PREFIX kg: <https://w3id.org/claimgraph/ns#> "
    )
    assert node.query(
        prefixes + f"ASK {{ <{BASE}release/{ident}> a prov:Bundle, dcat:Dataset ; "
        'dcterms:issued "2026-12-01"^^<http://www.w3.org/2001/XMLSchema#date> ; '
        'dcterms:description "a note" }'
    )
    members = {
        row["g"].value: row["h"].value
        for row in node.query(
            prefixes
            + "SELECT ?g ?h { ?r dcterms:hasPart [ prov:specializationOf ?g ; kg:graphHash ?h ] }"
        )
    }
    assert members == manifest["graphs"]


def test_the_release_node_passes_the_shapes(kg) -> None:
    """Checked by pyshacl (the reference) too; a broken node fails both."""
    from pyshacl import validate
    from rdflib import Graph, Literal

    from kg.rdf.namespaces import DCTERMS

    kg("load")
    ident = kg("release", "--date", "2026-12-01").stdout.strip()
    with Archive(Path(".kg/store-archive")) as archive:
        info = archive.release(ident)
        hashes = archive.manifest(ident)["graphs"]
    triples = release_triples(
        BASE, "2026-12-08-0123456789ab", "2026-12-08", "", info, info.sha256, hashes
    )
    check_release_node(triples, info)  # raises when it does not conform

    def pyshacl_conforms(triples) -> bool:
        data = Graph()
        for t in triples:
            data.add(t)
        data.parse(Path(".kg/store-archive/releases") / ident / "release.ttl")  # the previous
        data += load_terms().graph
        conforms, _, _ = validate(data, shacl_graph=shapes_graph(), advanced=True)
        return conforms

    assert pyshacl_conforms(triples)
    broken = [t if t[1] != DCTERMS.issued else (t[0], t[1], Literal("2026-12-08")) for t in triples]
    assert not pyshacl_conforms(broken)
    from kg.errors import ReleaseError

    with pytest.raises(ReleaseError) as failed:
        check_release_node(broken, info)
    assert any("issued" in line for line in failed.value.lines())


def test_same_content_same_id_anywhere(kg, sampled_copy: Path, tmp_path: Path) -> None:
    """Another copy of the data, another store and archive (other paths, other blank-node
    labels): the same id."""
    kg("load")
    here = kg("release", "--date", "2026-12-01").stdout.strip()
    other = tmp_path / "elsewhere"
    shutil.copytree(sampled_copy, other / "data")
    kg("--store", str(other / "store"), "--data", str(other / "data"), "load")
    there = kg("--store", str(other / "store"), "release", "--date", "2026-12-01").stdout.strip()
    assert there == here
    assert (other / "store-archive" / "releases" / there).is_dir()


def test_refusals(kg, sampled_copy: Path) -> None:
    assert "no store at" in kg("release", code=1).stderr
    Path("empty").mkdir()
    kg("load", "empty")  # a store with the ontology and no data
    empty = kg("release", code=1)
    assert "nothing to release" in empty.stderr and empty.stdout == ""
    kg("load")
    assert "takes a date as YYYY-MM-DD" in kg("release", "--date", "2026-02-30", code=2).stderr
    # A file changed since it was loaded, whose version the archive does not hold yet.
    change_hardware(sampled_copy)
    stale = kg("release", code=1)
    assert (
        f"records/{SEED_ID}.yaml: changed since it was loaded (run 'kg load' first)" in stale.stderr
    )
    assert "nothing was released" in stale.stderr and "Traceback" not in stale.output
    assert not Path(".kg/store-archive/releases").exists() or not any(
        Path(".kg/store-archive/releases").iterdir()
    )
    kg("load")
    ident = kg("release").stdout.strip()
    assert "no release" in kg("diff", ident, "2026-01-01-000000000000", code=1).stderr
    assert "no release" in kg("diff", ident, "../../etc", code=1).stderr
    assert "no release holds record 'nope'" in kg("history", "nope", code=1).stderr
    assert (
        "no release" in kg("query", "stats", "--release", "2026-01-01-000000000000", code=1).stderr
    )


def test_the_upstream_release_is_not_ours(kg) -> None:
    """The seed names the source registry's release 2026-10-22-1b7cf027e4f6: it stays that
    registry's, never one of claimgraph's releases."""
    kg("load")
    ident = kg("release").stdout.strip()
    assert ident != "2026-10-22-1b7cf027e4f6"
    assert kg("releases").stdout.split()[0] == ident
    assert (
        "no release" in kg("query", "stats", "--release", "2026-10-22-1b7cf027e4f6", code=1).stderr
    )
    shown = kg("show", SEED_ID, "-f", "nt").stdout
    assert '<https://w3id.org/claimgraph/ns#upstreamRelease> "2026-10-22-1b7cf027e4f6"' in shown


def test_the_documented_verification_holds(kg, monkeypatch) -> None:
    """docs/releases.md's snippet verifies a release from its dump with pyoxigraph alone."""
    import re

    from helpers import ROOT

    kg("load")
    ident = kg("release").stdout.strip()
    [snippet] = re.findall(
        r"```python\n(.*?)```", (ROOT / "docs" / "releases.md").read_text(), flags=re.S
    )
    monkeypatch.chdir(Path(".kg/store-archive/releases") / ident)
    scope: dict = {}
    exec(snippet, scope)
    assert len(scope["hashes"]) == SAMPLE_GRAPHS
    from kg.rdf.canonical import content_hash

    assert ident.endswith(content_hash(scope["hashes"].values())[:12])


def test_a_release_holds_what_the_store_holds(kg) -> None:
    """The graph versions a release maps again from the files are the ones kg load wrote
    (compared once both have passed through an Oxigraph store, which writes some literals
    its own way), and the release's own store holds them too."""
    from kg.rdf.canonical import canonical_nquads
    from kg.store import EmbeddedStore

    kg("load")
    ident = kg("release").stdout.strip()
    folder = Path(".kg/store-archive/releases") / ident
    dumped = ox.Store()
    dumped.load(gzip.decompress((folder / "dump.nq.gz").read_bytes()), ox.RdfFormat.N_QUADS)
    graphs = json.loads((folder / "manifest.json").read_text())["graphs"]
    with (
        EmbeddedStore(Path(".kg/store"), read_only=True) as live,
        EmbeddedStore(folder / "store", read_only=True) as released,
    ):
        for graph in graphs:
            expected = canonical_nquads(live.quads([graph]))
            assert (
                canonical_nquads(dumped.quads_for_pattern(None, None, None, ox.NamedNode(graph)))
                == expected
            )
            assert canonical_nquads(released.quads([graph])) == expected


def test_releases_of_either_store(
    kg, store_backend, sampled_copy: Path, tmp_path: Path, monkeypatch
) -> None:
    """The embedded store and a remote one (oxigraph serve, Virtuoso) give the same ids; a
    release of a remote one gets its queryable copy from its dump."""
    for name, value in store_backend.environment().items():
        if name != "KG_STORE":  # a remote store's endpoints; the embedded one ignores them
            monkeypatch.setenv(name, value)
    where = ["--store", str(store_backend.store), "--archive", str(tmp_path / "archive")]
    kg(*where, "load")
    old = kg(*where, "release", "--date", "2026-12-01").stdout.strip()
    # the release's copy has the figures the load counted (a remote store's copy, built
    # from the dump, is given them)
    figures = [
        json.loads(kg(*where, *command, "-f", "json").stdout)["results"]["bindings"][0]
        for command in (["stats"], ["query", canned_query("stats").text, "--release", old])
    ]
    assert figures[0]["triples"] == figures[1]["triples"] and "graphs" in figures[1]
    kg("load")  # the embedded store of the fixture's directory, for comparison
    assert kg("release", "--date", "2026-12-01").stdout.strip() == old
    change_hardware(sampled_copy)
    kg(*where, "load")
    new = kg(*where, "release", "--date", "2026-12-02").stdout.strip()
    assert kg(*where, "diff", old, new).stdout.splitlines()[1:] == [
        f'  - kg:hardwareAsReported = "{OLD_HARDWARE}"',
        f'  + kg:hardwareAsReported = "{NEW_HARDWARE}"',
    ]
    query = "SELECT ?h WHERE { ?r <https://w3id.org/claimgraph/ns#hardwareAsReported> ?h }"
    assert OLD_HARDWARE in kg(*where, "query", query, "--release", old, "-f", "csv").stdout
    assert NEW_HARDWARE in kg(*where, "query", query, "-f", "csv").stdout


def test_a_record_citation_names_the_newest_release_holding_it(kg, sampled_copy: Path) -> None:
    def cited() -> dict:
        return json.loads(kg("export", SEED_ID, "--format", "csl-json").stdout)[-1]

    kg("load")
    assert "version" not in cited()  # before any release
    old = kg("release", "--date", "2026-12-01").stdout.strip()
    record = cited()
    assert record["version"] == old and record["issued"] == {"date-parts": [[2026, 12, 1]]}
    assert f"version = {{{old}}}" in kg("export", SEED_ID, "--format", "bibtex").stdout
    assert f"ET  - {old}" in kg("export", SEED_ID, "--format", "ris").stdout
    change_hardware(sampled_copy)
    kg("load", str(sampled_copy))
    assert cited()["version"] == old  # the change is in no release yet
    new = kg("release", "--date", "2026-12-02").stdout.strip()
    assert new != old and cited()["version"] == new
    # A source is cited alone, with no registry version.
    source = json.loads(
        kg("export", "saadat-fellay-2026-genomic-lm-efficiency", "--format", "csl-json").stdout
    )
    assert all("version" not in item for item in source)
