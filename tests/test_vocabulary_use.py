"""Every predicate and class the pages, the catalogue, the exports and the SPARQL files read
is one something writes or declares: a misspelt term fails here, not as an empty value.

A term is known when the mapping writes it for the bundled data (as a predicate or a
class), the shapes allow it in data (a property's path, a class: optional fields the bundled
data leave out, such as an author's given name), a release node or a load's figures
(kg.store.figures) hold it, or ``ontology/``
(the ontology, the vocabularies and the units the store loads) declares or uses it. The readers are checked as written: the
namespace attributes of the Python modules (``KG.reportedValue``), the labels the record
page names, and the triple patterns of every ``queries/**/*.rq``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import URIRef
from rdflib.collection import Collection
from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, SequencePath
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.parser import parseQuery
from rdflib.plugins.sparql.parserutils import CompValue

from helpers import BASE, DATA, ROOT
from kg.errors import UsageError
from kg.export import citations
from kg.model.fields import FIELDS, expand
from kg.model.validation import map_paths, shapes_graph
from kg.rdf import namespaces
from kg.rdf.namespaces import (
    DCTERMS,
    KG,
    KGV,
    PROV,
    RDF,
    SCHEMA,
    SH,
    ClosedNamespace,
    TermNamespace,
)
from kg.rdf.vocabulary import declared_names, load_terms
from kg.read import record
from kg.release.build import release_triples
from kg.store.archive import ReleaseInfo
from kg.store.figures import Figures
from kg.store.queries import expand_fields, internal_query, read_sparql_file

#: The modules that read the graph by predicate: the pages, the catalogue, the exports.
READERS = sorted(
    [
        *(ROOT / "kg" / "read").glob("*.py"),
        ROOT / "kg" / "export" / "citations.py",
        ROOT / "kg" / "export" / "rocrate.py",
    ]
)
QUERIES = sorted((ROOT / "queries").rglob("*.rq"))
TEMPLATES = sorted((ROOT / "kg" / "web" / "templates").glob("*.html"))
#: The namespaces of kg.rdf.namespaces, by the name code imports them under.
NAMESPACES = {
    name: value for name, value in vars(namespaces).items() if isinstance(value, TermNamespace)
}


@pytest.fixture(scope="module")
def known() -> set[str]:
    """Every term something writes or declares."""
    terms: set[str] = set()
    triples = [t for m in map_paths([DATA], BASE) for t in m.triples]
    previous = ReleaseInfo(
        id="r0",
        iri=f"{BASE}release/r0",
        issued="2026-01-01",
        previous=None,
        note="",
        sha256="0" * 64,
    )
    triples += release_triples(
        BASE, "r1", "2026-01-02", "a note", previous, "0" * 64, {f"{BASE}record/x": "1" * 64}
    )
    triples += list(load_terms().graph)
    for s, p, o in triples:
        terms.add(str(p))
        if p == RDF.type:  # o is a class in use; s, in the ontology, a term declared
            terms.update(str(t) for t in (s, o) if isinstance(t, URIRef))
    terms.update(
        q.predicate.value for q in ox.parse(Figures(1, 2).nquads(BASE), format=ox.RdfFormat.N_QUADS)
    )
    allowed = (SH.path, SH.inversePath, SH["class"], SH.targetClass)
    terms.update(str(o) for _, p, o in shapes_graph() if p in allowed and isinstance(o, URIRef))
    return terms


# -- what the Python modules read ---------------------------------------------------------
def python_terms(source: str) -> set[str]:
    """The terms a module names: ``NS.name`` and ``NS["name"]`` for each namespace of
    kg.rdf.namespaces (under the name it is imported as)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            namespace, local = NAMESPACES.get(node.value.id), node.attr
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            namespace, local = NAMESPACES.get(node.value.id), node.slice.value
        else:
            continue
        if namespace is not None:
            found.add(str(namespace) + local)
    return found


def template_terms(text: str) -> set[str]:
    """The project terms a template labels: ``r.label('name')`` and ``r.heading('name')``."""
    return {str(KG) + name for name in re.findall(r"\.(?:label|heading)\('(\w+)'\)", text)}


@pytest.mark.parametrize("path", READERS, ids=lambda p: p.name)
def test_every_term_a_module_reads_is_known(path: Path, known: set[str]) -> None:
    read = python_terms(path.read_text())
    unknown = sorted(read - known)
    assert not unknown, f"{path.name} reads terms nothing writes or declares: {unknown}"


