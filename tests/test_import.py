"""kg import every-eval-ever on the slice data/ ships: every result one record, ids from the
paths, re-imports that change nothing, a changed file replacing its records, a file gone
removing them (with --prune), a failed load undone, and what the record page shows."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers.eee import (
    BASE,
    DATA,
    KEPT,
    ORIGIN,
    PREFIXES,
    dump,
    kept_files,
    origin_copy,
    query,
    run,
    tree,
)
from kg.model.upstream.every_eval_ever.identity import file_id, result_ids
from kg.model.upstream.jsondoc import loads, resolve


@pytest.fixture(scope="module")
def bundled(tmp_path_factory) -> Path:
    """A store of the bundled data, loaded once."""
    store = tmp_path_factory.mktemp("bundled") / "store"
    result = run(CliRunner(), store, DATA, "load")
    assert result.exit_code == 0, result.output
    return store


def test_every_shipped_result_is_one_record(bundled: Path) -> None:
    files = kept_files()
    assert files, "data/ ships a slice of Every Eval Ever"
    expected: dict[str, tuple[str, str]] = {}  # record id -> (pointer, score as written)
    for path, raw in files.items():
        doc = loads(raw)
        evaluation = file_id("every-eval-ever", path)
        names = [r["evaluation_name"] for r in doc["evaluation_results"]]
        for i, ident in enumerate(result_ids(evaluation, names)):
            score = doc["evaluation_results"][i]["score_details"]["score"]
            expected[ident] = (f"/evaluation_results/{i}/score_details/score", score.lexeme)
    rows = query(
        bundled,
        PREFIXES
        + """
        SELECT ?id ?printed ?pointer ?sha ?path WHERE {
          ?r kg:importedBy ?import ; dcterms:identifier ?id ;
             kg:reportedValue/kg:printedValue ?printed ;
             kg:locator/oa:hasSelector/rdf:value ?pointer ;
             kg:locator/oa:hasSource ?artifact .
          ?artifact spdx:checksum/spdx:checksumValue ?sha ; kg:upstreamPath ?path .
        }""",
    )
    found = {row["id"]: row for row in rows}
    assert len(rows) == len(found) == len(expected)  # one record per result, ids unique
    for ident, (pointer, printed) in expected.items():
        row = found[ident]
        assert (row["pointer"], row["printed"]) == (pointer, printed)
        raw = files[row["path"]]
        assert row["sha"] == hashlib.sha256(raw).hexdigest()
        assert resolve(loads(raw), pointer).lexeme == printed


def test_shared_nodes_are_stated_once(bundled: Path) -> None:
    """No statement is made in two graphs: the union would find it once per graph."""
    rows = query(
        bundled,
        """
        SELECT (COUNT(*) AS ?n) WHERE {
          { SELECT ?s ?p ?o (COUNT(?g) AS ?graphs) WHERE { GRAPH ?g { ?s ?p ?o } }
            GROUP BY ?s ?p ?o HAVING (COUNT(?g) > 1) } }""",
    )
    assert rows[0]["n"] == "0"
    # ... and the benchmark of a record is one node with one label.
    rows = query(
        bundled,
        PREFIXES
        + """
        SELECT ?r (COUNT(?label) AS ?labels) WHERE { ?r kg:benchmark/rdfs:label ?label }
        GROUP BY ?r HAVING (COUNT(?label) != 1)""",
    )
    assert rows == []


def test_identical_bytes_change_nothing(tmp_path: Path, runner: CliRunner) -> None:
    data, store = tmp_path / "data", tmp_path / "store"
    shutil.copytree(DATA, data)
    source = origin_copy(tmp_path / "origin", kept_files())
    assert run(runner, store, data, "load").exit_code == 0
    before, files = dump(store), tree(data)
    result = run(runner, store, data, "import", "every-eval-ever", str(source), "--origin", ORIGIN)
    assert result.exit_code == 0, result.output
    assert re.search(r"records written\s+0\b", result.stdout)
    assert tree(data) == files  # the import record included
    assert dump(store) == before


def test_a_changed_file_replaces_its_records_and_a_gone_file_removes_them(
    tmp_path: Path, runner: CliRunner
) -> None:
    data, store = tmp_path / "data", tmp_path / "store"
    shutil.copytree(DATA, data)
    files = kept_files()
    first, second = sorted(files)[:2]
    assert run(runner, store, data, "load").exit_code == 0
    assert run(runner, store, data, "release", "--date", "2026-12-01").exit_code == 0
    # A newer snapshot: the first file's first score changed, the second file gone.
    doc = json.loads(files[first])
    old = doc["evaluation_results"][0]["score_details"]["score"]
    doc["evaluation_results"][0]["score_details"]["score"] = 0.123456
    newer = {**files, first: json.dumps(doc, indent=2).encode()}
    del newer[second]
    source = origin_copy(tmp_path / "origin", newer)
    result = run(
        runner, store, data, "import", "every-eval-ever", str(source), "--origin", ORIGIN, "--prune"
    )
    assert result.exit_code == 0, result.output
    assert re.search(r"files new / changed / removed\s+0 / 1 / 1", result.stdout)
    assert not (data / "upstream" / "every-eval-ever" / second).exists()
    changed = result_ids(
        file_id("every-eval-ever", first), [r["evaluation_name"] for r in doc["evaluation_results"]]
    )[0]
    gone = result_ids(
        file_id("every-eval-ever", second),
        [r["evaluation_name"] for r in json.loads(files[second])["evaluation_results"]],
    )
    shown = run(runner, store, data, "show", changed, "--format", "nt")
    assert '"0.123456"' in shown.stdout
    for ident in gone:
        assert run(runner, store, data, "show", ident).exit_code == 1
    assert run(runner, store, data, "release", "--date", "2026-12-02").exit_code == 0
    history = run(runner, store, data, "history", changed)
    assert history.exit_code == 0, history.output
    assert "0.123456" in history.stdout and str(old) in history.stdout


def test_an_import_keeps_what_the_sources_do_not_hold(tmp_path: Path, runner: CliRunner) -> None:
    data, store = tmp_path / "data", tmp_path / "store"
    shutil.copytree(DATA, data)
    files = kept_files()
    one = sorted(files)[0]
    source = origin_copy(tmp_path / "origin", {one: files[one]})
    assert run(runner, store, data, "load").exit_code == 0
    merged = run(runner, store, data, "import", "every-eval-ever", str(source), "--origin", ORIGIN)
    assert merged.exit_code == 0, merged.output
    assert kept_files(data / "upstream" / "every-eval-ever") == files
    dry = run(
        runner,
        store,
        data,
        "import",
        "every-eval-ever",
        str(source),
        "--origin",
        ORIGIN,
        "--prune",
        "--dry-run",
    )
    assert dry.exit_code == 0
    assert re.search(rf"files new / changed / removed\s+0 / 0 / {len(files) - 1}\b", dry.stdout)
    assert kept_files(data / "upstream" / "every-eval-ever") == files  # a dry run writes nothing


def test_a_load_that_fails_puts_the_data_back(tmp_path: Path, runner: CliRunner) -> None:
    """The files check, but the load refuses them (a hand-made record holds an id an
    imported result would get): nothing of the import stays, in the data or the store."""
    data, store = tmp_path / "data", tmp_path / "store"
    shutil.copytree(DATA, data)
    shutil.rmtree(data / "upstream")
    (data / "imports" / "every-eval-ever.yaml").unlink()
    files = kept_files()
    path = sorted(files)[0]
    doc = loads(files[path])
    taken = result_ids(
        file_id("every-eval-ever", path), [r["evaluation_name"] for r in doc["evaluation_results"]]
    )[0]
    seed = next((data / "records").glob("*.yaml"))
    text = seed.read_text().replace(f"id: {seed.stem}", f"id: {taken}", 1)
    (data / "records" / f"{taken}.yaml").write_text(text)
    assert run(runner, store, data, "load").exit_code == 0
    before_files, before_store = tree(data), dump(store)
    source = origin_copy(tmp_path / "origin", {path: files[path]})
    result = run(runner, store, data, "import", "every-eval-ever", str(source), "--origin", ORIGIN)
    assert result.exit_code == 1
    assert taken in result.output and "Traceback" not in result.output
    assert tree(data) == before_files
    assert dump(store) == before_store
    assert not (data / ".kg-import-every-eval-ever").exists()


def test_a_killed_import_is_undone_by_the_next(tmp_path: Path, runner: CliRunner) -> None:
    data, store = tmp_path / "data", tmp_path / "store"
    shutil.copytree(DATA, data)
    files = tree(data)
    # What a killed import leaves: a file moved aside, another added, the journal.
    journal = data / ".kg-import-every-eval-ever"
    record = data / "imports" / "every-eval-ever.yaml"
    (journal / "backup" / "imports").mkdir(parents=True)
    record.rename(journal / "backup" / "imports" / "every-eval-ever.yaml")
    (data / "upstream" / "every-eval-ever" / "stray.json").write_text("{}")
    (journal / "added.txt").write_text("upstream/every-eval-ever/stray.json\n")
    source = origin_copy(tmp_path / "origin", kept_files())
    result = run(
        runner,
        store,
        data,
        "import",
        "every-eval-ever",
        str(source),
        "--origin",
        ORIGIN,
        "--dry-run",
    )
    assert result.exit_code == 0, result.output
    assert journal.exists()  # a dry run touches nothing, the journal included
    result = run(runner, store, data, "import", "every-eval-ever", str(source), "--origin", ORIGIN)
    assert result.exit_code == 0, result.output
    assert tree(data) == files
    assert not journal.exists()


def test_another_origin_needs_another_name(tmp_path: Path, runner: CliRunner) -> None:
    data, store = tmp_path / "data", tmp_path / "store"
    shutil.copytree(DATA, data)
    source = origin_copy(tmp_path / "origin", kept_files())
    result = run(
        runner,
        store,
        data,
        "import",
        "every-eval-ever",
        str(source),
        "--origin",
        "someone/fork@abcdef1",
    )
    assert result.exit_code == 2
    assert "--name" in result.output


def test_the_record_page_shows_the_import(bundled: Path) -> None:
    from kg.web import create_app

    [row] = query(
        bundled,
        PREFIXES
        + """
        SELECT ?id WHERE { ?r a kg:Claim ; kg:importedBy ?i ; dcterms:identifier ?id }
        ORDER BY ?id LIMIT 1""",
    )
    app = create_app({"store": bundled, "base": BASE, "data": DATA})
    page = app.test_client().get(f"/record/{row['id']}").get_data(as_text=True)
    section = page[page.index('id="imported"') : page.index('id="reproduction"')]
    facts = query(
        bundled,
        PREFIXES
        + f"""
        SELECT ?model ?bench ?source ?sha ?pointer ?path WHERE {{
          ?r dcterms:identifier "{row["id"]}" ; kg:evaluatedModel ?model ; kg:benchmark ?bench ;
             prov:wasQuotedFrom ?source ; kg:locator ?l .
          ?l oa:hasSource ?a ; oa:hasSelector/rdf:value ?pointer .
          ?a spdx:checksum/spdx:checksumValue ?sha ; kg:upstreamPath ?path }}""",
    )[0]
    for iri in (facts["model"], facts["bench"], facts["source"]):
        assert f'href="/{iri.removeprefix(BASE)}"' in section
    assert 'href="/import/every-eval-ever"' in section
    for text in (facts["sha"], facts["pointer"], facts["path"]):
        assert text in section


def test_the_index_offers_the_import_facets(bundled: Path) -> None:
    from kg.web import create_app

    app = create_app({"store": bundled, "base": BASE, "data": DATA})
    page = app.test_client().get("/records").get_data(as_text=True)
    for facet in ("source", "evaluator", "benchmark", "developer"):
        assert f'data-facet="{facet}"' in page
    listing = app.test_client().get("/records.json?developer=openai").get_json()
    assert listing["total"] > 0
    assert all(row["developer"] == "openai" for row in listing["rows"])


def test_the_nquads_of_kept_files_are_what_pyoxigraph_writes() -> None:
    """Imported literals (JSON remainders with quotes and escapes, numbers, URLs) written
    by the ingest's own N-Quads writer are byte for byte what pyoxigraph writes."""
    import pyoxigraph as ox

    from kg.model.datafiles import read_data_file
    from kg.model.mapping import map_file
    from kg.rdf.terms import nquads, to_quads

    for path in sorted(KEPT.rglob("*.json"))[:6]:
        mapped = map_file(read_data_file(path), BASE)
        for graph, _, triples in mapped.graphs():
            written, _ = nquads(triples, str(graph))
            expected = ox.serialize(
                list(to_quads(triples, str(graph))), format=ox.RdfFormat.N_QUADS
            )
            assert written == expected
