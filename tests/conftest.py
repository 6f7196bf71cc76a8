"""Shared fixtures: the repository's data, copied where a test may change it."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
BASE = "https://claimgraph.example/"
SEED_ID = (
    "saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-flashattention-checkpointing-zero2"
)
SEED_RECORD = f"records/{SEED_ID}.yaml"
#: How many data files the repository bundles (the seed's four, the runner agent, the runs).
DATA_FILES = len(list(DATA.rglob("*.yaml")))
RUNS = len(list((DATA / "runs").glob("*.yaml")))
SEED_SOURCE = "sources/saadat-fellay-2026-genomic-lm-efficiency.yaml"
AGENT_FILE = "agents/claude.yaml"


def pdfgen():
    """bench/pdfgen.py, the synthetic PDF maker the verifier's tests and benchmark share."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("pdfgen", ROOT / "bench" / "pdfgen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A private copy of data/ that a test may break."""
    target = tmp_path / "data"
    shutil.copytree(DATA, target)
    return target


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    """Where a test's on-disk store lives."""
    return tmp_path / "store"


def open_test_store(path: Path, read_only: bool = False):
    from kg.store import EmbeddedStore

    return EmbeddedStore(path, read_only=read_only)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's Chromium (Playwright's own browser download does not work here)."""
    return {
        **browser_type_launch_args,
        "executable_path": shutil.which("chromium") or "/usr/bin/chromium",
        "args": ["--disable-gpu", "--disable-background-networking"],
    }


@dataclass(frozen=True)
class Served:
    url: str
    pid: int
    store: Path


@pytest.fixture(scope="session")
def server(served: Served) -> str:
    """The URL of the running server."""
    return served.url


@pytest.fixture(scope="session")
def served(tmp_path_factory):
    """`kg serve` on a free port over a copy of the data, first start creating the store."""
    root = tmp_path_factory.mktemp("server")
    shutil.copytree(DATA, root / "data")
    # A short time limit and a small row cap, so the tests can reach both.
    with running_server(root, {"KG_QUERY_TIMEOUT": "2", "KG_MAX_ROWS": "500"}) as served:
        yield served


@contextlib.contextmanager
def running_server(root: Path, env: dict[str, str] | None = None):
    """Run `kg serve --port 0` in ``root`` (data in root/data, store in root/store) until
    the block ends; wait for /healthz, never a fixed sleep."""
    env = {**os.environ, "KG_STORE": str(root / "store"), "KG_DATA": str(root / "data"),
           **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kg.cli", "serve", "--port", "0"], cwd=root, env=env,
        stderr=subprocess.PIPE, text=True)
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line and proc.poll() is not None:
                pytest.fail(f"kg serve exited with {proc.returncode}")
            match = re.search(r"serving (http://\S+?)/ ", line)
            if match:
                url = match.group(1)
        assert url, "kg serve did not say where it listens"
        while time.monotonic() < deadline:
            try:
                if requests.get(url + "/healthz", timeout=2).status_code == 200:
                    break
            except requests.ConnectionError:
                time.sleep(0.05)
        yield Served(url, proc.pid, root / "store")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
