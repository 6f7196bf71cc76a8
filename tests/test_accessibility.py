"""Every page kind in Chromium, checked by axe-core (bundled by axe-playwright-python): no
serious or critical finding, at desktop and phone widths, against a real `kg serve` over the
bundled data and the generated lower-is-better board."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from axe_playwright_python.sync_playwright import Axe

from helpers import OTHER_ID, SEED_ID
from helpers.eee import MMLU, with_lower_is_better_board
from helpers.servers import running_server

pytestmark = pytest.mark.browser

#: One page of every kind (docs/views.md, docs/linked-data.md).
PAGES = [
    "/",
    "/records",
    "/records?q=memory",
    f"/record/{SEED_ID}",
    "/source/crfm-helm-lite",
    "/source/crfm-helm-lite/suite",
    f"/benchmark/{MMLU}",
    f"/model/{quote('openai/gpt-3.5-turbo-0613', safe='')}",
    f"/compare?record={SEED_ID}&record={OTHER_ID}",
    "/disagreements",
    "/benchmarks",
    "/models",
    "/agents",
    "/agent/claude",
    "/sparql",
    "/sparql?canned=stats",
    "/ns",
]
SEVERE = {"serious", "critical"}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> str:
    root = with_lower_is_better_board(tmp_path_factory.mktemp("a11y-site"))
    with running_server(root) as served:
        yield served.url


@pytest.fixture(scope="module")
def axe() -> Axe:
    return Axe()


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("path", PAGES)
def test_no_serious_or_critical_finding(page, site: str, axe: Axe, path: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    answer = page.goto(site + path)
    assert answer is not None and answer.status == 200, path
    found = axe.run(page).response["violations"]
    severe = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]])
        for v in found
        if v["impact"] in SEVERE
    ]
    assert not severe, severe
