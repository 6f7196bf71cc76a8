"""Upstream formats are plug-ins: a second, minimal format, defined here and registered,
is imported, verified, exported and browsed through the real commands, store and app,
without a line of kg/ naming it (docs/imports.md, "Adding a format")."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from click.testing import CliRunner
from rdflib import URIRef

from helpers import BASE
from kg.cli import main
from kg.kinds import minted_iri
from kg.model.mapping.json_triples import JSON_POINTER, TripleBuilder, kept_artifact, literal
from kg.model.standing import Standing
from kg.model.upstream import formats
from kg.model.upstream.format import Checked, UpstreamFormat
from kg.model.upstream.jsondoc import JsonNumber, JsonSyntaxError, dumps, loads
from kg.rdf.facts import Facts
from kg.rdf.formats import NAMES, Format
from kg.rdf.namespaces import DCTERMS, KG, KGV, OA, PROV, QUDT, RDF, RDFS, UNIT, XSD
from kg.web import create_app


# -- the format: one file is one model's scores on one board ---------------------------------
#   {"board": "Tiny Board", "organization": "Tiny Org", "model": "Acme/M1",
#    "results": [{"name": "accuracy", "score": 0.75, "lower_is_better": false}, ...]}
def _slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split()) or "x"


def _evaluation_id(upstream_path: str) -> str:
    return "tiny-" + _slug(upstream_path.removeprefix("results/").removesuffix(".json"))


def _record_id(upstream_path: str, name: str) -> str:
    return f"{_evaluation_id(upstream_path)}-{_slug(name)}"


class TinyBoard(UpstreamFormat):
    name = "tiny-board"
    title = "Tiny Board"
    home = "https://example.org/tiny/board"
    media_type = Format("tiny.json", "application/x-tiny-board+json", ("tiny-board",))
    results_root = "results/"
    schema_versions = ("1",)
    import_help = "Import Tiny Board files."
    export_help = "a record as a Tiny Board file"

    def check(self, raw: bytes) -> Checked:
        try:
            doc = loads(raw)
        except JsonSyntaxError as exc:
            return Checked(None, [("", str(exc))])
        if not isinstance(doc, dict):
            return Checked(doc, [("", "not a JSON object")])
        problems = [
            (f"/{key}", "missing (required)") for key in ("board", "model") if key not in doc
        ]
        for i, result in enumerate(doc.get("results") or []):
            if not isinstance(result.get("score"), JsonNumber):
                problems.append((f"/results/{i}/score", "not a number"))
        return Checked(doc, problems)

    def label(self, import_name: str, upstream_path: str, doc: Any, where: str) -> str:
        return f"evaluation {_evaluation_id(upstream_path)}"

    def results(self, doc: Any) -> int:
        return len(doc.get("results") or []) if isinstance(doc, dict) else 0

    def shared_nodes(self, doc: dict[str, Any]) -> dict[str, Any]:
        source = {"id": _slug(doc["board"]), "title": doc["board"], "publisher": doc["board"]}
        return {
            "model": doc["model"].casefold(),
            "benchmarks": [_benchmark(doc, r) for r in doc.get("results") or []],
            "source": source,
        }

    def map(self, kept, base: str):
        doc, path = kept.checked.doc, kept.upstream_path
        out = TripleBuilder()
        ident = _evaluation_id(path)
        evaluation = URIRef(minted_iri(base, "evaluation", ident))
        imported = URIRef(minted_iri(base, "import", kept.import_name))
        source = URIRef(minted_iri(base, "source", _slug(doc["board"])))
        model = URIRef(minted_iri(base, "model", doc["model"].casefold()))
        out.label = f"evaluation {ident}"
        out.node(evaluation, "", PROV.Entity, KG.Evaluation)
        out.add(evaluation, DCTERMS.identifier, literal(ident))
        out.add(evaluation, DCTERMS.title, literal(f"{doc['board']} of {doc['model']}"))
        out.add(evaluation, DCTERMS.source, source)
        out.add(evaluation, KG.importedBy, imported)
        out.add(evaluation, KG.evaluatedModel, model, "/model", doc["model"])
        out.text(evaluation, KG.modelId, doc["model"], "/model")
        artifact = kept_artifact(out, kept, source, imported)
        out.add(evaluation, KG.artifact, artifact)
        parts = [(evaluation, out.label, len(out.triples))]
        for i, result in enumerate(doc.get("results") or []):
            record = URIRef(minted_iri(base, "record", _record_id(path, result["name"])))
            out.label = f"record {_record_id(path, result['name'])}"
            at = f"/results/{i}/score"
            _record(out, record, result, at, (evaluation, source, model, imported, artifact))
            bench = _benchmark(doc, result)["id"]
            out.add(record, KG.benchmark, URIRef(minted_iri(base, "benchmark", bench)))
            out.add(record, DCTERMS.identifier, literal(_record_id(path, result["name"])))
            out.add(record, RDFS.label, literal(f"{at} in {path}"))
            parts.append((record, out.label, len(out.triples)))
        return out.triples, out.origins, parts

    def export(
        self,
        facts: Facts,
        records: list[ox.NamedNode],
        standings: Mapping[str, Standing] | None = None,
    ) -> str:
        first = records[0]
        source = facts.one(first, PROV.wasQuotedFrom)
        evaluation = facts.one(first, KG.evaluation)
        doc = {
            "board": facts.text(source, DCTERMS.title),
            "organization": facts.text(source, DCTERMS.publisher),
            "model": facts.text(evaluation, KG.modelId),
            "results": [
                {
                    "name": facts.text(r, KG.metric),
                    "score": JsonNumber(
                        facts.text(facts.one(r, KG.reportedValue), KG.printedValue)
                    ),
                    "lower_is_better": facts.one(r, KG.metricDirection) == ox.NamedNode(KGV.lower),
                }
                for r in sorted(records, key=lambda r: r.value)
            ],
        }
        return dumps(doc, indent=2) + "\n"

    def value_as_written(self, value: Any) -> str | None:
        return value.lexeme if isinstance(value, JsonNumber) else None


def _benchmark(doc: dict[str, Any], result: dict[str, Any]) -> dict[str, str]:
    direction = "lower" if result.get("lower_is_better") is True else "higher"
    return {
        "id": _slug(f"{doc['board']} {result['name']}"),
        "label": result["name"],
        "dataset": doc["board"],
        "name": result["name"],
        "direction": direction,
    }


def _record(out: TripleBuilder, record: URIRef, result: dict, at: str, nodes: tuple) -> None:
    evaluation, source, model, imported, artifact = nodes
    score = result["score"]
    out.node(record, at, PROV.Entity, KG.Claim)
    out.add(record, DCTERMS.title, literal(f"{result['name']} ({evaluation})"))
    for predicate, node in (
        (PROV.wasQuotedFrom, source),
        (KG.evaluation, evaluation),
        (KG.evaluatedModel, model),
        (KG.importedBy, imported),
    ):
        out.add(record, predicate, node)
    value = out.node(URIRef(f"{record}#value"), at, QUDT.QuantityValue, KG.ReportedValue)
    out.add(record, KG.reportedValue, value)
    out.add(value, KG.printedValue, literal(score.lexeme), at, score.lexeme)
    out.add(value, QUDT.numericValue, literal(score.decimal_lexeme(), XSD.decimal), at)
    out.add(value, QUDT.unit, UNIT.UNITLESS)
    out.add(record, KG.metric, literal(result["name"]))
    lower = result.get("lower_is_better") is True
    out.add(record, KG.metricDirection, KGV.lower if lower else KGV.higher)
    out.add(record, KG.evidenceKind, KGV["independent-external-evaluation"])
    out.add(record, KG.reviewStatus, KGV.unreviewed)
    locator = out.node(URIRef(f"{record}#locator"), at, KG.Locator, OA.SpecificResource)
    out.add(locator, RDFS.label, literal(at))
    selector = out.node(URIRef(f"{locator}-selector"), at, OA.FragmentSelector)
    out.add(locator, OA.hasSelector, selector)
    out.add(selector, DCTERMS.conformsTo, JSON_POINTER)
    out.add(selector, RDF.value, literal(at))
    out.add(locator, OA.hasSource, artifact)
    out.add(record, KG.locator, locator)


# -- the test --------------------------------------------------------------------------------
TINY = TinyBoard()
PATH = "results/tiny/acme-m1.json"
FILE = {
    "board": "Tiny Board",
    "organization": "Tiny Board",
    "model": "Acme/M1",
    "results": [
        {"name": "accuracy", "score": 0.7500, "lower_is_better": False},
        {"name": "latency", "score": 12, "lower_is_better": True},
    ],
}
RAW = json.dumps(FILE, indent=2).replace("0.75", "0.7500").encode()
ACCURACY, LATENCY = _record_id(PATH, "accuracy"), _record_id(PATH, "latency")


@pytest.fixture
def tiny() -> Iterator[UpstreamFormat]:
    formats.register(TINY)
    try:
        yield TINY
    finally:
        formats.unregister(TINY.name)


def kg(runner: CliRunner, store: Path, data: Path, *args: str):
    return runner.invoke(main, ["--store", str(store), "--data", str(data), "--base", BASE, *args])


def test_a_second_format_imports_verifies_exports_and_browses(
    tiny, written_copy: Path, tmp_path: Path, runner: CliRunner
) -> None:
    data, store = written_copy, tmp_path / "store"
    origin = tmp_path / "origin"
    (origin / PATH).parent.mkdir(parents=True)
    (origin / PATH).write_bytes(RAW)
    (origin / "LICENSE").write_text("MIT License\n\nCopyright (c) the Tiny Board\n")
    assert "tiny-board" in kg(runner, store, data, "import", "--help").output

    imported = kg(runner, store, data, "import", "tiny-board", str(origin))
    assert imported.exit_code == 0, imported.output
    assert re.search(r"^records written +2$", imported.stdout, re.MULTILINE)
    assert (data / "upstream" / "tiny-board" / PATH).read_bytes() == RAW
    assert "format: tiny-board" in (data / "imports" / "tiny-board.yaml").read_text()

    verified = kg(runner, store, data, "verify", ACCURACY)
    assert verified.exit_code == 0, verified.output
    assert verified.stdout.count("passed") == 5  # the hash, and each record's pointer, value
    [review] = (data / "reviews").glob("tiny-*.yaml")
    assert "found: '0.7500'" in review.read_text()  # the value as the file writes it

    exported = kg(runner, store, data, "export", LATENCY, "--format", "tiny-board")
    assert exported.exit_code == 0, exported.output
    assert json.loads(exported.stdout) == {**FILE, "results": FILE["results"][1:]}
    folder = tmp_path / "exported"
    every = kg(runner, store, data, "export", "--all", "--format", "tiny-board", "-o", str(folder))
    assert every.exit_code == 0, every.output
    assert "Tiny Board file(s)" in every.stderr
    assert json.loads((folder / PATH).read_text()) == json.loads(RAW)

    client = create_app({"store": store, "base": BASE, "data": data}).test_client()
    page = client.get(f"/record/{ACCURACY}")
    assert page.status_code == 200 and "0.7500" in page.get_data(as_text=True)
    as_file = client.get(f"/record/{LATENCY}.tiny.json")
    assert as_file.status_code == 200
    assert as_file.mimetype == "application/x-tiny-board+json"
    assert as_file.data == exported.stdout_bytes
    evaluation = client.get(
        f"/evaluation/{_evaluation_id(PATH)}", headers={"Accept": TINY.media_type.media_type}
    )
    assert evaluation.status_code == 200
    assert len(loads(evaluation.data)["results"]) == 2


def test_registering_is_undone(tiny) -> None:
    assert formats.get("tiny-board") is tiny and "tiny.json" in NAMES
    formats.unregister("tiny-board")
    assert "tiny-board" not in formats.names() and "tiny.json" not in NAMES
    formats.register(tiny)  # for the fixture to take back
    with pytest.raises(ValueError, match="registered already"):
        formats.register(tiny)
