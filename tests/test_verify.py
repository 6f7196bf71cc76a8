"""kg verify against PDFs the tests make: each variant of the issue gives the right outcome
per check, the review is written, validated and loaded like any data file, and bad PDFs
are reasons, never tracebacks."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bench import pdfgen
from helpers import BASE, sha256
from helpers.checks import assert_context_names_every_term, assert_jsonld_round_trips, assert_same
from helpers.verifying import RECORD, SOURCE, write_data
from kg.cli import main
from kg.model.datafiles import parse_yaml
from kg.store import EmbeddedStore
from kg.store.queries import canned_query

SENTENCE = pdfgen.SENTENCE
HYPHENATED = (
    "ZeRO offload. Offloading optimizer states lowers the peak memory of the NT "
    "2.5B check-\npoint (33.88 →\n11.49 GB) at sequence length 1000."
)
LIGATURE_QUOTE = "the NT 2.5B checkpoint (33.88 → 11.49 GB) fits after offloading"
LIGATURES = (
    "ZeRO offload. Offloading lowers the peak memory: the NT 2.5B checkpoint "
    "(33.88 → 11.49 GB) \ufb01ts after of\ufb02oading."
)
OUTSIDE = (
    pdfgen.paragraph("the NT 2.5B checkpoint (33.88 → 12.02 GB)")
    + " Table 2 lists 11.49 GB for the smaller model."
)


def make(tmp: Path, name: str, special: dict[int, str] | None = None, **options) -> Path:
    return pdfgen.make_pdf(tmp / f"{name}.pdf", 11, special, **options)


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory) -> dict[str, Path]:
    """Every PDF of the issue's variants, made once."""
    tmp = tmp_path_factory.mktemp("pdfs")
    base = make(tmp, "base", {6: pdfgen.paragraph()})
    truncated = tmp / "truncated.pdf"
    truncated.write_bytes(base.read_bytes()[: base.stat().st_size // 2])
    corrupt = tmp / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 40)
    return {
        "base": base,
        "hyphenated": make(tmp, "hyphenated", {6: HYPHENATED}),
        "ligatures": make(tmp, "ligatures", {6: LIGATURES}),
        "justified": make(
            tmp,
            "justified",
            {6: pdfgen.paragraph() + " " + pdfgen.filler(6, 40)},
            align="J",
            width=90,
        ),
        "value-changed": make(
            tmp, "value-changed", {6: pdfgen.paragraph("the NT 2.5B checkpoint (33.88 → 11.94 GB)")}
        ),
        "value-outside": make(tmp, "value-outside", {6: OUTSIDE}),
        "page-7": make(tmp, "page-7", {7: pdfgen.paragraph()}),
        "truncated": truncated,
        "corrupt": corrupt,
        "encrypted": make(tmp, "encrypted", {6: pdfgen.paragraph()}, user_password="secret"),
        "owner-only": make(tmp, "owner-only", {6: pdfgen.paragraph()}, owner_password="owner"),
        "image-only": make(tmp, "image-only", {6: pdfgen.paragraph()}, image_pages=[6]),
    }


P, F, N = "passed", "failed", "not-checked"
#: variant -> (the PDF read, the PDF pinned, record changes, outcomes of hash, page, quote,
#: value, and a phrase each check's detail must hold)
VARIANTS = {
    "base": (
        "base",
        "base",
        {},
        (P, P, P, P),
        (
            "pins",
            "page 6 of 11 has text and holds the quote",
            "found on page 6",
            "11.49 is printed inside the quote on page 6",
        ),
    ),
    "hyphenated": ("hyphenated", "hyphenated", {}, (P, P, P, P), ("", "", "found on page 6", "")),
    "ligatures": (
        "ligatures",
        "ligatures",
        {"quote": LIGATURE_QUOTE},
        (P, P, P, P),
        ("", "", "found on page 6", ""),
    ),
    "justified": ("justified", "justified", {}, (P, P, P, P), ("", "", "found on page 6", "")),
    "value-changed": (
        "value-changed",
        "value-changed",
        {},
        (P, P, F, F),
        (
            "",
            "",
            "has the sentence with 11.94 where the quote has 11.49",
            "page 6 prints 11.94 inside the quoted sentence, not 11.49",
        ),
    ),
    "value-outside": (
        "value-outside",
        "value-outside",
        {},
        (P, P, F, F),
        ("", "", "with 12.02", "11.49 appears on page 6 outside the quote, which does not count"),
    ),
    "page-7": (
        "page-7",
        "page-7",
        {},
        (P, F, P, P),
        (
            "",
            "the quote is on page 7, not on page 6",
            "found on page 7 (the locator says page 6)",
            "inside the quote on page 7",
        ),
    ),
    "hash-mismatch": (
        "value-changed",
        "base",
        {},
        (F, N, N, N),
        (
            "a different file",
            "not the pinned artifact",
            "not the pinned artifact",
            "not the pinned artifact",
        ),
    ),
    "truncated": (
        "truncated",
        "truncated",
        {},
        (P, N, N, N),
        ("", "cannot be read", "cannot be read", "cannot be read"),
    ),
    "corrupt": ("corrupt", "corrupt", {}, (P, N, N, N), ("", "cannot be read", "", "")),
    "encrypted": (
        "encrypted",
        "encrypted",
        {},
        (P, N, N, N),
        ("", "encrypted with a password", "encrypted", "encrypted"),
    ),
    "owner-password-only": (
        "owner-only",
        "owner-only",
        {},
        (P, P, P, P),
        ("", "", "found on page 6", ""),
    ),
    "image-only-page": (
        "image-only",
        "image-only",
        {},
        (P, N, N, N),
        (
            "",
            "page 6 has no text layer",
            "no other page holds the quote",
            "the quote was not found",
        ),
    ),
    "page-past-the-end": (
        "base",
        "base",
        {"page": "12"},
        (P, N, P, P),
        (
            "",
            "names page 12, but the file has 11 pages; the quote is on page 6",
            "found on page 6 (the locator says page 12)",
            "",
        ),
    ),
}


def verify(runner, root: Path, *args: str):
    return runner.invoke(
        main, ["--store", str(root / "store"), "verify", *args, "--data", str(root / "data")]
    )


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_each_variant_gives_the_right_outcome_per_check(variant, pdfs, tmp_path, runner):
    read, pinned, changes, outcomes, details = VARIANTS[variant]
    write_data(tmp_path / "data", sha256(pdfs[pinned]), **changes)
    result = verify(runner, tmp_path, RECORD, "--pdf", str(pdfs[read]))

    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == (0 if outcomes == (P, P, P, P) else 1), result.output
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [
        "hash-check",
        "page-check",
        "quote-check",
        "value-check",
    ]
    words = {P: "passed", F: "FAILED", N: "not checked"}
    for line, outcome in zip(lines, outcomes, strict=True):
        assert line[13:].startswith(words[outcome]), line

    [review] = (tmp_path / "data" / "reviews").glob("*.yaml")
    doc = parse_yaml(review.read_text())
    assert [c["outcome"] for c in doc["checks"]] == list(outcomes)
    for check, phrase in zip(doc["checks"], details, strict=True):
        assert phrase in check["detail"], check
    assert doc["file"]["sha256"] == sha256(pdfs[read])
    # The review used the pinned artifact only when the file read is that file.
    assert ("artifact_sha256" in doc) == (read == pinned)
    assert (doc.get("status") == "source-checked") == (outcomes == (P, P, P, P))
    # Loaded through the one validate-and-load path: the store holds it.
    with EmbeddedStore(tmp_path / "store", read_only=True) as store:
        rows = list(store.query(*_by_method("pdf-text-parse")))
    assert [r["id"].value for r in rows] == [RECORD]
    assert rows[0]["review"].value == f"{BASE}activity/{doc['id']}"
    counted = {k: int(rows[0][k].value) for k in ("passed", "failed", "notChecked")}
    assert counted == {
        "passed": outcomes[1:].count(P),
        "failed": outcomes[1:].count(F),
        "notChecked": outcomes[1:].count(N),
    }


def _by_method(method: str):
    query = canned_query("reviews-by-method")
    return query.text, query.bindings({"method": method}, BASE)


def test_the_page_a_quote_is_on_is_named(pdfs, tmp_path, runner) -> None:
    write_data(tmp_path / "data", sha256(pdfs["page-7"]))
    verify(runner, tmp_path, RECORD, "--pdf", str(pdfs["page-7"]))
    [review] = (tmp_path / "data" / "reviews").glob("*.yaml")
    page, quote, value = parse_yaml(review.read_text())["checks"][1:]
    assert (page["expected"], page["found"], page["found_on_page"]) == ("6", "7", "7")
    assert (quote["found"], quote["found_on_page"]) == (SENTENCE, "7")
    assert value["found_on_page"] == "7"


@pytest.mark.parametrize(
    ("changes", "outcomes", "phrase"),
    [
        ({"page": None}, (P, N, P, P), "the locator names no page; the quote is on page 6"),
        ({"quote": None}, (P, P, N, N), "the locator gives no quote"),
        (
            {"quote": "the NT 2.5B checkpoint"},
            (P, P, P, F),
            "the quote does not contain the printed value 11.49",
        ),
    ],
)
def test_what_a_locator_leaves_out_cannot_be_checked(
    pdfs, tmp_path, runner, changes, outcomes, phrase
) -> None:
    write_data(tmp_path / "data", sha256(pdfs["base"]), **changes)
    result = verify(runner, tmp_path, RECORD, "--pdf", str(pdfs["base"]))
    assert result.exit_code == 1, result.output
    [review] = (tmp_path / "data" / "reviews").glob("*.yaml")
    checks = parse_yaml(review.read_text())["checks"]
    assert tuple(c["outcome"] for c in checks) == outcomes
    assert any(phrase in c["detail"] for c in checks), checks


def test_a_source_without_a_pinned_hash_cannot_be_checked(pdfs, tmp_path, runner) -> None:
    write_data(tmp_path / "data", None)
    result = verify(runner, tmp_path, RECORD, "--pdf", str(pdfs["base"]))
    assert result.exit_code == 1
    [review] = (tmp_path / "data" / "reviews").glob("*.yaml")
    doc = parse_yaml(review.read_text())
    assert {c["outcome"] for c in doc["checks"]} == {N}
    assert "pins no artifact" in doc["checks"][0]["detail"]


def test_the_review_and_the_verifier_agent_are_real_provenance(pdfs, tmp_path, runner) -> None:
    write_data(tmp_path / "data", sha256(pdfs["base"]))
    result = verify(runner, tmp_path, RECORD, "--pdf", str(pdfs["base"]))
    assert result.exit_code == 0, result.output
    from kg import __version__

    agent = parse_yaml(
        (tmp_path / "data" / "agents" / f"claimgraph-verify-{__version__}.yaml").read_text()
    )
    assert (agent["agent_type"], agent["version"]) == ("software", __version__)
    [review] = (tmp_path / "data" / "reviews").glob("*.yaml")
    doc = parse_yaml(review.read_text())
    assert doc["agent"] == agent["id"] and doc["role"] == "verifier"
    assert doc["started_at"] <= doc["reviewed_at"] and doc["reviewed_at"].endswith("Z")
    import pypdf

    assert {"name": "pypdf", "version": pypdf.__version__} in doc["software"]
    assert doc["methods"] == ["source-hash-verification", "pdf-text-parse"]
    with EmbeddedStore(tmp_path / "store", read_only=True) as store:
        rows = {
            (r["label"].value, r["method"].value, r["origin"].value)
            for r in store.query(canned_query("reviews-by-agent-and-method").text)
        }
    assert rows == {
        (agent["label"], m, "claimgraph") for m in ("source-hash-verification", "pdf-text-parse")
    }
    # A second verification of the same record is a review of its own.
    again = verify(runner, tmp_path, RECORD, "--pdf", str(pdfs["base"]))
    assert again.exit_code == 0
    assert len(list((tmp_path / "data" / "reviews").glob("*.yaml"))) == 2


def test_another_agent_must_exist(pdfs, tmp_path, runner) -> None:
    write_data(tmp_path / "data", sha256(pdfs["base"]))
    missing = verify(runner, tmp_path, RECORD, "--pdf", str(pdfs["base"]), "--agent", "alice")
    assert missing.exit_code == 2
    assert "no agent file defines agent 'alice'" in missing.stderr
    assert not (tmp_path / "data" / "reviews").exists()
    (tmp_path / "data" / "agents").mkdir()
    (tmp_path / "data" / "agents" / "alice.yaml").write_text(
        "kind: agent\nid: alice\nagent_type: person\nlabel: Alice (a test person)\n"
    )
    ok = verify(runner, tmp_path, RECORD, "--pdf", str(pdfs["base"]), "--agent", "alice")
    assert ok.exit_code == 0, ok.output
    [review] = (tmp_path / "data" / "reviews").glob("*.yaml")
    assert parse_yaml(review.read_text())["agent"] == "alice"
    assert not list((tmp_path / "data" / "agents").glob("claimgraph-verify-*"))


def test_usage_errors(pdfs, tmp_path, runner) -> None:
    write_data(tmp_path / "data", sha256(pdfs["base"]))
    for args in (
        [],
        [RECORD],
        ["--all"],
        [RECORD, "--all", "--pdf-dir", str(tmp_path)],
        [RECORD, "--pdf", str(pdfs["base"]), "--pdf-dir", str(tmp_path)],
    ):
        result = verify(runner, tmp_path, *args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
    unknown = verify(runner, tmp_path, "no-such-record", "--pdf", str(pdfs["base"]))
    assert unknown.exit_code == 1
    assert "kg: error: no record with id 'no-such-record'" in unknown.stderr
    assert not (tmp_path / "data" / "reviews").exists()


def test_invalid_data_is_reported_before_anything_is_checked(pdfs, tmp_path, runner) -> None:
    write_data(tmp_path / "data", sha256(pdfs["base"]), page="six")
    result = verify(runner, tmp_path, RECORD, "--pdf", str(pdfs["base"]))
    assert result.exit_code == 1
    assert "locator.page: not a page number" in result.stderr
    assert result.stdout == ""
    assert not (tmp_path / "data" / "reviews").exists()


# -- batch ---------------------------------------------------------------------------------
def test_all_matches_pdfs_by_hash_and_by_name_map(pdfs, tmp_path, runner) -> None:
    data = tmp_path / "data"
    write_data(data, sha256(pdfs["base"]), record="rec-a", source="src-a")
    write_data(data, sha256(pdfs["page-7"]), record="rec-b", source="src-b")
    write_data(data, sha256(pdfs["hyphenated"]), record="rec-c", source="src-c")
    write_data(data, sha256(pdfs["justified"]), record="rec-d", source="src-d")
    folder = tmp_path / "pdfs"
    folder.mkdir()
    for name, pdf in (
        ("a.pdf", "base"),
        ("b.pdf", "page-7"),
        ("wrong-c.pdf", "value-changed"),
        ("stray.pdf", "ligatures"),
    ):
        (folder / name).write_bytes(pdfs[pdf].read_bytes())
    names = tmp_path / "names.yaml"
    names.write_text("wrong-c.pdf: src-c\n")

    result = runner.invoke(
        main,
        [
            "--store",
            str(tmp_path / "store"),
            "verify",
            "--all",
            "--pdf-dir",
            str(folder),
            "--name-map",
            str(names),
            "--data",
            str(data),
        ],
    )
    assert result.exit_code == 1, result.output
    table = result.stdout.splitlines()
    assert table[0].split() == ["record", "pdf", "hash", "page", "quote", "value"]
    rows = {line.split()[0]: line.split()[1:] for line in table[2:-1]}
    assert rows == {
        "rec-a": ["a.pdf", "passed", "passed", "passed", "passed"],
        "rec-b": ["b.pdf", "passed", "FAILED", "passed", "passed"],
        "rec-c": ["wrong-c.pdf", "FAILED", "not", "checked", "not", "checked", "not", "checked"],
    }
    assert table[-1] == "(3 rows)"
    assert "verifying" not in result.stderr  # no progress bar where stderr is no terminal
    assert "1 passed every check, 2 with a failed check" in result.stderr
    assert "kg: no PDF for source src-d" in result.stderr
    assert "stray.pdf matches no source" in result.stderr
    assert len(list((data / "reviews").glob("*.yaml"))) == 3


def test_all_with_a_bad_name_map(pdfs, tmp_path, runner) -> None:
    write_data(tmp_path / "data", sha256(pdfs["base"]))
    folder = tmp_path / "pdfs"
    folder.mkdir()
    names = tmp_path / "names.yaml"
    for text, message in (
        ("missing.pdf: " + SOURCE, "missing.pdf: no such file"),
        ("- a list", "must map PDF file names to source ids"),
        ("x.pdf: [", "cannot read the name map"),
    ):
        (folder / "x.pdf").write_bytes(b"%PDF")
        names.write_text(text)
        result = runner.invoke(
            main,
            [
                "--store",
                str(tmp_path / "store"),
                "verify",
                "--all",
                "--pdf-dir",
                str(folder),
                "--name-map",
                str(names),
                "--data",
                str(tmp_path / "data"),
            ],
        )
        assert result.exit_code == 2, result.output
        assert message in result.stderr
    nothing = runner.invoke(
        main,
        [
            "--store",
            str(tmp_path / "store"),
            "verify",
            "--all",
            "--pdf-dir",
            str(folder),
            "--data",
            str(tmp_path / "data"),
        ],
    )
    assert nothing.exit_code == 1
    assert "is the file of a record's source" in nothing.stderr


# -- the review file format: the shapes hold what a verification found -------------------
def _valid_review(pdfs, tmp_path, runner) -> tuple[Path, Path]:
    data = write_data(tmp_path / "data", sha256(pdfs["page-7"]))
    assert verify(runner, tmp_path, RECORD, "--pdf", str(pdfs["page-7"])).exit_code == 1
    [review] = (data / "reviews").glob("*.yaml")
    return data, review


REVIEW_VARIANTS = [
    (
        "hash-outcome-edited",
        lambda d: d["checks"][0].update(outcome="failed"),
        "checks[0].outcome",
        "the outcome does not follow from the hashes compared",
    ),
    (
        "hash-found-edited",
        lambda d: d["checks"][0].update(found="0" * 64, expected="0" * 64),
        "checks",
        "the hash check found 0000",
    ),
    (
        "file-is-not-the-artifact",
        lambda d: d["file"].update(sha256="1" * 64),
        "artifact_sha256",
        "the file it read has another SHA-256",
    ),
    (
        "method-of-check",
        lambda d: d["checks"][2].update(method="source-hash-verification"),
        "checks[2].method",
        "a quote check is made by the method pdf-text-parse",
    ),
    (
        "method-not-listed",
        lambda d: d.update(methods=["source-hash-verification"]),
        "checks[1]",
        "a check is made by pdf-text-parse, which the review's methods do not list",
    ),
    (
        "unknown-check",
        lambda d: d["checks"][1].update(check="vibe-check"),
        "checks[1].check",
        "not a check (one of: hash-check, page-check, quote-check, value-check, "
        "pointer-check, json-value-check)",
    ),
    (
        "bad-found-page",
        lambda d: d["checks"][1].update(found_on_page="0"),
        "checks[1].found_on_page",
        "not a page number",
    ),
    ("bad-size", lambda d: d["file"].update(bytes="big"), "file.bytes", "not a size in bytes"),
    (
        "package-without-version",
        lambda d: d["software"][0].pop("version"),
        "software[0].version",
        "missing (required)",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("change", "field", "message"), [pytest.param(*v[1:], id=v[0]) for v in REVIEW_VARIANTS]
)
def test_an_edited_review_is_rejected_by_both_engines(
    pdfs, tmp_path, runner, change, field, message
) -> None:

    from kg.errors import InvalidDataError
    from kg.model.ingest import validate_files

    data, review = _valid_review(pdfs, tmp_path, runner)
    doc = parse_yaml(review.read_text())
    change(doc)
    review.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False))
    with pytest.raises(InvalidDataError) as info:
        validate_files([data], BASE)
    assert any(p.field == field and message in p.message for p in info.value.problems), (
        info.value.lines()
    )
    assert_same([data])


def test_review_files_have_short_jsonld_names_and_round_trip(pdfs, tmp_path, runner) -> None:
    from kg.model.validation import map_paths

    data, _ = _valid_review(pdfs, tmp_path, runner)
    mapped = map_paths([data / "reviews", data / "agents"], BASE)
    assert {m.file.kind for m in mapped} == {"review", "agent"}
    assert_context_names_every_term(mapped)
    assert_jsonld_round_trips(mapped)
