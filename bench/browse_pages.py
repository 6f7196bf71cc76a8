"""Every page kind of a whole store in Chromium (Debian's), at desktop and phone widths:
what tests/test_every_page.py checks on the bundled data, here on a store of the whole
snapshot, which is too large for the suite.

    python bench/browse_pages.py STORE --data DATA [--shots DIR] [--label NAME]

STORE and DATA as ``kg serve`` takes them (only read). One ``kg serve`` is started; the
pages are bench/page_weight.py's (the store's largest model, benchmark and source, and the
rest). For each page at 1400 and 390 pixels: the status, the document's width against the
viewport's (a phone page must not scroll sideways), axe-core's serious and critical
findings (axe-playwright-python, a test extra), the time to the page's load event, and a
full-page screenshot under ``--shots``. Exits 1 when a page fails a check.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright

from bench.million import pages, pick, start
from bench.page_weight import more_pages
from bench.serve import live_or_exit

WIDTHS = (1400, 390)
SEVERE = {"serious", "critical"}
#: The pages that are not HTML for a browser (a feed, a sitemap, a VoID description).
NOT_PAGES = {"feed", "node feed", "void", "sitemap", "sitemap part", "search json"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--shots", type=Path, default=Path("/tmp/kg-browse-shots"))
    parser.add_argument("--label", default="")
    args = parser.parse_args(argv)
    live_or_exit(args.store)
    args.shots.mkdir(parents=True, exist_ok=True)
    picked = pick(args.store, 20)
    server, _ = start(args.store, args.data, None)
    failed = 0
    lines = [
        f"Every page kind in Chromium, {args.label or args.store}:",
        "",
        "| page | width | status | document width | serious/critical (axe) | load |",
        "|---|---|---|---|---|---|",
    ]
    try:
        kinds = [(k, p) for k, p in pages(picked) if p and k not in NOT_PAGES]
        kinds += more_pages(server, str(picked["benchmark"]))
        axe = Axe()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=shutil.which("chromium") or "/usr/bin/chromium"
            )
            page = browser.new_page()
            for kind, path in kinds:
                for width in WIDTHS:
                    page.set_viewport_size({"width": width, "height": 900})
                    began = time.perf_counter()
                    answer = page.goto(server.url + path, wait_until="load")
                    took = (time.perf_counter() - began) * 1000
                    status = answer.status if answer else 0
                    wide = page.evaluate("document.documentElement.scrollWidth")
                    found = axe.run(page).response["violations"]
                    severe = sorted({v["id"] for v in found if v["impact"] in SEVERE})
                    slug = re.sub(r"[^A-Za-z0-9]+", "-", kind).strip("-")
                    page.screenshot(path=str(args.shots / f"{slug}-{width}.png"), full_page=True)
                    bad = status != 200 or wide > width or severe
                    failed += bool(bad)
                    lines.append(
                        f"| {kind} | {width} | {status} | {wide} | "
                        f"{', '.join(severe) or 'none'} | {took:.0f} ms |"
                    )
                    print(lines[-1], file=sys.stderr, flush=True)
            browser.close()
    finally:
        server.stop()
    lines += [
        "",
        f"{failed} of {len(lines) - 4} page views fail a check; screenshots in {args.shots}.",
    ]
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
