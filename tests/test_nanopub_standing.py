"""A record's later life as nanopublications (kg/export/nanopubs.py): a record changed
between two releases gives a second nanopublication that supersedes the first; a
supersession and a withdrawal give nanopublications that supersede or retract the record's
(whose URI the change leaves as published); each run is one that cites the record's.
Everything ``kg export --all --format nanopub`` writes, signed, is accepted by our checker
and nanopub-sign's."""

from __future__ import annotations

import shutil
from itertools import pairwise
from pathlib import Path

import nanopub_sign
import pyoxigraph as ox
import pytest

from helpers import DATA, OTHER_ID, RUNS, SEED_ID
from helpers.nanopubs import SIGNER, kg
from kg.config import load_settings
from kg.export.nanopubs import record_nanopub
from kg.rdf.nanopub import Nanopub, check_quads, file_quads, read_nanopubs
from kg.registry import Registry

OTHER = OTHER_ID
WITHDRAWN = "eee-helm-lite-openai-gpt-3-5-turbo-0613-e3723fd3-mmlu"
SOURCE = "saadat-fellay-2026-genomic-lm-efficiency"  # the source of SEED_ID and OTHER
NPX = "http://purl.org/nanopub/x/"
CITO = "http://purl.org/spar/cito/"
KG = "https://w3id.org/claimgraph/ns#"
RECORD = "https://claimgraph.example/record/"


def published(root: Path, ident: str, env: dict[str, str] | None = None) -> str:
    """The trusty IRI of ``kg export ident --format nanopub``."""
    result = kg(root, "export", ident, "--format", "nanopub", env=env)
    assert result.exit_code == 0, result.output
    [np] = read_nanopubs(list(ox.parse(result.stdout_bytes, format=ox.RdfFormat.TRIG)))
    return np.iri


def said(np: Nanopub, graph: str, predicate: str) -> list[tuple[str, str]]:
    """(subject, object) of each ``predicate`` statement in the nanopub's ``graph``."""
    name = {"assertion": np.assertion, "pubinfo": np.pubinfo}[graph]
    return [
        (q.subject.value, q.object.value) for q in np.graph(name) if q.predicate.value == predicate
    ]


def kind(np: Nanopub) -> str:
    """What the nanopub says it is (npx:hasNanopubType): Claim, StandingChange, ..."""
    [(_, typed)] = said(np, "pubinfo", NPX + "hasNanopubType")
    return typed.rsplit("#")[-1]


@pytest.fixture(scope="module")
def story(tmp_path_factory) -> dict:
    """Two releases with a record changed between them, then a supersession and a
    withdrawal; every nanopublication exported, signed."""
    root = tmp_path_factory.mktemp("np-standing")
    shutil.copytree(DATA, root / "data")
    assert kg(root, "load").exit_code == 0
    key = root / "np.pem"
    assert kg(root, "keys", "-o", str(key)).exit_code == 0
    env = {"KG_NANOPUB_KEY": str(key), "KG_NANOPUB_SIGNER": SIGNER}
    before = {ident: published(root, ident, env) for ident in (OTHER, SEED_ID, WITHDRAWN)}
    first = kg(root, "release", "--date", "2026-12-01")
    assert first.exit_code == 0, first.output
    record_file = root / "data" / "records" / f"{OTHER}.yaml"
    text = record_file.read_text()
    record_file.write_text(text.replace("(Appendix A.3)", "(Appendix A.3 of the paper)", 1))
    assert kg(root, "load").exit_code == 0
    second = kg(root, "release", "--date", "2026-12-02")
    assert second.exit_code == 0, second.output
    # changed again, not released: the store's version supersedes the second release's
    record_file.write_text(text.replace("(Appendix A.3)", "(the paper's Appendix A.3)", 1))
    assert kg(root, "load").exit_code == 0
    curate = ("--agent", "claude", "--at", "2026-12-03T00:00:00Z")
    changes = [
        ("supersede", SEED_ID, OTHER, "--reason", "the later transcription", *curate),
        ("withdraw", WITHDRAWN, "--reason", "a duplicate", *curate),
        ("retract", SOURCE, "--reason", "the authors withdrew the paper", *curate),
    ]
    for change in changes:
        result = kg(root, *change)
        assert result.exit_code == 0, result.output
    out = root / "out"
    result = kg(root, "export", "--all", "--format", "nanopub", "-o", str(out), env=env)
    assert result.exit_code == 0, result.output
    quads = file_quads(out / "nanopubs.trig")
    return {
        "root": root,
        "env": env,
        "before": before,
        "releases": [first.stdout.strip(), second.stdout.strip()],
        "quads": quads,
        "nanopubs": {np.iri: np for np in read_nanopubs(quads)},
    }


