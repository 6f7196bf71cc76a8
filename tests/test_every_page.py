"""Every page kind in Chromium at desktop (1400 px) and phone (390 px) widths, against a real
`kg serve` over the bundled data and the generated lower-is-better board: no page scrolls
sideways on a phone, axe-core (bundled by axe-playwright-python) finds nothing serious or
critical, and the screenshot of each is kept (helpers.page_kinds.screenshot_path). The home
page is walked by keyboard alone."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from helpers.eee import with_lower_is_better_board
from helpers.page_kinds import PAGES, screenshot_path
from helpers.servers import running_server

pytestmark = pytest.mark.browser

SEVERE = {"serious", "critical"}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> str:
    root = with_lower_is_better_board(tmp_path_factory.mktemp("a11y-site"))
    with running_server(root) as served:
        yield served.url


@pytest.fixture(scope="module")
def axe() -> Axe:
    return Axe()


@pytest.mark.parametrize("width", [1400, 390])
@pytest.mark.parametrize("path", PAGES)
def test_every_page_kind_fits_and_has_no_serious_finding(
    page, site: str, axe: Axe, path: str, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    answer = page.goto(site + path)
    # a compare of one record is the helpful page of a bad selection, a 400
    assert answer is not None and answer.status == (400 if path.count("record=") == 1 else 200)
    page.screenshot(path=str(screenshot_path(path, width)), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width, path
    found = axe.run(page).response["violations"]
    severe = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]])
        for v in found
        if v["impact"] in SEVERE
    ]
    assert not severe, severe


#: What takes focus from the keyboard: a visible element of these kinds.
FOCUSABLE = "a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex='0']"
#: Numbers every visible element that ought to take focus (``data-kbd``), and says each.
EXPECTED = """(selector) => Array.from(document.querySelectorAll(selector))
  .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden'
               && e.tabIndex >= 0)
  .map((e, n) => { e.dataset.kbd = String(n);
                   return n + ' ' + e.tagName + ' ' + (e.getAttribute('href') || e.name || ''); })"""
#: The focused element's number, and whether it shows a focus ring (null: none focused).
FOCUSED = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) { return null; }
  const style = getComputedStyle(e);
  return {n: e.dataset.kbd || e.tagName,
          ring: style.outlineStyle !== 'none' || style.boxShadow !== 'none'};
}"""


@pytest.mark.parametrize("width", [1400, 390])
def test_the_home_page_by_keyboard_alone(page, site: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(site + "/")
    # the first Tab: the skip link, which takes the reader past the header
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('href')") == "#main"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    # from there every control is reached, each showing where the focus is
    page.goto(site + "/")
    said = {line.split(" ", 1)[0]: line for line in page.evaluate(EXPECTED, FOCUSABLE)}
    reached: dict[str, bool] = {}
    for _ in range(len(said) * 2 + 5):
        page.keyboard.press("Tab")
        now = page.evaluate(FOCUSED)
        if now is None or now["n"] in reached:
            break
        reached[now["n"]] = now["ring"]
    assert len(said) > 20
    missed = [said[n] for n in said if n not in reached]
    assert not missed, missed[:5]
    assert all(reached.values()), [said.get(n, n) for n, ring in reached.items() if not ring][:5]


def test_the_home_search_suggests_records_reached_by_arrow_keys(page, site: str) -> None:
    page.goto(site + "/")
    page.focus("#home-q")
    page.keyboard.type("memory")
    first = page.locator("#home-suggestions a").first
    first.wait_for()
    page.keyboard.press("ArrowDown")
    focused = page.evaluate("document.activeElement.getAttribute('href')")
    assert focused == first.get_attribute("href") and focused.startswith("/record/")
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.id") == "home-q"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**{focused}")
    assert page.locator("h1").count() == 1
