"""The web app in the test's own process (Flask's test client, as Flask's tutorial tests
do): for what a page, content negotiation or an error answers. Serving itself
(granian, worker processes, loads while serving, the browser) is tested against a real
`kg serve` (``helpers.servers``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from flask import Flask

from helpers import BASE


@contextlib.contextmanager
def app_over(root: Path, **settings: object) -> Iterator[Flask]:
    """``create_app`` over ``root/data``, its store in ``root/store`` (created and filled
    from the data when missing, as ``kg serve`` does on a first start), dumps under
    ``root/dumps``; ``settings`` add to or replace these. What the app started (query
    workers) is stopped when the block ends."""
    from kg.config import load_settings
    from kg.store.load import ensure_loaded
    from kg.web import create_app
    from kg.web.state import close

    config = {
        "base": BASE,
        "store": root / "store",
        "data": root / "data",
        "dumps": root / "dumps",
        **settings,
    }
    ensure_loaded(load_settings(config))
    app = create_app({**config, "TESTING": True})
    try:
        yield app
    finally:
        close(app)


def web_app(root: Path) -> Flask:
    """`kg load` of root/data into root/store, and the web app over it, in this process
    (its test client is Flask's)."""
    from click.testing import CliRunner

    from kg.cli import main
    from kg.web import create_app

    store, archive = root / "store", root / "archive"
    result = CliRunner().invoke(
        main,
        [
            "--store",
            str(store),
            "--archive",
            str(archive),
            "--base",
            BASE,
            "load",
            str(root / "data"),
        ],
    )
    assert result.exit_code == 0, result.output
    return create_app({"store": store, "archive": archive, "base": BASE})