def test_every_one_is_accepted_and_signed_by_both_checkers(story: dict) -> None:
    assert check_quads(story["quads"]) == []
    for np in story["nanopubs"].values():
        assert [q for q in np.quads if q.predicate.value.endswith("hasSignature")]
        if kind(np) != "Claim":  # records: test_nanopub_records.py
            nanopub_sign.Nanopub(ox.serialize(np.quads, format=ox.RdfFormat.TRIG).decode()).check()


def test_a_record_changed_between_releases_supersedes_its_first(story: dict) -> None:
    """Three contents of one record: the first release's, the second's, the store's; each
    a nanopublication that supersedes the one before, all in the dump, and each release
    still gives its own."""
    nanopubs, first = story["nanopubs"], story["before"][OTHER]
    env = story["env"]
    settings = load_settings(
        {
            "store": story["root"] / "store",
            "data": story["root"] / "data",
            "nanopub_key": env["KG_NANOPUB_KEY"],
            "nanopub_signer": env["KG_NANOPUB_SIGNER"],
        }
    )
    released = []
    for release in story["releases"]:
        with Registry(settings, release=release) as registry:
            released.append(record_nanopub(registry, OTHER)[0])
    now = published(story["root"], OTHER, env)
    chain = [first, released[1], now]
    assert released[0] == first and len(set(chain)) == 3 and set(chain) <= set(nanopubs)
    for older, newer in pairwise(chain):
        assert said(nanopubs[newer], "pubinfo", NPX + "supersedes") == [(newer, older)]
    assert said(nanopubs[first], "pubinfo", NPX + "supersedes") == []


def test_a_supersession_supersedes_the_records_nanopub_as_published(story: dict) -> None:
    seed = story["before"][SEED_ID]
    assert published(story["root"], SEED_ID, story["env"]) == seed  # its standing left it
    [np] = [
        np
        for np in story["nanopubs"].values()
        if said(np, "pubinfo", NPX + "supersedes") == [(np.iri, seed)]
    ]
    assert (RECORD + OTHER, RECORD + SEED_ID) in said(np, "assertion", KG + "supersedes")


def test_a_withdrawal_and_a_source_retracted_retract_the_records_nanopubs(story: dict) -> None:
    """One nanopublication per record a change ends: the withdrawn record's, and each
    record quoted from the retracted source (its nanopublication as the store holds it)."""
    retractions = sorted(
        pair
        for np in story["nanopubs"].values()
        for pair in said(np, "assertion", NPX + "retracts")
    )
    claude = "https://claimgraph.example/agent/claude"
    current = published(story["root"], OTHER, story["env"])
    assert retractions == sorted(
        (claude, np) for np in (story["before"][WITHDRAWN], story["before"][SEED_ID], current)
    )


def test_each_run_cites_the_records_it_judged(story: dict) -> None:
    current = {
        RECORD + SEED_ID: story["before"][SEED_ID],
        RECORD + OTHER: published(story["root"], OTHER, story["env"]),
    }
    runs = [np for np in story["nanopubs"].values() if kind(np) == "ReproductionRun"]
    assert len(runs) == RUNS
    for np in runs:
        cited = {
            (o, predicate.removeprefix(CITO))
            for predicate in (CITO + "confirms", CITO + "disputes", CITO + "discusses")
            for _, o in said(np, "pubinfo", predicate)
        }
        outcomes: dict[str, set[str]] = {}
        for verdict, record in said(np, "assertion", KG + "verdictOn"):
            outcomes.setdefault(current[record], set()).update(
                o.rsplit("#")[-1] for s, o in said(np, "assertion", KG + "outcome") if s == verdict
            )
        assert outcomes and cited == {
            (record, "disputes" if "inconsistent" in found else "confirms")
            for record, found in outcomes.items()
        }
