"""Verifications in the browser: each review's checks on the record page, a record whose
latest verification failed flagged there and in the index facets (the app in this process,
and a real server in Debian's Chromium)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from bench import pdfgen
from helpers import sha256
from helpers.servers import running_server
from helpers.verifying import write_data
from helpers.web import app_over
from kg.cli import main

GOOD, BAD = "rec-verified", "rec-value-changed"


@pytest.fixture(scope="module")
def verified_root(tmp_path_factory) -> Path:
    """Data and store of two records: one whose PDF passes every check, and one whose PDF
    prints 11.94 where the record quotes 11.49 (quote and value checks fail)."""
    root = tmp_path_factory.mktemp("verified")
    good = pdfgen.make_pdf(root / "good.pdf", 11, {6: pdfgen.paragraph()})
    bad = pdfgen.make_pdf(
        root / "bad.pdf", 11, {6: pdfgen.paragraph("the NT 2.5B checkpoint (33.88 → 11.94 GB)")}
    )
    write_data(root / "data", sha256(good), record=GOOD, source="src-good")
    write_data(root / "data", sha256(bad), record=BAD, source="src-bad")
    runner = CliRunner()
    for record, pdf, code in ((GOOD, good, 0), (BAD, bad, 1)):
        result = runner.invoke(
            main,
            [
                "--store",
                str(root / "store"),
                "verify",
                record,
                "--pdf",
                str(pdf),
                "--data",
                str(root / "data"),
            ],
        )
        assert result.exit_code == code, result.output
    return root


@pytest.fixture(scope="module")
def verified(verified_root: Path) -> Iterator[FlaskClient]:
    """The app over them, in this process."""
    with app_over(verified_root) as app:
        yield app.test_client()


@pytest.fixture(scope="module")
def verified_server(verified_root: Path) -> Iterator[str]:
    """`kg serve` over them, for the browser."""
    with running_server(verified_root) as served:
        yield served.url


def test_the_index_facets_flag_the_failed_verification(verified: FlaskClient) -> None:
    listing = verified.get("/records.json").get_json()
    assert {(f["value"], f["label"], f["count"]) for f in listing["facets"]["verification"]} == {
        ("failed", "failed", 1),
        ("passed", "passed", 1),
    }
    flagged = verified.get("/records.json?verification=failed").get_json()
    assert [r["id"] for r in flagged["rows"]] == [BAD]
    assert flagged["rows"][0]["verification"] == "failed"
    csv = verified.get("/records.csv").text
    assert "verification" in csv.splitlines()[0].split(",")


def test_the_record_page_lists_every_check(verified: FlaskClient) -> None:
    bad = verified.get(f"/record/{BAD}").text
    assert "Verification failed." in bad
    assert "quote check: not found as quoted" in bad
    good = verified.get(f"/record/{GOOD}").text
    assert "verification-flag" not in good and "Source verification" in good


@pytest.mark.browser
def test_a_browser_sees_the_flag_and_the_checks(page, verified_server: str, tmp_path) -> None:
    page.goto(f"{verified_server}/record/{BAD}")
    flag = page.locator("#verification-flag")
    assert flag.is_visible()
    assert "Verification failed" in flag.inner_text()
    rows = page.locator("#verification table.checks tbody tr")
    assert rows.count() == 4
    outcomes = [rows.nth(i).locator("td.outcome").inner_text() for i in range(4)]
    assert outcomes == ["passed", "passed", "failed", "failed"]
    assert "11.94" in rows.nth(3).inner_text()
    # A failed outcome is set apart from a passed one.
    colours = {
        rows.nth(i).locator("td.outcome").evaluate("e => getComputedStyle(e).color") for i in (0, 2)
    }
    assert len(colours) == 2
    page.screenshot(path=str(tmp_path / "flagged.png"), full_page=True)

    page.goto(f"{verified_server}/records")
    page.locator('[data-facet="verification"] a', has_text="failed").click()
    page.wait_for_url("**verification=failed**")
    results = page.locator("section.results tbody tr")
    assert results.count() == 1
    assert results.first.locator(".tag.flag").inner_text() == "verification failed"
    page.goto(f"{verified_server}/record/{GOOD}")
    assert page.locator("#verification-flag").count() == 0
    assert page.locator("#verification td.outcome").all_inner_texts() == ["passed"] * 4
