"""The leaderboards, model pages, comparison, disagreements and the index at two widths, in
Chromium against a real `kg serve` over the bundled data and the generated lower-is-better
board (`helpers.eee.LOWER_IS_BETTER`). Screenshots stay in each test's temporary directory;
no page may log a console error."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from urllib.parse import quote

import pytest

from helpers.eee import MMLU, TINY, with_lower_is_better_board
from helpers.servers import running_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> str:
    root = with_lower_is_better_board(tmp_path_factory.mktemp("views-site"))
    with running_server(root) as served:
        yield served.url


@pytest.fixture
def visit(page):
    """``page`` going to a path of the site, failing the test on any console error."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    assert not errors, errors


def board_values(page) -> list[tuple[int, Decimal]]:
    rows = page.locator("table.board tbody tr")
    return [
        (
            int(rows.nth(i).get_attribute("data-rank")),
            Decimal(rows.nth(i).locator("td").nth(2).inner_text()),
        )
        for i in range(rows.count())
    ]


def test_a_higher_is_better_board_in_order_with_its_chart(visit, site, tmp_path: Path) -> None:
    visit.goto(f"{site}/benchmark/{MMLU}")
    got = board_values(visit)
    assert len(got) > 3
    assert [v for _, v in got] == sorted((v for _, v in got), reverse=True)
    assert [r for r, _ in got] == sorted(r for r, _ in got)
    assert visit.locator("svg.board-chart rect.mark").count() == len(got)
    assert "MMLU" in visit.locator("svg.board-chart text.axis-title").all_text_contents()
    visit.screenshot(path=str(tmp_path / "mmlu-board.png"), full_page=True)


def test_a_lower_is_better_board_in_order(visit, site, tmp_path: Path) -> None:
    visit.goto(f"{site}/benchmark/{TINY}")
    got = board_values(visit)
    assert [v for _, v in got] == sorted(v for _, v in got)
    assert [r for r, _ in got] == [1, 2, 2, 4, 5, 6]
    visit.screenshot(path=str(tmp_path / "tiny-board.png"), full_page=True)


def test_filters_change_the_rows_the_counts_and_the_url(visit, site, tmp_path: Path) -> None:
    visit.goto(f"{site}/benchmark/{TINY}")
    before = visit.locator("table.board tbody tr").count()
    visit.select_option("select[name=precision]", "bfloat16")
    visit.fill("input[name=params_max]", "10")
    visit.click("form.board-filters button[type=submit]")
    visit.wait_for_url(re.compile(r"precision=bfloat16.*params_max=10|params_max=10.*precision"))
    after = visit.locator("table.board tbody tr").count()
    assert 0 < after < before
    assert visit.locator("#board-count").inner_text().startswith(f"{after} record")
    assert visit.locator("svg.board-chart rect.mark").count() == after
    visit.screenshot(path=str(tmp_path / "filtered.png"), full_page=True)
    visit.reload()  # the URL is a permalink
    assert visit.locator("table.board tbody tr").count() == after


def test_the_model_page_lists_results_from_every_source(visit, site, tmp_path: Path) -> None:
    model = "mistralai/mistral-7b-instruct-v0.3"
    visit.goto(f"{site}/model/{quote(model, safe='')}")
    sources = set(
        visit.locator("table.model-results td:nth-last-child(2) a:first-child").all_inner_texts()
    )
    assert {"HELM Lite", "HELM Capabilities", "Open LLM Leaderboard (v2)"} <= sources
    assert (
        visit.locator("svg.model-chart circle.mark").count()
        == visit.locator("table.model-results tbody tr").count()
    )
    visit.screenshot(path=str(tmp_path / "model.png"), full_page=True)


def test_compare_two_records_from_a_board(visit, site, tmp_path: Path) -> None:
    visit.goto(f"{site}/benchmark/{MMLU}")
    boxes = visit.locator("table.board input[name=record]")
    boxes.nth(0).check()
    boxes.nth(1).check()
    visit.click("form.compare-form button[type=submit]")
    visit.wait_for_url(re.compile(r"/compare\?record=.*&record="))
    assert visit.locator("table.compare thead th").count() == 3
    value = visit.locator('tr[data-field="Value as printed"]')
    assert "differs" in value.get_attribute("class")
    assert "differs" not in visit.locator('tr[data-field="Metric"]').get_attribute("class")
    visit.screenshot(path=str(tmp_path / "compare.png"), full_page=True)