def test_the_collectors_find_what_is_read() -> None:
    """A check that finds nothing checks nothing."""
    assert str(KG.scopeNote) in python_terms((ROOT / "kg/read/record.py").read_text())
    assert str(KG.SourceDocument) in python_terms((ROOT / "kg/read/node.py").read_text())
    read, _ = query_terms(read_sparql_file(ROOT / "queries/internal/index-rows.rq").text)
    assert {str(KG.Claim), str(KG.printedValue), "http://www.w3.org/ns/oa#exact"} <= read
    assert str(KG.printedValue) in template_terms(
        (ROOT / "kg/web/templates/record.html").read_text()
    )


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.name)
def test_every_label_a_page_names_is_declared(path: Path) -> None:
    named = {term.removeprefix(str(KG)) for term in template_terms(path.read_text())}
    assert named <= declared_names(str(KG)), sorted(named - declared_names(str(KG)))


def test_the_field_names_modules_hold_are_declared() -> None:
    """Names looked up at run time (``KG[name]``) from a module's table."""
    names = [*record.LOCATOR_FIELDS, *(key for key, _ in citations.LOCATOR_LABELS)]
    assert set(names) <= declared_names(str(KG)), sorted(set(names) - declared_names(str(KG)))


# -- what the SPARQL files read -----------------------------------------------------------
def _path_terms(path) -> list[URIRef]:
    if isinstance(path, URIRef):
        return [path]
    if isinstance(path, (SequencePath, AlternativePath, NegatedPath)):
        return [t for arg in path.args for t in _path_terms(arg)]
    if isinstance(path, InvPath):
        return _path_terms(path.arg)
    if isinstance(path, MulPath):
        return _path_terms(path.path)
    return []  # a variable


def query_terms(text: str) -> tuple[set[str], set[str]]:
    """The predicates (of paths too) and the classes (objects of rdf:type) a query's
    triple patterns name, and every IRI of the project's namespaces it names anywhere."""
    read: set[str] = set()
    ours: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, CompValue) and node.name == "BGP":
            for _s, p, o in node["triples"]:
                read.update(str(t) for t in _path_terms(p))
                if p == RDF.type and isinstance(o, URIRef):
                    read.add(str(o))
        if isinstance(node, URIRef) and node.startswith((str(KG), str(KGV))):
            ours.add(str(node))
        if isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, (list, tuple)):
            for value in node:
                walk(value)

    walk(translateQuery(parseQuery(text)).algebra)
    return read, ours | {t for t in read if t.startswith((str(KG), str(KGV)))}


@pytest.mark.parametrize("path", QUERIES, ids=lambda p: str(p.relative_to(ROOT / "queries")))
def test_every_term_a_query_reads_is_known(path: Path, known: set[str]) -> None:
    read, ours = query_terms(read_sparql_file(path).text)  # its field blocks written out
    unknown = sorted(read - known)
    assert not unknown, f"{path.name} reads terms nothing writes or declares: {unknown}"
    declared = {str(KG) + n for n in declared_names(str(KG))} | {
        str(KGV) + n for n in declared_names(str(KGV))
    }
    assert ours <= declared, f"{path.name} names undeclared terms: {sorted(ours - declared)}"


# -- a typo fails -------------------------------------------------------------------------
def test_a_misspelt_term_is_caught(known: set[str]) -> None:
    source = "def f(facts, node):\n    return facts.text(node, KG.reportedValu), DCTERMS.titel\n"
    assert python_terms(source) - known == {
        str(KG) + "reportedValu",
        "http://purl.org/dc/terms/titel",
    }
    query = (
        "PREFIX kg: <https://w3id.org/claimgraph/ns#>\n"
        "SELECT ?v WHERE { ?r a kg:Claimm ; kg:reportedValue/kg:printedValu ?v }"
    )
    read, _ = query_terms(query)
    assert read - known == {str(KG) + "Claimm", str(KG) + "printedValu"}
    assert template_terms("{{ r.label('hardwareAsReportd') }}") - known


def test_the_project_namespaces_are_closed() -> None:
    assert isinstance(KG, ClosedNamespace) and isinstance(KGV, ClosedNamespace)
    assert KG.reportedValue is KG.reportedValue is KG["reportedValue"]  # made once
    assert KGV["source-checked"] == URIRef(str(KGV) + "source-checked")
    with pytest.raises(AttributeError, match="reportedValu"):
        _ = KG.reportedValu
    with pytest.raises(KeyError):
        _ = KGV["not-a-concept"]
    assert "reportedValue" in KG and "reportedValu" not in KG


