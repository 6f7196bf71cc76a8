"""Graph version hashes (RDFC-1.0): properties, tested with generated graphs and records."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import BASE, DATA, SEED_RECORD
from kg.model.datafiles import parse_yaml, read_data_file
from kg.model.mapping import map_file
from kg.rdf.canonical import content_hash, graph_version, parse_nquads
from kg.rdf.terms import to_quads
from kg.release.build import release_id

GRAPH = ox.NamedNode("https://claimgraph.example/record/r")
IRIS = [ox.NamedNode(f"https://claimgraph.example/n{i}") for i in range(4)]
PREDICATES = [ox.NamedNode(f"https://w3id.org/claimgraph/ns#p{i}") for i in range(3)]
LABELS = [f"b{i}" for i in range(5)]
DECIMAL = ox.NamedNode("http://www.w3.org/2001/XMLSchema#decimal")


def literals():
    return st.one_of(
        st.text(max_size=8).map(ox.Literal),
        st.from_regex(r"\A-?[0-9]{1,3}\.[0-9]{1,3}\Z").map(
            lambda v: ox.Literal(v, datatype=DECIMAL)
        ),
        st.tuples(st.text(min_size=1, max_size=5), st.sampled_from(["en", "de"])).map(
            lambda t: ox.Literal(t[0], language=t[1])
        ),
    )


# A triple as labels: blank nodes by name, so a test can relabel them.
subjects = st.one_of(st.sampled_from(IRIS), st.sampled_from(LABELS))
objects = st.one_of(st.sampled_from(IRIS), st.sampled_from(LABELS), literals())
triples = st.lists(
    st.tuples(subjects, st.sampled_from(PREDICATES), objects), min_size=1, max_size=14
)


def to_graph(spec, names: dict[str, str] | None = None) -> list[ox.Quad]:
    names = names or {}

    def term(t):
        return ox.BlankNode(names.get(t, t)) if isinstance(t, str) else t

    return [ox.Quad(term(s), p, term(o), GRAPH) for s, p, o in spec]


def version(quads) -> str:
    return graph_version(quads).hash


@pytest.mark.slow
@given(triples, st.permutations(LABELS), st.randoms())
def test_stable_under_blank_node_labels_and_statement_order(spec, relabel, rnd) -> None:
    names = {old: f"x{new}" for old, new in zip(LABELS, relabel, strict=True)}
    shuffled = list(spec)
    rnd.shuffle(shuffled)
    assert version(to_graph(spec)) == version(to_graph(shuffled, names))


@given(triples, st.data())
def test_changes_when_any_value_changes(spec, data) -> None:
    """Another value in any statement: another hash, unless the graph is still the same one
    (isomorphic, as rdflib's own algorithm decides: a duplicate, or symmetric blank nodes)."""
    quads = to_graph(spec)
    i = data.draw(st.integers(0, len(spec) - 1))
    s, p, o = spec[i]
    new = data.draw(objects.filter(lambda x: x != o))
    changed = to_graph([*spec[:i], (s, p, new), *spec[i + 1 :]])
    assert (version(changed) == version(quads)) == _isomorphic(changed, quads)


@given(triples, st.data())
def test_blank_node_structure_counts(spec, data) -> None:
    """Merging two blank nodes (same statements, another structure) changes the hash."""
    used = sorted({t for s, _, o in spec for t in (s, o) if isinstance(t, str)})
    if len(used) < 2:
        return
    keep, drop = data.draw(st.lists(st.sampled_from(used), min_size=2, max_size=2, unique=True))
    merged = [(keep if s == drop else s, p, keep if o == drop else o) for s, p, o in spec]
    assert version(to_graph(merged)) != version(to_graph(spec))


def test_blank_node_structure_examples() -> None:
    """One node with two values, or two nodes with one each: the same statements as text."""
    p, q = PREDICATES[:2]
    a, b = ox.BlankNode("a"), ox.BlankNode("b")
    one = [
        ox.Quad(IRIS[0], p, a, GRAPH),
        ox.Quad(a, q, ox.Literal("x"), GRAPH),
        ox.Quad(a, q, ox.Literal("y"), GRAPH),
    ]
    two = [
        ox.Quad(IRIS[0], p, a, GRAPH),
        ox.Quad(a, q, ox.Literal("x"), GRAPH),
        ox.Quad(IRIS[0], p, b, GRAPH),
        ox.Quad(b, q, ox.Literal("y"), GRAPH),
    ]
    chain = [
        ox.Quad(IRIS[0], p, a, GRAPH),
        ox.Quad(a, p, b, GRAPH),
        ox.Quad(b, q, ox.Literal("x"), GRAPH),
    ]
    fork = [
        ox.Quad(IRIS[0], p, a, GRAPH),
        ox.Quad(IRIS[0], p, b, GRAPH),
        ox.Quad(b, q, ox.Literal("x"), GRAPH),
    ]
    assert len({version(one), version(two), version(chain), version(fork)}) == 4


def test_the_lexical_form_counts() -> None:
    """ "11.50" and "11.5" are one decimal value but two statements as written: a release keeps
    the form the data file wrote, so the hash tells them apart."""

    def value(text: str) -> list[ox.Quad]:
        return [ox.Quad(IRIS[0], PREDICATES[0], ox.Literal(text, datatype=DECIMAL), GRAPH)]

    assert version(value("11.50")) != version(value("11.5"))


def test_dump_form_hashes_back() -> None:
    """The dump-ready text (blank nodes prefixed per version) parses to the same version."""
    quads = _seed_quads(read_data_file(DATA / SEED_RECORD))
    v = graph_version(quads)
    assert "_:c14n" not in v.nquads and f"_:b{v.hash[:16]}" in v.nquads
    assert graph_version(parse_nquads(v.nquads)).hash == v.hash
    assert v.quads == len(quads)
    # A literal and an IRI that hold the characters of a canonical label keep them.
    tricky = parse_nquads(
        '_:x <http://p> "a _:c14n0 b" <http://g> .\n'
        "<http://s/_:c14n1> <http://q> _:x <http://g> .\n"
    )
    t = graph_version(tricky)
    assert '"a _:c14n0 b"' in t.nquads and "<http://s/_:c14n1>" in t.nquads
    assert graph_version(parse_nquads(t.nquads)).hash == t.hash


# -- records: the same file content in another YAML layout --------------------------------
SEED = parse_yaml((DATA / SEED_RECORD).read_text())


def _seed_quads(datafile) -> list[ox.Quad]:
    mapped = map_file(datafile, BASE)
    return list(to_quads(mapped.triples, str(mapped.graph)))


def _reordered(value, rnd):
    if isinstance(value, dict):
        keys = list(value)
        rnd.shuffle(keys)
        return {k: _reordered(value[k], rnd) for k in keys}
    if isinstance(value, list):
        return [_reordered(v, rnd) for v in value]
    return value


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.randoms(), st.sampled_from([None, 40, 1000]), st.booleans())
def test_stable_under_yaml_key_order_and_layout(tmp_path: Path, rnd, width, flow) -> None:
    path = tmp_path / "record.yaml"
    # Every scalar written as a quoted or plain string, keys in another order, lines folded
    # at another width, nested mappings in flow style or block style.
    path.write_text(
        yaml.safe_dump(
            _reordered(SEED, rnd),
            sort_keys=False,
            width=width,
            default_flow_style=flow,
            allow_unicode=True,
        )
    )
    assert version(_seed_quads(read_data_file(path))) == version(
        _seed_quads(read_data_file(DATA / SEED_RECORD))
    )


