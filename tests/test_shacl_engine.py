"""The compiled engine gives the same results as pyshacl, the reference, over the same shapes;
`kg validate --engine pyshacl` runs the reference for a user and prints the same lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyshacl import validate
from rdflib import Graph, Literal, URIRef

from bench import gen
from helpers import BASE
from helpers.checks import assert_same, both_engines, result_keys
from helpers.variants import VARIANTS, break_file
from kg.cli import main
from kg.errors import InvalidDataError
from kg.model.shacl import Engine, Index, UnsupportedShape, lexical_ok
from kg.model.validation import Translator, map_paths, shacl_results, shapes_graph
from kg.rdf.namespaces import RDF, SH, XSD
from kg.rdf.vocabulary import load_terms


def test_the_written_data_and_imported_records(sampled_copy: Path) -> None:
    # every file people write, and a kept file of each origin folder (pyshacl takes a
    # minute over all 400 bundled results; they are all of these shapes)
    fast, reference, _ = both_engines([sampled_copy])
    assert fast == reference == []


@pytest.mark.slow
def test_a_generated_corpus(tmp_path: Path) -> None:
    gen.generate(60, 7, tmp_path / "corpus")
    assert_same([tmp_path / "corpus"])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("relative", "change", "field", "message"), [pytest.param(*v[1:], id=v[0]) for v in VARIANTS]
)
def test_every_broken_variant(written_copy: Path, relative, change, field, message) -> None:
    break_file(written_copy, relative, change)
    try:
        mapped = map_paths([written_copy], BASE)
    except InvalidDataError:
        return  # rejected by the mapping (a list for a value, a misspelt key): no shape runs
    fast, reference = shacl_results(mapped), shacl_results(mapped, reference=True)
    translator = Translator(mapped, load_terms().graph)
    assert fast, "the engine found nothing wrong"
    assert result_keys(fast) == result_keys(reference)
    assert sorted(translator.problems(fast)) == sorted(translator.problems(reference))


@pytest.mark.parametrize(
    ("text", "datatype", "ok"),
    [
        ("11.49", XSD.decimal, True),
        ("11,49", XSD.decimal, False),
        ("-.5", XSD.decimal, True),
        ("2026-10-15T22:00:00Z", XSD.dateTime, True),
        ("2026-13-45T22:00:00Z", XSD.dateTime, False),
        ("2026-02-29T00:00:00Z", XSD.dateTime, False),
        ("2024-02-29T00:00:00Z", XSD.dateTime, True),
        ("2026-03-09", XSD.date, True),
        ("2026-02-30", XSD.date, False),
        ("2026", XSD.gYear, True),
        ("2026-13", XSD.gYearMonth, False),
        ("0", XSD.positiveInteger, False),
        ("11", XSD.positiveInteger, True),
        ("-1", XSD.nonNegativeInteger, False),
        ("true", XSD.boolean, True),
        ("yes", XSD.boolean, False),
    ],
)
def test_lexical_forms(text: str, datatype: URIRef, ok: bool) -> None:
    assert lexical_ok(text, datatype) is ok


@pytest.mark.parametrize("shape", ["WholeNumber", "CountingNumber"])
def test_whole_numbers_as_mapped_and_as_a_store_gives_them_back(shape: str) -> None:
    """A count as the mapping types it (xsd:nonNegativeInteger, xsd:positiveInteger) and as
    Oxigraph gives it back (xsd:integer) both conform, out of range neither: the same
    verdict from both engines."""
    kgsh = "https://w3id.org/claimgraph/shapes#"
    target, p = URIRef("urn:x:Counted"), URIRef("urn:x:count")
    shapes = Graph() + shapes_graph()
    counted, prop = URIRef("urn:x:CountedShape"), URIRef("urn:x:countProperty")
    shapes.add((counted, SH.targetClass, target))
    shapes.add((counted, SH.property, prop))
    shapes.add((prop, SH.path, p))
    shapes.add((prop, SH.node, URIRef(kgsh + shape)))
    derived = XSD.nonNegativeInteger if shape == "WholeNumber" else XSD.positiveInteger
    values = {
        "derived": (Literal("3", datatype=derived, normalize=False), True),
        "integer": (Literal("3", datatype=XSD.integer), True),
        "one": (Literal("1", datatype=XSD.integer), True),
        "zero": (Literal("0", datatype=XSD.integer), shape == "WholeNumber"),
        "negative": (Literal("-2", datatype=XSD.integer), False),
        "derived-zero": (Literal("0", datatype=derived, normalize=False), shape == "WholeNumber"),
        "decimal": (Literal("3.0", datatype=XSD.decimal, normalize=False), False),
        "text": (Literal("3"), False),
        "ill-typed": (Literal("three", datatype=XSD.integer), False),
    }
    data = Graph()
    for name, (value, _) in values.items():
        node = URIRef(f"urn:x:{name}")
        data.add((node, RDF.type, target))
        data.add((node, p, value))
    index = Index()
    index.add_all(data)
    fast = {str(r.focus) for r in Engine(shapes, Graph()).validate(index)}
    _, report, _ = validate(data, shacl_graph=shapes, inference="none")
    # the results on the path (pyshacl also nests those of sh:node's shape in them)
    reference = {str(report.value(r, SH.focusNode)) for r in report.subjects(SH.resultPath, p)}
    expected = {f"urn:x:{name}" for name, (_, ok) in values.items() if not ok}
    assert fast == reference == expected


def test_unsupported_shapes_are_refused() -> None:
    shapes = Graph()
    shape = URIRef("urn:s")
    shapes.add((shape, SH.targetClass, URIRef("urn:C")))
    shapes.add((shape, SH.closed, Literal(True)))
    with pytest.raises(UnsupportedShape, match="closed"):
        Engine(shapes, Graph())


def test_the_predicates_a_sparql_constraint_needs() -> None:
    """Only triples with these predicates are loaded for SHACL-SPARQL: the keyword "a" in
    a query means rdf:type, in a comment, string or IRI it does not."""
    from kg.model.shacl.parser import _named_iris

    rdf_type = URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    head = "PREFIX kg: <https://e.org/a#>\n"
    assert rdf_type in _named_iris(head + "SELECT ?this WHERE { ?this a kg:X }")
    assert rdf_type not in _named_iris(
        head
        + 'SELECT ?this WHERE { ?this kg:p "a b" . # a comment\n ?this kg:q <https://e.org/a> }'
    )


PYSHACL_NOTICE = "kg: validating with pyshacl, the reference SHACL engine"


def kg_validate(runner, *args: str) -> tuple[int, list[str], list[str]]:
    """Exit code, then kg validate's lines by each engine (the notice left out)."""
    compiled = runner.invoke(main, ["validate", *args])
    reference = runner.invoke(main, ["validate", *args, "--engine", "pyshacl"])
    assert compiled.exit_code == reference.exit_code, (compiled.output, reference.output)
    lines = reference.stderr.splitlines()
    assert lines[0] == PYSHACL_NOTICE
    return compiled.exit_code, compiled.stderr.splitlines(), lines[1:]