def test_the_closed_namespaces_hold_what_the_ontology_declares() -> None:
    graph = load_terms().graph
    for namespace in (KG, KGV):
        typed = {
            str(s) for s in graph.subjects(RDF.type, None) if str(s).startswith(str(namespace))
        }
        assert {str(namespace) + n for n in declared_names(str(namespace))} == typed


# -- the fields readers take (kg/model/fields.py) ----------------------------------------------
#: What reads a record by its predicates: the read models; what writes them: the mapping
#: (and each upstream format's own); kg/model/fields.py declares them.
RECORD_READERS_AND_WRITERS = {
    ROOT / "kg" / "model" / "fields.py",
    *(ROOT / "kg" / "read").glob("*.py"),
    *(ROOT / "kg" / "model" / "mapping").glob("*.py"),
    *(ROOT / "kg" / "model" / "upstream").glob("*/mapping.py"),
    *(ROOT / "kg" / "model" / "upstream").glob("*/records.py"),
}
#: What only a record, a source, a run or a review states: the first step of each of their
#: fields (an identifier, a title, a date, a type, a web page, and PROV's times, agents and
#: products are other nodes' too).
RECORD_PREDICATES = {
    str(field.steps[0][0])
    for field in FIELDS.values()
    if field.of in ("record", "source", "run", "review") and not field.steps[0][1]
} - {
    str(term)
    for term in (
        DCTERMS.identifier,
        DCTERMS.title,
        DCTERMS.issued,
        DCTERMS.type,
        SCHEMA.url,
        PROV.startedAtTime,
        PROV.endedAtTime,
        PROV.wasAssociatedWith,
        PROV.qualifiedAssociation,
        PROV.generated,
    )
}


def test_no_reader_outside_the_read_models_names_a_record_predicate() -> None:
    """A page, an export, a check or a command reads a record's fields by name (through
    kg/read or kg.model.fields), never by naming the predicates that hold them: how a
    field is reached is declared once."""
    named = {
        str(path.relative_to(ROOT)): sorted(python_terms(path.read_text()) & RECORD_PREDICATES)
        for path in sorted((ROOT / "kg").rglob("*.py"))
        if path not in RECORD_READERS_AND_WRITERS
    }
    assert {path: terms for path, terms in named.items() if terms} == {}


def test_the_record_predicates_are_caught() -> None:
    """The checker itself: a reader naming a record's predicate is found."""
    assert str(KG.reportedValue) in RECORD_PREDICATES
    assert str(KG.reportedValue) in python_terms("value = f.one(record, KG.reportedValue)")


def test_every_field_reads_known_terms(known: set[str]) -> None:
    unknown = {
        name: [str(p) for p, _ in field.steps if str(p) not in known]
        for name, field in FIELDS.items()
    }
    assert {name: terms for name, terms in unknown.items() if terms} == {}


def test_each_fields_datatype_is_the_shapes() -> None:
    """A field declares the datatype the shapes require of its last predicate, where they
    require one (a field whose values may be of several, a date of a year, a month or a
    day, declares none or one of them; a whole number as mapped or as a store gives it
    back, through sh:node, declares the mapped one)."""
    shapes = shapes_graph()
    required: dict[str, set[str]] = {}
    for shape, path in shapes.subject_objects(SH.path):
        alternatives, seen = [shape], set()
        while alternatives:
            node = alternatives.pop()
            seen.add(node)
            for members in shapes.objects(node, SH["or"]):
                alternatives += [m for m in Collection(shapes, members) if m not in seen]
            alternatives += [n for n in shapes.objects(node, SH.node) if n not in seen]
            for datatype in shapes.objects(node, SH.datatype):
                required.setdefault(str(path), set()).add(str(datatype))
    wrong = {}
    for name, field in FIELDS.items():
        found = required.get(str(field.steps[-1][0]))
        declared = str(expand(field.datatype)) if field.datatype else ""
        if found and (declared not in found if declared else len(found) == 1):
            wrong[name] = (declared, sorted(found))
    assert wrong == {}


def test_the_index_query_reads_the_declared_fields() -> None:
    """The index's query is written out from the declarations: each field it reads is
    there with its declared path."""
    text = internal_query("index-rows").text
    for name in ("id", "printed", "method", "params"):
        assert f'BIND("{name}" AS ?field)' in text
    assert FIELDS["printed"].path in text
    assert "{{" not in text


def test_an_undeclared_field_in_a_query_is_an_error() -> None:
    with pytest.raises(UsageError, match="no field named 'nope'"):
        expand_fields("SELECT * WHERE { {{rows: id nope}} }")
