"""Making nanopublications trusty and signed (kg/rdf/nanopub_make.py) against the
Nanopublication Test Suite's transform cases (vendored: tests/fixtures/nanopub-testsuite):
each pre-nanopublication, signed with each of the suite's two keys by the suite's signer,
gives the suite's artifact code, and what is made passes our checker. Unsigned, the same
content gives the same trusty URI whatever the order of its quads."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from kg.rdf.nanopub import check_quads, file_quads
from kg.rdf.nanopub_make import load_private_key, make_trusty
from kg.rdf.trusty import TrustyError

TRANSFORM = Path(__file__).parent / "fixtures" / "nanopub-testsuite" / "transform"
#: The signer the suite's profile names (transform/profile.yaml).
SIGNER = "https://orcid.org/0000-0000-0000-0000"
CASES = sorted(p.name.removesuffix(".in.trig") for p in (TRANSFORM / "plain").glob("*.in.trig"))


@pytest.mark.parametrize("key_name", ["rsa-key1", "rsa-key2"])
@pytest.mark.parametrize("case", CASES)
def test_a_transform_case_gives_the_suites_artifact_code(case: str, key_name: str) -> None:
    folder = TRANSFORM / "signed" / key_name
    key = load_private_key((folder / "key" / "id_rsa").read_bytes())
    iri, quads = make_trusty(file_quads(TRANSFORM / "plain" / f"{case}.in.trig"), key, SIGNER)
    assert iri.endswith((folder / f"{case}.out.code").read_text().strip())
    assert check_quads(quads) == []


def test_the_suite_has_its_transform_cases() -> None:
    assert len(CASES) == 23


def test_unsigned_the_same_content_gives_the_same_trusty_uri() -> None:
    quads = file_quads(TRANSFORM / "plain" / "example6.in.trig")
    iri, made = make_trusty(quads)
    assert check_quads(made) == []
    assert make_trusty(list(reversed(quads)))[0] == iri
    # one literal changed: another name
    at = next(i for i, q in enumerate(quads) if isinstance(q.object, ox.Literal))
    q = quads[at]
    changed = ox.Quad(q.subject, q.predicate, ox.Literal(q.object.value + "."), q.graph_name)
    assert make_trusty([*quads[:at], changed, *quads[at + 1 :]])[0] != iri


def test_a_blank_node_is_refused_by_name() -> None:
    quads = file_quads(TRANSFORM / "plain" / "example6.in.trig")
    q = next(q for q in quads if q.graph_name.value.endswith("assertion"))
    with pytest.raises(TrustyError, match="blank node"):
        make_trusty([*quads, ox.Quad(ox.BlankNode(), q.predicate, q.object, q.graph_name)])
