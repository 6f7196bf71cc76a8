"""The store commands end to end through the CLI: stdout carries results, stderr messages.

Tests taking the ``kg`` fixture run against both stores: the embedded one (the default
.kg/store) and a remote one (a real `oxigraph serve`, named by KG_STORE)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyoxigraph as ox
import pytest

from helpers import (
    AGENTS,
    BASE,
    RUNS,
    SAMPLE_FILES,
    SAMPLE_NODE_GRAPHS,
    SAMPLE_RECORDS,
    SEED_ID,
    SEED_SOURCE,
    SOURCES,
    WRITTEN,
)
from helpers.servers import Backend, free_port
from kg.cli import main


@pytest.fixture
def kg(runner, sampled_copy: Path, monkeypatch, store_backend: Backend):
    """Run kg in a fresh directory holding data/, with the embedded store where it is by
    default (.kg/store) or the remote store named by KG_STORE."""
    monkeypatch.chdir(sampled_copy.parent)
    monkeypatch.delenv("KG_DATA", raising=False)
    if store_backend.name == "embedded":
        assert store_backend.store == sampled_copy.parent / ".kg" / "store"
        monkeypatch.delenv("KG_STORE", raising=False)
    else:
        for name, value in store_backend.environment().items():
            monkeypatch.setenv(name, value)

    def run(*args: str):
        return runner.invoke(main, list(args))

    run.backend = store_backend
    return run


@pytest.fixture
def kg_embedded(runner, sampled_copy: Path, monkeypatch):
    """kg with the embedded store only, for what only it does."""
    monkeypatch.chdir(sampled_copy.parent)
    monkeypatch.delenv("KG_STORE", raising=False)
    monkeypatch.delenv("KG_DATA", raising=False)
    return lambda *args: runner.invoke(main, list(args))


def test_load_then_query(kg) -> None:
    loaded = kg("load")
    assert loaded.exit_code == 0, loaded.output
    assert loaded.stdout == ""
    assert loaded.stderr.startswith(f"kg: loaded {SAMPLE_FILES} of {SAMPLE_FILES} file(s), ")
    assert Path(".kg/store").is_dir() == (kg.backend.name == "embedded")

    result = kg("query", "results-for-model", "--param", "model=NT 2.5B", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = {row["id"]: row for row in csv.DictReader(io.StringIO(result.stdout))}
    # the model's records are the two claimgraph wrote; the imported results name others
    assert len(rows) == WRITTEN and rows[SEED_ID]["printed"] == "11.49"

    table = kg("query", "results-for-model", "-p", "model=NT 2.5B")
    assert "11.49" in table.stdout and f"({WRITTEN} rows)" in table.stdout

    raw = kg(
        "query",
        "SELECT (COUNT(*) AS ?n) WHERE { ?s a <https://w3id.org/claimgraph/ns#Claim> }",
        "--format",
        "json",
    )
    assert json.loads(raw.stdout)["results"]["bindings"][0]["n"]["value"] == str(SAMPLE_RECORDS)


def test_query_from_a_file_with_params(kg, tmp_path: Path) -> None:
    kg("load")
    rq = tmp_path / "by-title.rq"
    rq.write_text(
        "# title: Sources by title\n# description: d\n# param: title (literal) t\n"
        "SELECT ?title ?s WHERE { ?s <http://purl.org/dc/terms/title> ?title }\n"
    )
    title = "Optimizing genomic language models for efficient training, fine-tuning, and inference"
    result = kg("query", str(rq), "-p", f"title={title}", "-f", "tsv")
    assert result.exit_code == 0, result.output
    assert f"{BASE}source/saadat-fellay-2026-genomic-lm-efficiency" in result.stdout


def test_query_errors(kg) -> None:
    kg("load")
    unknown = kg("query", "no-such-query")
    assert unknown.exit_code == 1 and "no canned query named 'no-such-query'" in unknown.stderr
    missing = kg("query", "results-for-model")
    assert missing.exit_code == 2 and "needs --param model=" in missing.stderr
    bad = kg("query", "SELECT WHERE {")
    assert bad.exit_code == 1 and "not a valid SPARQL query" in bad.stderr
    assert "Traceback" not in bad.output
    assert kg("query", "SELECT * WHERE { ?s ?p ?o }", "-p", "a=b").exit_code == 2
    assert kg("query", "x", "--format", "yaml").exit_code == 2


def test_query_without_a_store(kg_embedded) -> None:
    result = kg_embedded("query", "stats")
    assert result.exit_code == 1
    where = Path.cwd() / ".kg" / "store"  # the default, under the working directory
    assert f"no store at {where} (run 'kg load' to create it)" in result.stderr


def test_an_unreachable_remote_store_is_a_clear_error(kg_embedded) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    for args in (["stats"], ["load"], ["show", SEED_ID]):
        result = kg_embedded("--store", url, *args)
        assert result.exit_code == 1, args
        assert result.stderr == (
            f"kg: error: cannot reach the SPARQL store at {url}/query (connection refused)\n"
        )


def test_show_prints_the_closure(kg) -> None:
    kg("load")
    result = kg("show", SEED_ID, "--format", "nq")
    assert result.exit_code == 0, result.output
    quads = list(ox.parse(result.stdout_bytes, ox.RdfFormat.N_QUADS))
    graphs = {q.graph_name.value for q in quads}
    expected = {
        f"{BASE}record/{SEED_ID}",
        f"{BASE}source/saadat-fellay-2026-genomic-lm-efficiency",
        f"{BASE}agent/claude",
        f"{BASE}agent/claimgraph-runner",
        f"{BASE}evaluation/nt-2-5b-training-peak-memory-stage-deepspeed",
    }
    runs = {g for g in graphs if g.startswith(f"{BASE}activity/nt-peak-memory-")}
    assert graphs == expected | runs and len(runs) == RUNS
    turtle = kg("show", SEED_ID)
    assert "@prefix kg: <https://w3id.org/claimgraph/ns#>" in turtle.stdout
    triples = list(ox.parse(turtle.stdout_bytes, ox.RdfFormat.TURTLE))
    assert len(triples) == len({q.triple for q in quads})
    jsonld = kg("show", SEED_ID, "--format", "jsonld")
    assert len(list(ox.parse(jsonld.stdout_bytes, ox.RdfFormat.JSON_LD))) == len(quads)


def test_show_includes_reviews_and_runs_about_the_record(kg, sampled_copy: Path) -> None:
    (sampled_copy / "reviews").mkdir(exist_ok=True)
    review = sampled_copy / "reviews" / "r1.yaml"
    review.write_text(
        f"kind: review\nid: r1\nrecord: {SEED_ID}\nsource: saadat-fellay-2026-genomic-lm-efficiency\n"
        "agent: verifier\nrole: verifier\nreviewed_at: '2026-11-30T09:00:00Z'\n"
        "methods: [source-hash-verification]\n"
        "artifact_sha256: 4bc2452110f280a7ba8baa4c7c28beac89769511019666bc77fc33af9b3bcd60\n"
    )
    (sampled_copy / "agents" / "verifier.yaml").write_text(
        "kind: agent\nid: verifier\nagent_type: software\nlabel: claimgraph verifier\n"
    )
    assert kg("load").exit_code == 0
    result = kg("show", SEED_ID, "--format", "nq")
    graphs = {q.graph_name.value for q in ox.parse(result.stdout_bytes, ox.RdfFormat.N_QUADS)}
    assert f"{BASE}activity/r1" in graphs and f"{BASE}agent/verifier" in graphs


def test_show_unknown_record(kg) -> None:
    kg("load")
    result = kg("show", "nothing-here")
    assert result.exit_code == 1
    assert result.stderr.strip() == "kg: error: no record with id 'nothing-here'"


def test_stats(kg) -> None:
    kg("load")
    result = kg("stats", "--format", "json")
    counts = {k: v["value"] for k, v in json.loads(result.stdout)["results"]["bindings"][0].items()}
    assert counts["records"] == str(SAMPLE_RECORDS) and counts["graphs"] == str(SAMPLE_NODE_GRAPHS)
    assert counts["runs"] == str(RUNS)


def test_invalid_load_exits_1_and_changes_nothing(kg, sampled_copy: Path) -> None:
    assert kg("load").exit_code == 0
    before = kg("show", SEED_ID, "--format", "nq").stdout
    source = sampled_copy / SEED_SOURCE
    source.write_text(source.read_text().replace("4bc2452110f2", "XXXX"))
    result = kg("load")
    assert result.exit_code == 1
    assert "artifact.sha256: not a SHA-256" in result.stderr
    assert result.stderr.rstrip().endswith("nothing was loaded; the store is unchanged")
    assert kg("show", SEED_ID, "--format", "nq").stdout == before


def test_store_setting(kg_embedded, tmp_path: Path, monkeypatch) -> None:
    elsewhere = tmp_path / "elsewhere"
    assert kg_embedded("--store", str(elsewhere), "load").exit_code == 0
    assert elsewhere.is_dir()
    monkeypatch.setenv("KG_STORE", str(elsewhere))
    assert kg_embedded("stats").exit_code == 0


def test_store_url_setting(kg_embedded, remote_backend: Backend) -> None:
    url = str(remote_backend.store)
    assert kg_embedded("--store", url + "/", "load").exit_code == 0
    assert not Path(".kg").exists()  # a URL is never taken for a directory
    stats = kg_embedded("--store", url, "stats", "--format", "csv")
    assert stats.exit_code == 0 and stats.stdout.splitlines()[1].startswith(
        f"{SAMPLE_RECORDS},{SOURCES},{AGENTS},"
    )


def test_queries_lists_canned_queries(kg_embedded) -> None:
    result = kg_embedded("queries")
    assert "results-for-model  --param model=<literal>" in result.stdout


@pytest.mark.parametrize("store_backend", ["virtuoso"], indirect=True)
def test_serve_and_export_all_on_virtuoso(kg, sampled_copy: Path, tmp_path: Path) -> None:
    """kg serve's first start fills the store from data/ and its pages read it; kg export
    --all dumps exactly what the store holds. On Virtuoso; the embedded store and oxigraph
    serve have these in tests/test_serving.py and tests/test_dumps.py (a kg serve start
    costs seconds)."""
    import requests

    from helpers.servers import running_server
    from kg.rdf.canonical import canonical_nquads

    with running_server(sampled_copy.parent, kg.backend.environment()) as served:
        page = requests.get(f"{served.url}/record/{SEED_ID}", timeout=60)
        assert page.status_code == 200 and "11.49" in page.text and "NVIDIA H200" in page.text
        index = requests.get(served.url + "/records.json", params={"q": "ZeRO"}, timeout=60)
        assert index.json()["total"] == 2  # both numbers of the ZeRO-offload sentence
        canned = requests.get(
            served.url + "/sparql",
            timeout=60,
            params={"canned": "results-for-model", "model": "NT 2.5B"},
            headers={"Accept": "application/sparql-results+json"},
        )
        assert {b["printed"]["value"] for b in canned.json()["results"]["bindings"]} == {
            "11.49",
            "33.88",
        }
    dumped = kg("export", "--all", "--format", "nquads", "-o", str(tmp_path / "dump"))
    assert dumped.exit_code == 0, dumped.output
    [path] = [p for p in (tmp_path / "dump").iterdir() if p.suffix == ".nq"]
    with kg.backend.open(read_only=True) as store:
        held = canonical_nquads(store.quads())
    assert canonical_nquads(ox.parse(path=str(path), format=ox.RdfFormat.N_QUADS)) == held