def test_kg_validate_with_pyshacl_passes_what_the_engine_passes(
    written_copy: Path, runner, monkeypatch
) -> None:
    # the written files (test_the_written_data_and_imported_records checks imported ones)
    monkeypatch.chdir(written_copy.parent)
    code, compiled, reference = kg_validate(runner, "data")
    assert code == 0 and compiled == reference
    assert compiled[-1].startswith("kg: ") and " file(s) valid (" in compiled[-1]
    # one file, its references resolved against the rest of the data directory
    record = next((written_copy / "records").glob("*.yaml")).relative_to(written_copy.parent)
    code, compiled, reference = kg_validate(runner, str(record))
    assert code == 0 and compiled == reference == ["kg: 1 file(s) valid (1 record)"]


# A variant of each sort of check: a datatype, a vocabulary, a reference to another file,
# a SHACL-SPARQL constraint (within a file and across files), a key the mapping refuses.
CROSS_CHECKED = [
    "impossible-date",
    "unknown-review-method",
    "missing-source",
    "numeric-disagrees",
    "run-claim-edited",
    "misspelt-key",
]
assert set(CROSS_CHECKED) <= {v[0] for v in VARIANTS}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("relative", "change"),
    [pytest.param(v[1], v[2], id=v[0]) for v in VARIANTS if v[0] in CROSS_CHECKED],
)
def test_kg_validate_with_pyshacl_prints_what_the_engine_prints(
    written_copy: Path,
    runner,
    monkeypatch,
    relative,
    change,
) -> None:
    break_file(written_copy, relative, change)
    monkeypatch.chdir(written_copy.parent)
    code, compiled, reference = kg_validate(runner, "data")
    assert code == 1
    assert compiled == reference
    assert any(line.startswith(f"data/{relative}: ") for line in reference), reference
