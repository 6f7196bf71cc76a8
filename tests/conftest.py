"""The fixtures tests share (pytest loads this file; no test imports it): the bundled data
copied where a test may change it, stores of each kind, servers, the browser.

Constants and plain functions the tests share are in ``helpers`` (tests/helpers/)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import settings

from helpers import DATA, ROOT, WITHOUT_IMPORT, copy_sampled
from helpers.servers import (
    BACKENDS,
    Backend,
    Served,
    running_oxigraph,
    running_server,
    started_backend,
)
from helpers.web import app_over

# Every `python -m kg.cli` a test starts runs the checkout under test, as pytest itself does,
# never another copy of kg installed into the same Python (a worktree beside the main one).
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
)

#: The W3C SPARQL 1.1 Protocol suite's tally per backend, printed at the end of a run.
pytest_plugins = ["protocol_tally"]

# Property tests draw the same examples on every run (the same tally twice in a row) and
# have no deadline (a time limit per example fails on a loaded machine, not on a bug).
# `pytest --hypothesis-profile=explore` draws new ones.
settings.register_profile("claimgraph", deadline=None, derandomize=True, database=None)
settings.register_profile("explore", deadline=None)
settings.load_profile("claimgraph")


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A private copy of data/ that a test may break."""
    target = tmp_path / "data"
    shutil.copytree(DATA, target)
    return target


@pytest.fixture
def written_copy(tmp_path: Path) -> Path:
    """A private copy of the data files people write (data/ without the import)."""
    target = tmp_path / "data"
    shutil.copytree(DATA, target, ignore=WITHOUT_IMPORT)
    return target


@pytest.fixture
def sampled_copy(tmp_path: Path) -> Path:
    """A private copy of data/ with one kept file of each origin folder (KEPT_SAMPLE)."""
    return copy_sampled(tmp_path / "data")


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    """Where a test's on-disk store lives."""
    return tmp_path / "store"


@pytest.fixture(params=BACKENDS)
def store_backend(request, tmp_path: Path) -> Iterator[Backend]:
    """Each store test runs against every store backend."""
    with started_backend(request.param, tmp_path) as backend:
        yield backend


@pytest.fixture
def remote_backend(tmp_path: Path) -> Iterator[Backend]:
    """Only the remote store (for what only it does)."""
    with running_oxigraph(tmp_path / "oxigraph") as url:
        yield Backend("remote", url)


#: Playwright's fixtures (pytest-playwright): a test that asks for one drives Chromium.
#: The tests measured to take more than a few seconds (scripts/slow_tests.py writes the
#: list from a run of the whole suite): marked ``slow``, so the quick loop leaves them out.
SLOW = frozenset(json.loads((ROOT / "tests" / "slow.json").read_text())["tests"])
PLAYWRIGHT_FIXTURES = {"page", "context", "browser", "browser_type"}


#: The test files that take minutes, the longest first. scripts/test runs pytest-xdist with
#: ``--no-loadscope-reorder``, so files go to the workers in collection order and these
#: start at once; by default xdist starts the files with the most tests first, and the
#: whole-snapshot file (a few tests, six minutes) ran last, alone on one worker.
LONG_FILES = (
    "test_import_snapshot.py",
    "test_store_faults.py",
    "test_hostile_input.py",
    "test_shacl_engine.py",
    "test_gpu_sweep.py",
    "test_crash_safety.py",
    "test_reproduce.py",
)


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that drives Chromium is a browser test even where its mark was forgotten, so
    that ``-m "not browser"`` never starts a browser; a test of :data:`SLOW` is a ``slow``
    one. The files of :data:`LONG_FILES` come first, in that order; the others keep
    theirs."""
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FILES)))
    for item in items:
        if item.nodeid in SLOW:
            item.add_marker(pytest.mark.slow)
        callspec = getattr(item, "callspec", None)
        parametrized = set(callspec.params) if callspec else set()  # a "page" argument
        asked = set(getattr(item, "fixturenames", ())) - parametrized
        if PLAYWRIGHT_FIXTURES & asked and not any(item.iter_markers("browser")):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's Chromium (Playwright's own browser download does not work here)."""
    return {
        **browser_type_launch_args,
        "executable_path": shutil.which("chromium") or "/usr/bin/chromium",
        "args": ["--disable-gpu", "--disable-background-networking"],
    }


@pytest.fixture(scope="session")
def app(tmp_path_factory) -> Iterator[Flask]:
    """The web app in this process over a copy of the data, with the limits `served` has:
    for tests of what a page, content negotiation or an error answers (no server)."""
    root = tmp_path_factory.mktemp("app")
    shutil.copytree(DATA, root / "data")
    with app_over(root, query_timeout=2, max_rows=500) as app:
        yield app


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """Flask's test client of `app`."""
    return app.test_client()


@pytest.fixture(scope="session")
def server(served: Served) -> str:
    """The URL of the running server."""
    return served.url


@pytest.fixture(scope="session")
def served(tmp_path_factory):
    """`kg serve` on a free port over a copy of the data, first start creating the store:
    for what only a real server shows (real HTTP clients, worker processes, the browser)."""
    root = tmp_path_factory.mktemp("server")
    shutil.copytree(DATA, root / "data")
    # A short time limit and a small row cap, so the tests can reach both.
    with running_server(root, {"KG_QUERY_TIMEOUT": "2", "KG_MAX_ROWS": "500"}) as served:
        yield served
