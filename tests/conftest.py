"""Shared fixtures: the repository's data, copied where a test may change it."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_oxigraph(location: Path, *args: str) -> Iterator[str]:
    """`oxigraph serve` (PyPI oxigraph) on a free port of 127.0.0.1 until the block ends;
    yields its URL once it answers."""
    command = shutil.which("oxigraph")
    if command is None:
        pytest.fail("the oxigraph server is part of the test extra: pip install -e '.[test]'")
    for _attempt in range(3):  # a port taken between choosing and binding: choose again
        url = f"http://127.0.0.1:{free_port()}"
        proc = subprocess.Popen(
            [command, "serve", "--location", str(location), "--bind", url[7:], *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 30
            while proc.poll() is None and time.monotonic() < deadline:
                try:
                    requests.get(url + "/query", timeout=2)
                    break
                except requests.ConnectionError:
                    time.sleep(0.02)
            if proc.poll() is None:
                yield url
                return
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    pytest.fail(f"oxigraph serve did not start: {proc.stderr.read() if proc.stderr else ''}")


@dataclass(frozen=True)
class Backend:
    """A store for the store test-suite: the embedded one in a directory, or a remote one
    (a real `oxigraph serve` on loopback)."""

    name: str
    #: What KG_STORE says: a directory or a URL.
    store: Path | str

    def settings(self):
        from kg.config import load_settings

        return load_settings({"base": BASE, "store": str(self.store)}, environ={})

    def open(self, read_only: bool = False):
        from kg.store import open_store

        return open_store(self.settings(), read_only=read_only)


@pytest.fixture(params=["embedded", "remote"])
def store_backend(request, tmp_path: Path) -> Iterator[Backend]:
    """Each store test runs against both stores."""
    if request.param == "embedded":
        yield Backend("embedded", tmp_path / ".kg" / "store")
        return
    with running_oxigraph(tmp_path / "oxigraph") as url:
        yield Backend("remote", url)


@pytest.fixture
def remote_backend(tmp_path: Path) -> Iterator[Backend]:
    """Only the remote store (for what only it does)."""
    with running_oxigraph(tmp_path / "oxigraph") as url:
        yield Backend("remote", url)


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
    #: what KG_STORE says: the store's directory, or a remote store's URL
    store: Path | str


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
def running_server(root: Path, env: dict[str, str] | None = None, *args: str):
    """Run `kg serve --port 0 [args]` in ``root`` (data in root/data, store in root/store
    unless ``env`` names another) until the block ends; wait for /healthz, never a fixed
    sleep."""
    env = {**os.environ, "KG_STORE": str(root / "store"), "KG_DATA": str(root / "data"),
           **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kg.cli", "serve", "--port", "0", *args], cwd=root, env=env,
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
        store = env["KG_STORE"]
        yield Served(url, proc.pid, store if store.startswith("http") else Path(store))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
