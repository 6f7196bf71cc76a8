"""Records as nanopublications (kg/export/nanopub.py), made by ``kg export --format
nanopub`` over the bundled data in a real store: every record's is accepted by our checker
and by nanopub-sign's (an independent implementation, in Rust), trusty and, with a key
``kg keys`` made, signed; one changed literal is refused by both; the same content gives
the same trusty URI."""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import nanopub_sign
import pyoxigraph as ox
import pytest

from helpers import DATA, RECORDS, RUNS, SEED_ID
from helpers.nanopubs import SIGNER, kg
from kg.config import load_settings
from kg.export.nanopub import pre_nanopub
from kg.rdf.nanopub import Nanopub, check_quads, file_quads, read_nanopubs
from kg.rdf.nanopub_make import make_trusty
from kg.registry import Registry
from kg.store.records import citable

TYPED = "http://purl.org/nanopub/x/hasNanopubType"
LICENCE = "https://creativecommons.org/licenses/by/4.0/"
PUBLISHER = "http://purl.org/dc/terms/creator"  # who publishes it, as the network says


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("nanopubs")
    shutil.copytree(DATA, root / "data")
    result = kg(root, "load")
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture(scope="module")
def key(root: Path) -> Path:
    result = kg(root, "keys", "-o", str(root / "keys" / "np.pem"))
    assert result.exit_code == 0, result.output
    assert (root / "keys" / "np.pem").stat().st_mode & 0o077 == 0  # its owner's alone
    return root / "keys" / "np.pem"


def export_all(root: Path, out: Path, env: dict[str, str] | None = None) -> list[ox.Quad]:
    result = kg(root, "export", "--all", "--format", "nanopub", "-o", str(out), env=env)
    assert result.exit_code == 0, result.output
    return file_quads(out / "nanopubs.trig")


def sign_check(text: str) -> None:
    """nanopub-sign's check (raises where it refuses)."""
    nanopub_sign.Nanopub(text).check()


def publishers(np: Nanopub) -> list[str]:
    """Who its publication info says publishes it."""
    return [q.object.value for q in np.graph(np.pubinfo) if q.predicate.value == PUBLISHER]


def one_by_one(quads: list[ox.Quad]) -> list[list[ox.Quad]]:
    return [np.quads for np in read_nanopubs(quads)]


def test_every_record_is_a_trusty_nanopub_both_checkers_accept(root: Path, tmp_path) -> None:
    quads = export_all(root, tmp_path)
    each = one_by_one(quads)
    typed = Counter(q.object.value.rsplit("#")[-1] for q in quads if q.predicate.value == TYPED)
    assert typed == {"Claim": RECORDS, "ReproductionRun": RUNS}  # the bundled records and runs
    assert len(each) == RECORDS + RUNS
    assert check_quads(quads) == []
    for np in each:  # nanopub-sign reads one at a time
        sign_check(ox.serialize(np, format=ox.RdfFormat.TRIG).decode())


def test_signed_with_a_key_both_checkers_verify_it(root: Path, key: Path, tmp_path) -> None:
    env = {"KG_NANOPUB_KEY": str(key), "KG_NANOPUB_SIGNER": SIGNER}
    quads = export_all(root, tmp_path, env)
    assert check_quads(quads) == []
    each = one_by_one(quads)
    for np in each:
        assert len([q for q in np if q.predicate.value.endswith("hasSignature")]) == 1
        sign_check(ox.serialize(np, format=ox.RdfFormat.TRIG).decode())
    assert all(publishers(read_nanopubs(np)[0]) == [SIGNER] for np in each)
    first = each[0]
    # one literal changed: refused by both
    literal = next(
        q
        for q in first
        if q.graph_name.value.endswith("/assertion") and isinstance(q.object, ox.Literal)
    )
    changed = [
        q
        if q != literal
        else ox.Quad(q.subject, q.predicate, ox.Literal(q.object.value + " (edited)"), q.graph_name)
        for q in first
    ]
    assert check_quads(changed) != []
    with pytest.raises(Exception, match=r"(?i)hash|signature"):  # nanopub-sign's own error
        sign_check(ox.serialize(changed, format=ox.RdfFormat.TRIG).decode())


def test_the_same_content_gives_the_same_trusty_uri(root: Path) -> None:
    settings = load_settings({"store": root / "store", "data": root / "data"})
    with Registry(settings, read_only=True) as registry:
        _, closure = citable(registry.store, registry.base, SEED_ID)
        record = registry.iri("record", SEED_ID)
        once = make_trusty(pre_nanopub(closure, record, SEED_ID, settings.licence))[0]
        # another order of the same quads, as another store or machine may give them
        again = make_trusty(pre_nanopub(closure[::-1], record, SEED_ID, settings.licence))[0]
    assert once == again and once.startswith("https://w3id.org/np/RA")


