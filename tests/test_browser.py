"""A real browser (Debian's Chromium through Playwright) on the served pages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import bibtexparser
import pytest

from helpers import OTHER_ID, ROOT, SEED_ID

pytestmark = pytest.mark.browser

SEED_PAGE = ROOT / "tests" / "fixtures" / "seed-page.txt"
SECTIONS = [
    "Methods",
    "Reproduction",
    "Evidence",
    "Evidence table",
    "Sources and history",
    "Technical metadata and extraction receipts",
    "Related records",
]


def seed_values() -> list[str]:
    """Every value string of the seed page, cut where the page's own layout glues or joins them:
    at " · ", at ": ", at table cells, and where extracted text ran two words together."""
    pieces: list[str] = []
    for line in SEED_PAGE.read_text().splitlines():
        line = line.strip()
        if not line or set(line) <= set("|- "):
            continue
        line = line.removeprefix("- ")
        # the headline: its value and its label, between which the page puts the unit
        line = re.sub(r"^(\d[\d.]*) (?=[A-Z])", r"\1 · ", line)
        cells = [c for c in line.strip("|").split(" | ")] if line.startswith("|") else [line]
        for cell in cells:
            for part in re.split(r" · |: |(?<=[a-z.])(?=[A-Z][a-z])", cell):
                part = " ".join(part.split()).strip(" ;")
                if len(part) > 1:
                    pieces.append(part)
    return pieces


def normalized(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def record_page(page, server: str):
    page.goto(f"{server}/record/{SEED_ID}")
    for summary in page.locator("details > summary").all():
        summary.click()  # open every collapsed section, as a reader would
    return page


def test_every_value_of_the_seed_page_is_shown(record_page, tmp_path: Path) -> None:
    text = normalized(record_page.inner_text("body"))
    values = seed_values()
    assert len(values) > 100
    missing = [v for v in values if v not in text]
    assert not missing, missing
    record_page.screenshot(path=str(tmp_path / "record.png"), full_page=True)


def test_sections_are_in_the_seed_order(record_page) -> None:
    headings = [h.strip() for h in record_page.locator("main h2").all_inner_texts()]
    assert headings == SECTIONS


def test_index_search_finds_the_seed_by_zero(page, server: str, tmp_path: Path) -> None:
    page.goto(server + "/")
    page.fill("input[name=q]", "ZeRO")
    page.click("header button[type=submit]")
    page.wait_for_url(re.compile(r"q=ZeRO"))
    links = page.locator("section.results td a")
    # both numbers of the seed's sentence, which is about ZeRO offload
    assert {links.nth(i).get_attribute("href") for i in range(links.count())} == {
        f"/record/{SEED_ID}",
        f"/record/{OTHER_ID}",
    }
    page.screenshot(path=str(tmp_path / "index.png"), full_page=True)


def test_the_claims_of_one_sentence_side_by_side(page, server: str, tmp_path: Path) -> None:
    """A reader on the 33.88 GB record sees both claims and their runs, follows the link to
    the 11.49 GB record, and finds the same table there, linking back."""
    page.goto(f"{server}/record/{OTHER_ID}")
    table = page.locator("table.quote-claims")
    assert table.is_visible()
    heads = [normalized(t) for t in table.locator("thead th").all_inner_texts()]
    assert heads == ["Claim", "33.88 GB (this record)", "11.49 GB"]
    assert table.locator("tr.run").count() >= 3  # the seed's runs, with their verdicts
    page.screenshot(path=str(tmp_path / "other.png"), full_page=True)
    table.locator("thead a", has_text="11.49 GB").click()
    page.wait_for_url(re.compile(re.escape(f"/record/{SEED_ID}")))
    heads = [normalized(t) for t in page.locator("table.quote-claims thead th").all_inner_texts()]
    assert heads == ["Claim", "33.88 GB", "11.49 GB (this record)"]
    page.locator("#related a", has_text="33.88 GB").click()
    page.wait_for_url(re.compile(re.escape(f"/record/{OTHER_ID}")))
    reading = page.locator("table.evidence span.tag", has_text="Transcriber's reading")
    assert reading.count() == 1 and reading.is_visible()


def test_a_facet_click_filters(page, server: str) -> None:
    page.goto(server + "/?q=nothing-matches-this")
    assert page.locator("section.results td a").count() == 0
    # the seed's model first: among 425 records its metric is too rare to be a facet value
    page.goto(server + "/?model=NT+2.5B")
    page.locator("[data-facet=metric] a", has_text="Peak memory").click()
    page.wait_for_url(re.compile(r"metric=peak-memory"))
    assert "2 records" in page.inner_text("p.count")
    assert page.locator("[data-facet=metric] li.selected").count() == 1
    page.locator("[data-facet=review_status] a", has_text="source checked").click()
    page.wait_for_url(re.compile(r"review_status="))
    assert page.locator("section.results td a").count() == 1


def test_a_canned_query_from_the_form(page, server: str, tmp_path: Path) -> None:
    page.goto(server + "/sparql")
    form = page.locator("form.canned[data-query=results-for-model]")
    form.locator("input[name=model]").fill("NT 2.5B")
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"canned=results-for-model"))
    link = page.locator("table.results a", has_text=f"record/{SEED_ID}")
    assert link.count() == 1
    assert link.get_attribute("href") == f"/record/{SEED_ID}"
    page.screenshot(path=str(tmp_path / "sparql.png"), full_page=True)


def test_copy_bibtex_and_download_citations(browser, server: str, tmp_path: Path) -> None:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{server}/record/{SEED_ID}")
        button = page.locator("button.copy-bibtex")
        assert button.is_visible()  # the script revealed it
        button.click()
        page.locator(".copy-status", has_text="BibTeX copied").wait_for()
        copied = page.evaluate("navigator.clipboard.readText()")
        keys = [e.key for e in bibtexparser.parse_string(copied).entries]
        assert keys == ["saadat-fellay-2026-genomic-lm-efficiency", SEED_ID]

        for text, suffix in (("CSL-JSON", "csl.json"), ("RIS", "ris")):
            with page.expect_download() as info:
                page.locator("nav.cite a", has_text=text).click()
            download = info.value
            assert download.suggested_filename == f"{SEED_ID}.{suffix}"
            saved = tmp_path / download.suggested_filename
            download.save_as(saved)
            if suffix == "csl.json":
                assert json.loads(saved.read_text())[0]["locator"] == "6"
            else:
                assert saved.read_text().startswith("TY  - CONF\n")
        assert not errors, errors
    finally:
        context.close()


def test_the_home_search_suggests_records_as_one_types(page, server: str) -> None:
    page.goto(server + "/")
    page.locator("#home-q").press_sequentially("ZeRO", delay=30)
    suggestions = page.locator("#home-suggestions li a")
    suggestions.last.wait_for()
    hrefs = suggestions.evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert f"/record/{SEED_ID}" in hrefs and f"/record/{OTHER_ID}" in hrefs
    assert suggestions.last.inner_text() == "All 2 matching records"
    suggestions.last.click()
    page.wait_for_url(re.compile(r"/records\?q=ZeRO$"))
    assert "2 records" in page.inner_text("p.count")