def test_the_disagreements_page_shows_a_real_case(visit, site, tmp_path: Path) -> None:
    visit.goto(f"{site}/disagreements")
    case = (
        visit.locator("section.disagreement", has_text="openai/gpt-3.5-turbo-0613")
        .filter(has=visit.locator("h2", has_text="MMLU"))
        .first
    )
    values = case.locator("tbody td.num").all_inner_texts()
    assert sorted(values) == ["0.391", "0.614"]
    visit.screenshot(path=str(tmp_path / "disagreements.png"), full_page=True)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_index_is_readable_at_desktop_and_phone_widths(
    visit, site, width: int, tmp_path: Path
) -> None:
    visit.set_viewport_size({"width": width, "height": 900})
    visit.goto(f"{site}/?sort=-value")
    assert visit.evaluate("document.documentElement.scrollWidth") <= width
    cells = visit.locator("table.index tbody tr").first.locator("td")
    for i in range(4):  # every field of a record at least a few words wide
        assert cells.nth(i).bounding_box()["width"] >= 80, i
    visit.screenshot(path=str(tmp_path / f"index-{width}.png"), full_page=True)


def test_the_chart_is_reachable_by_keyboard(visit, site) -> None:
    visit.goto(f"{site}/benchmark/{TINY}")
    visit.focus("figure.chart")
    assert visit.evaluate("document.activeElement.tagName") == "FIGURE"
    visit.keyboard.press("Tab")  # a small board's bars are links, in rank order
    focused = visit.evaluate(
        "[document.activeElement.closest('svg') !== null,"
        " document.activeElement.getAttribute('href')]"
    )
    first = visit.locator("table.board tbody tr").first.locator("td").nth(2).locator("a")
    assert focused == [True, first.get_attribute("href")]


@pytest.mark.parametrize("width", [1280, 390])
def test_the_vocabulary_fits_desktop_and_phone_widths(visit, site, width: int) -> None:
    """/ns: every term readable without scrolling sideways, its anchor where the link goes."""
    visit.set_viewport_size({"width": width, "height": 900})
    visit.goto(f"{site}/ns#Claim")
    assert visit.evaluate("document.documentElement.scrollWidth") <= width
    term = visit.locator("tr#Claim")
    assert term.is_visible() and "Claim" in term.inner_text()


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/benchmarks",
        "/models",
        "/sources",
        "/agents",
        f"/benchmark/{MMLU}",
        "/source/crfm-helm-lite/suite",
    ],
)
def test_the_home_page_and_the_lists_fit_desktop_and_phone_widths(
    visit, site, width: int, path: str, tmp_path: Path
) -> None:
    visit.set_viewport_size({"width": width, "height": 900})
    visit.goto(site + path)
    assert visit.evaluate("document.documentElement.scrollWidth") <= width
    visit.screenshot(path=str(tmp_path / f"{path.strip('/') or 'home'}-{width}.png"))


def test_from_the_home_page_to_a_model_through_its_list(visit, site) -> None:
    visit.goto(site + "/")
    visit.keyboard.press("Tab")  # the skip link comes first, and leads to the content
    assert visit.evaluate("document.activeElement.textContent") == "Skip to the content"
    visit.keyboard.press("Enter")
    assert visit.evaluate("location.hash") == "#main"
    models = visit.locator("ul.figures a", has_text="models")
    count = int(models.locator("strong").inner_text().replace(",", ""))
    models.click()
    visit.wait_for_url(re.compile(r"/models$"))
    assert f"{count:,} model" in visit.inner_text("p.count")
    first = visit.locator("table.values tbody tr").first.locator("td a").first.inner_text()
    visit.fill("#list-q", first[:6])
    visit.press("#list-q", "Enter")
    visit.wait_for_url(re.compile(r"/models\?q="))
    shown = visit.locator("table.values tbody tr td:first-child a").all_inner_texts()
    assert first in shown and all(first[:6].casefold() in s.casefold() for s in shown)
    visit.locator("table.values tbody a", has_text=first).first.click()
    visit.wait_for_url(re.compile(r"/model/"))
    assert first in visit.inner_text("h1")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_index_filters_fold_away_on_a_phone(visit, site, width: int) -> None:
    visit.set_viewport_size({"width": width, "height": 900})
    visit.goto(site + "/records")
    folded = visit.evaluate("!document.querySelector('details.filters').open")
    assert folded == (width < 640)
    if folded:  # one tap opens them
        visit.click("details.filters > summary")
        assert visit.locator("[data-facet] a").first.is_visible()