def test_the_same_uri_from_another_process(root: Path) -> None:
    """Nothing in the making depends on a process's hashing (set orders): two processes
    with other hash seeds give the same nanopublication, byte for byte."""
    where = ["--store", str(root / "store"), "--data", str(root / "data")]
    made = [
        subprocess.run(
            [sys.executable, "-m", "kg.cli", *where, "export", SEED_ID, "--format", "nanopub"],
            capture_output=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    ]
    assert made[0] == made[1] and b"sub:_1 " in made[0]  # a blank node skolemised


def test_unsigned_says_so_and_a_single_record_exports(root: Path) -> None:
    result = kg(root, "export", SEED_ID, "--format", "nanopub")
    assert result.exit_code == 0
    assert "unsigned" in result.stderr
    quads = list(ox.parse(result.stdout_bytes, format=ox.RdfFormat.TRIG))
    assert check_quads(quads) == []
    [np] = read_nanopubs(quads)
    introduced = [
        q.object.value for q in np.graph(np.pubinfo) if q.predicate.value.endswith("introduces")
    ]
    assert introduced == [f"https://claimgraph.example/record/{SEED_ID}"]
    # who publishes it: the registry, where no signer is set
    assert publishers(np) == ["https://claimgraph.example/"]


def test_a_record_page_answers_as_a_nanopub_by_suffix_and_by_negotiation(root: Path) -> None:
    from helpers.web import app_over

    with app_over(root) as app:
        client = app.test_client()
        by_suffix = client.get(f"/record/{SEED_ID}.np.trig")
        asked = client.get(
            f"/record/{SEED_ID}",
            headers={"Accept": 'application/trig;profile="http://www.nanopub.org/nschema"'},
        )
        plain = client.get(f"/record/{SEED_ID}", headers={"Accept": "application/trig"})
    assert by_suffix.status_code == asked.status_code == 200
    assert by_suffix.data == asked.data
    quads = list(ox.parse(by_suffix.data, format=ox.RdfFormat.TRIG))
    assert check_quads(quads) == [] and len(read_nanopubs(quads)) == 1
    assert plain.data != by_suffix.data  # plain TriG stays the record's own graphs


def test_the_browser_serves_every_nanopub_as_a_dump_the_manifest_lists(root: Path) -> None:
    """/dumps/nanopubs.trig.gz: what ``kg export --all --format nanopub`` makes, made on
    first request like the other dumps, listed with its SHA-256, and linked from the home
    page; signed with the server's key."""
    from helpers.web import app_over

    with app_over(root, nanopub_key=str(root / "served.pem")) as app:
        assert kg(root, "keys", "-o", str(root / "served.pem")).exit_code == 0
        client = app.test_client()
        assert 'href="/dumps/nanopubs.trig.gz"' in client.get("/").text
        response = client.get("/dumps/nanopubs.trig.gz")
        manifest = client.get("/dumps/manifest.json").json
    assert response.status_code == 200
    body = gzip.decompress(response.data)
    listed = manifest["files"]["nanopubs.trig.gz"]
    assert listed["sha256"] == hashlib.sha256(response.data).hexdigest()
    assert {"claimgraph.nq.gz", "nanopubs.trig.gz"} <= set(manifest["files"])
    quads = list(ox.parse(body, format=ox.RdfFormat.TRIG))
    assert check_quads(quads) == [] and listed["quads"] == len(quads)
    nanopubs = read_nanopubs(quads)
    assert len(nanopubs) == RECORDS + RUNS
    assert all(any(q.predicate.value.endswith("hasSignature") for q in np.quads) for np in nanopubs)


def test_a_key_setting_that_gives_no_key_is_a_clear_error(root: Path, tmp_path: Path) -> None:
    (tmp_path / "bad.pem").write_text("not a key\n")
    for path in (tmp_path / "missing.pem", tmp_path / "bad.pem"):
        for args in (("--all", "-o", str(tmp_path / "out")), (SEED_ID,)):
            result = kg(
                root, "export", *args, "--format", "nanopub", env={"KG_NANOPUB_KEY": str(path)}
            )
            assert result.exit_code == 2, result.output
            assert str(path) in result.stderr and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_each_nanopub_carries_the_licence_of_what_it_publishes(root: Path) -> None:
    """An imported record's is its upstream's licence (Every Eval Ever: MIT), the
    registry's own record's the operator's setting."""
    licences = {}
    for ident in (SEED_ID, "eee-helm-lite-openai-gpt-3-5-turbo-0613-e3723fd3-mmlu"):
        result = kg(root, "export", ident, "--format", "nanopub", env={"KG_LICENCE": LICENCE})
        [np] = read_nanopubs(list(ox.parse(result.stdout_bytes, format=ox.RdfFormat.TRIG)))
        licences[ident] = [
            q.object.value for q in np.graph(np.pubinfo) if q.predicate.value.endswith("license")
        ]
    assert licences == {
        SEED_ID: [LICENCE],
        "eee-helm-lite-openai-gpt-3-5-turbo-0613-e3723fd3-mmlu": ["http://spdx.org/licenses/MIT"],
    }
