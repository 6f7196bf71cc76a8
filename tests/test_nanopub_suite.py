"""The Nanopublication Test Suite (MIT, vendored under tests/fixtures/nanopub-testsuite with
its licence and origin) against our checker (kg/rdf/nanopub.py, kg/rdf/trusty.py): every
valid case is accepted, every invalid case refused, each trusty URI recomputed from its
quads and each signature verified against its public key (kg/rdf/nanopub_signature.py)."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from kg.rdf.nanopub import check_quads, file_quads, read_nanopubs
from kg.rdf.trusty import artifact_code, artifact_code_of, is_trusty

SUITE = Path(__file__).parent / "fixtures" / "nanopub-testsuite"
#: Invalid only by a signature that does not verify (its key or its value changed).
BAD_SIGNATURE_ONLY = {"simple1-invalid-dsa.trig", "simple1-invalid-rsa.trig"}


def cases(kind: str) -> list[Path]:
    return sorted(p for p in (SUITE / kind).glob("*/*") if p.suffix in (".trig", ".nq", ".xml"))


@pytest.mark.parametrize("path", cases("valid"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_valid_case_is_accepted(path: Path) -> None:
    assert check_quads(file_quads(path)) == []


@pytest.mark.parametrize(
    "path",
    cases("invalid"),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_an_invalid_case_is_refused(path: Path) -> None:
    try:
        quads = file_quads(path)
    except SyntaxError:
        return  # refused as it is read
    assert check_quads(quads) != []


def test_the_suite_is_all_there() -> None:
    assert len(cases("valid")) == 91 and len(cases("invalid")) == 17
    assert {p.name for p in cases("invalid")} >= BAD_SIGNATURE_ONLY


@pytest.mark.parametrize("name", sorted(BAD_SIGNATURE_ONLY))
def test_a_signature_that_does_not_verify_is_the_only_fault_found(name: str) -> None:
    [problem] = check_quads(file_quads(SUITE / "invalid" / "signed" / name))
    assert "signature does not verify" in problem


@pytest.mark.parametrize("path", sorted((SUITE / "valid" / "trusty").glob("*.trig"))[:5])
def test_one_changed_literal_breaks_a_trusty_uri(path: Path) -> None:
    quads = file_quads(path)
    [np] = read_nanopubs(quads)
    assert is_trusty(np.quads, np.iri)
    at = next(i for i, q in enumerate(np.quads) if isinstance(q.object, ox.Literal))
    q = np.quads[at]
    changed = ox.Quad(q.subject, q.predicate, ox.Literal(q.object.value + " "), q.graph_name)
    assert not is_trusty([*np.quads[:at], changed, *np.quads[at + 1 :]], np.iri)
    assert check_quads([*np.quads[:at], changed, *np.quads[at + 1 :]]) != []


def test_the_hash_ignores_order_and_repeats_and_names_itself() -> None:
    quads = file_quads(SUITE / "valid" / "trusty" / "trusty1.trig")
    [np] = read_nanopubs(quads)
    code = artifact_code_of(np.iri)
    assert artifact_code(list(reversed(np.quads)) + np.quads[:3], code) == code
    assert artifact_code(np.quads, code) != artifact_code(np.quads)  # the code is a space


def renamed(quads: list[ox.Quad], old: str, new: str) -> list[ox.Quad]:
    """The quads with the artifact code ``old`` replaced by ``new`` in every IRI."""

    def term(t):
        return ox.NamedNode(t.value.replace(old, new)) if isinstance(t, ox.NamedNode) else t

    return [
        ox.Quad(term(q.subject), term(q.predicate), term(q.object), term(q.graph_name))
        for q in quads
    ]


def test_a_changed_signed_nanopub_given_a_new_trusty_uri_fails_its_signature() -> None:
    """Someone who edits a signed nanopublication and makes its trusty URI anew still
    cannot make its signature verify."""
    [np] = read_nanopubs(file_quads(SUITE / "valid" / "signed" / "simple1-signed-rsa.1024.trig"))
    old = artifact_code_of(np.iri)
    at = next(i for i, q in enumerate(np.quads) if q.graph_name.value == np.assertion)
    q = np.quads[at]
    edited = [
        *np.quads[:at],
        ox.Quad(q.subject, q.predicate, ox.Literal("edited"), q.graph_name),
        *np.quads[at + 1 :],
    ]
    new = artifact_code(edited, old)
    again = renamed(edited, old, new)
    [problem] = check_quads(again)
    assert "signature does not verify" in problem