TEXT_FIELDS = ["title", "scope_note", "hardware", "metric_qualifier", "unit_detail"]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.sampled_from(TEXT_FIELDS),
    st.text(
        st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=30
    ).filter(str.strip),
)
def test_a_changed_record_value_changes_the_hash(tmp_path: Path, field, text) -> None:
    changed = dict(SEED)
    if changed[field] == text.strip():
        return
    changed[field] = text.strip()
    path = tmp_path / "record.yaml"
    path.write_text(yaml.safe_dump(changed, sort_keys=False, allow_unicode=True))
    assert version(_seed_quads(read_data_file(path))) != version(
        _seed_quads(read_data_file(DATA / SEED_RECORD))
    )


def test_release_id_is_date_and_content_hash_prefix() -> None:
    hashes = ["b" * 64, "a" * 64]
    ident = release_id("2026-12-01", hashes)
    assert ident == f"2026-12-01-{content_hash(reversed(hashes))[:12]}"
    assert release_id("2026-12-01", [*hashes, "c" * 64]) != ident


def _isomorphic(a: list[ox.Quad], b: list[ox.Quad]) -> bool:
    """Graph isomorphism by rdflib (not RDFC-1.0), terms kept exactly as written."""
    from rdflib import BNode, Graph, Literal, URIRef
    from rdflib.compare import isomorphic

    def term(t):
        if isinstance(t, ox.NamedNode):
            return URIRef(t.value)
        if isinstance(t, ox.BlankNode):
            return BNode(t.value)
        if t.language:
            return Literal(t.value, lang=t.language, normalize=False)
        return Literal(t.value, datatype=URIRef(t.datatype.value), normalize=False)

    def graph(quads):
        g = Graph()
        for q in quads:
            g.add((term(q.subject), term(q.predicate), term(q.object)))
        return g

    return isomorphic(graph(a), graph(b))
