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

#: The W3C SPARQL 1.1 Protocol suite's tally per backend, printed at the end of a run.
pytest_plugins = ["protocol_tally"]

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
BASE = "https://claimgraph.example/"
SEED_ID = (
    "saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-flashattention-checkpointing-zero2"
)
SEED_RECORD = f"records/{SEED_ID}.yaml"
#: The other number of the seed's sentence (33.88 GB), a record claimgraph transcribed itself.
OTHER_ID = ("saadat-fellay-claimgraph-20261201-result-nt-2-5b-training-peak-memory-"
            "flashattention-checkpointing")
#: How many data files the repository bundles (the seed's four, the runner agent, the runs).
DATA_FILES = len(list(DATA.rglob("*.yaml")))
RUNS = len(list((DATA / "runs").glob("*.yaml")))
#: The seed record, and the other number of its sentence that claimgraph transcribed.
RECORDS = len(list((DATA / "records").glob("*.yaml")))


def _judging(*records: str) -> int:
    """How many bundled runs give a verdict on any of ``records``."""
    import yaml

    count = 0
    for path in (DATA / "runs").glob("*.yaml"):
        doc = yaml.load(path.read_text(), Loader=yaml.BaseLoader)
        judged = [v["record"] for v in doc.get("verdicts", [])] or [doc["record"]]
        count += bool(set(records) & set(judged))
    return count


#: How many bundled runs give a verdict on each claim of the seed's sentence, and on either.
SEED_RUNS, OTHER_RUNS = _judging(SEED_ID), _judging(OTHER_ID)
SENTENCE_RUNS = _judging(SEED_ID, OTHER_ID)
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


def web_app(root: Path):
    """`kg load` of root/data into root/store, and the web app over it, in this process
    (its test client is Flask's)."""
    from kg.cli import main
    from kg.web import create_app

    store, archive = root / "store", root / "archive"
    result = CliRunner().invoke(main, ["--store", str(store), "--archive", str(archive),
                                       "--base", BASE, "load", str(root / "data")])
    assert result.exit_code == 0, result.output
    return create_app({"store": store, "archive": archive, "base": BASE})


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

    def environment(self) -> dict[str, str]:
        """The settings a `kg` process needs to use this store (for `running_server`)."""
        return {"KG_STORE": str(self.store)}

    def open(self, read_only: bool = False):
        from kg.store import open_store

        return open_store(self.settings(), read_only=read_only)

    def add_graphs(self, graphs: dict[str, Path]) -> None:
        """Test data that is no registry record (no data file, no manifest row, no SHACL):
        each N-Triples file as the named graph its key names. Embedded: written straight
        into a new store version; remote: by Graph Store Protocol PUT."""
        import pyoxigraph as ox

        if isinstance(self.store, Path):
            quads = {iri: [ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(iri))
                           for t in ox.parse(path=str(path), format=ox.RdfFormat.N_TRIPLES)]
                     for iri, path in graphs.items()}
            with self.open() as store:
                store.replace_graphs(quads)
            return
        settings = self.settings()
        url = settings.store.rstrip("/") + "/" + settings.store_graphs
        for iri, path in graphs.items():
            requests.put(url, params={"graph": iri}, data=path.read_bytes(), timeout=30,
                         headers={"Content-Type": "application/n-triples"}).raise_for_status()


@contextlib.contextmanager
def started_backend(name: str, root: Path) -> Iterator[Backend]:
    """A new, empty store of the backend ``name`` (one of :data:`BACKENDS`) under ``root``,
    running until the block ends."""
    if name == "embedded":
        yield Backend("embedded", root / ".kg" / "store")
    elif name == "remote":
        with running_oxigraph(root / "oxigraph") as url:
            yield Backend("remote", url)
    else:
        raise ValueError(f"no store backend {name!r}")


#: Every store backend the project supports: the store tests and the protocol suite run on
#: each. A new backend is one name here and its branch in `started_backend`.
BACKENDS = ("embedded", "remote")


@pytest.fixture(params=BACKENDS)
def store_backend(request, tmp_path: Path) -> Iterator[Backend]:
    """Each store test runs against every store."""
    with started_backend(request.param, tmp_path) as backend:
        yield backend


@pytest.fixture
def remote_backend(tmp_path: Path) -> Iterator[Backend]:
    """Only the remote store (for what only it does)."""
    with started_backend("remote", tmp_path) as backend:
        yield backend


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
