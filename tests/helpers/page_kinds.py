"""One page of every kind the browser serves over the bundled data and the generated
lower-is-better board (docs/views.md, docs/linked-data.md): what the browser tests visit at
desktop and phone widths, and where they keep the screenshots."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from urllib.parse import quote

from . import OTHER_ID, ROOT, SEED_ID
from .eee import MMLU, TINY

PAGES = [
    "/",
    "/records",
    "/records?q=memory",
    f"/record/{SEED_ID}",
    "/source/crfm-helm-lite",
    "/source/crfm-helm-lite/suite",
    f"/benchmark/{MMLU}",
    f"/benchmark/{TINY}?sort=-params",
    f"/model/{quote('openai/gpt-3.5-turbo-0613', safe='')}",
    f"/compare?record={SEED_ID}&record={OTHER_ID}",
    "/compare?record=" + SEED_ID,  # a bad selection: its own page (400)
    "/disagreements",
    "/benchmarks",
    "/models",
    "/sources",
    "/developers",
    "/metrics",
    "/agents",
    "/agent/claude",
    "/sparql",
    "/sparql?canned=stats",
    "/ns",
]


def screenshot_path(path: str, width: int) -> Path:
    """Where a test run keeps the screenshot of ``path`` at ``width`` pixels:
    ``$KG_SCREENSHOTS`` (default ``build/screenshots`` in the repository), one file per
    page and width."""
    folder = Path(os.environ.get("KG_SCREENSHOTS") or ROOT / "build" / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-") or "home"
    if len(slug) > 60:  # cut short, told apart by a digest of the whole path
        slug = f"{slug[:60]}-{hashlib.sha256(path.encode()).hexdigest()[:8]}"
    return folder / f"{slug}-{width}.png"
