"""Making nanopublications trusty and signed (kg/rdf/nanopub_make.py) against the
Nanopublication Test Suite's transform cases (vendored: tests/fixtures/nanopub-testsuite):
each pre-nanopublication, signed with each of the suite's two keys by the suite's signer,
gives the suite's artifact code, and what is made passes our checker. Unsigned, the same
content gives the same trusty URI whatever the order of its quads."""

from __future__ import annotations

import base64
from pathlib import Path

import nanopub_sign
import pyoxigraph as ox
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from kg.rdf.nanopub import check_quads, file_quads
from kg.rdf.nanopub_make import load_private_key, make_trusty

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


PRE = """\
@prefix : <http://purl.org/nanopub/temp/mynp/> .
@prefix np: <http://www.nanopub.org/nschema#> .
@prefix ex: <http://example.org/> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:Head { : a np:Nanopublication ; np:hasAssertion :assertion ;
  np:hasProvenance :provenance ; np:hasPublicationInfo :pubinfo . }
:assertion { ex:a ex:b [ ex:c "1" ; ex:d [ ex:e "2" ] ] . :_1 ex:f ex:g . }
:provenance { :assertion ex:from ex:somewhere . }
:pubinfo { : dct:created "2026-01-01T00:00:00Z"^^xsd:dateTime ;
  dct:creator <https://orcid.org/0000-0000-0000-0000> . }
"""


def test_blank_nodes_are_skolemised_as_nanopub_sign_makes_them() -> None:
    """Blank nodes numbered in the order they appear (``/_1``, ``/_2``), an IRI of the
    nanopublication whose suffix starts with ``_`` kept apart (``/__1``): what nanopub-sign
    (an independent implementation, after nanopub-java) makes of the same
    pre-nanopublication with the same key, quad for quad."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    der = key.private_bytes(
        serialization.Encoding.DER,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    profile = nanopub_sign.NpProfile(base64.b64encode(der).decode(), SIGNER, "T", None)
    theirs = nanopub_sign.Nanopub(PRE).sign(profile).rdf()
    iri, ours = make_trusty(ox.parse(PRE.encode(), format=ox.RdfFormat.TRIG), key)
    assert set(ours) == set(ox.parse(theirs.encode(), format=ox.RdfFormat.TRIG))
    assert check_quads(ours) == []
    names = {t.value.removeprefix(iri) for q in ours for t in (q.subject, q.object)}
    assert {"/_1", "/_2", "/__1"} <= names