#: Each wide table's box scrolled to its far right: whether it scrolls at all, and where
#: its first row's first cell stands before and after (pixels from the viewport's left).
SCROLLED = """() => Array.from(document.querySelectorAll('.table-scroll')).map(box => {
  const cell = box.querySelector('tbody tr > :first-child');
  const before = cell.getBoundingClientRect().left;
  box.scrollLeft = box.scrollWidth;
  return [box.scrollWidth > box.clientWidth, before, cell.getBoundingClientRect().left];
})"""


@pytest.mark.parametrize(
    "path",
    [
        "/disagreements",
        f"/model/{quote('openai/gpt-3.5-turbo-0613', safe='')}",
        f"/benchmark/{MMLU}",
        "/source/crfm-helm-lite/suite",
    ],
)
def test_wide_tables_scroll_in_their_own_box_on_a_phone(visit, site, path: str) -> None:
    visit.set_viewport_size({"width": 390, "height": 900})
    visit.goto(site + path)
    assert visit.evaluate("document.documentElement.scrollWidth") <= 390
    # each table that scrolls sideways keeps its first column in view
    boxes = visit.evaluate(SCROLLED)
    assert any(scrolls for scrolls, _, _ in boxes), boxes
    for scrolls, before, after in boxes:
        assert not scrolls or abs(after - before) < 1, boxes


def test_records_ticked_on_two_pages_are_compared(visit, site) -> None:
    visit.goto(site + "/records?limit=3")
    first = visit.locator("table.index tbody input[name=record]").first
    picked = [first.get_attribute("value")]
    first.check()
    visit.click("text=Next page, keeping the ticked records")
    visit.wait_for_url(re.compile(r"after="))
    assert "1 record ticked so far" in visit.inner_text("p.ticked")
    second = visit.locator("table.index tbody input[name=record]").first
    picked.append(second.get_attribute("value"))
    second.check()
    visit.click("text=Compare the selected records")
    visit.wait_for_url(re.compile(r"/compare\?"))
    heads = visit.locator("table.compare thead th a").evaluate_all(
        "els => els.map(e => e.getAttribute('href'))"
    )
    assert heads == [f"/record/{quote(i, safe='')}" for i in picked]


@pytest.mark.parametrize("record", ["seed", "imported"])
def test_a_record_page_fits_a_phone(visit, site, record: str) -> None:
    from helpers import SEED_ID

    ident = SEED_ID
    if record == "imported":
        found = visit.request.get(f"{site}/records.json?q=helm&limit=1").json()
        ident = found["rows"][0]["id"]
    visit.set_viewport_size({"width": 390, "height": 900})
    visit.goto(f"{site}/record/{ident}")
    for summary in visit.locator("details > summary").all():
        summary.click()  # every section open, as a reader would
    assert visit.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.mark.parametrize(
    "path", [f"/benchmark/{MMLU}", f"/model/{quote('openai/gpt-3.5-turbo-0613', safe='')}"]
)
def test_a_charts_text_stays_legible_on_a_phone(visit, site, path: str) -> None:
    visit.set_viewport_size({"width": 390, "height": 900})
    visit.goto(site + path)
    assert visit.evaluate("document.documentElement.scrollWidth") <= 390
    sizes = visit.locator("svg.chart text").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().height)"
    )
    assert sizes and min(sizes) >= 9  # pixels on the screen
