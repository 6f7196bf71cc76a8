"""Real servers on 127.0.0.1 for the tests that need one: ``kg serve`` (serving,
concurrency, remote stores, the browser), ``oxigraph serve`` and Virtuoso (the remote
store; Virtuoso's fixture is in :mod:`helpers.virtuoso`).
Each waits for its server to answer, never for a fixed time."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

from helpers import BASE

#: How long a server may take to start: a liveness bound for a loaded machine (the first
#: start of kg serve loads the store and builds its index), not a measure of speed.
START_S = 180


def descendants(pid: int) -> set[int]:
    """The processes ``pid`` started, and the ones those started (a server's worker
    processes, their query workers, multiprocessing's helpers), from any of their threads
    (a request's thread starts the query workers)."""
    found: set[int] = set()
    with contextlib.suppress(FileNotFoundError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):
                for child in map(int, (task / "children").read_text().split()):
                    found |= {child} | descendants(child)
    return found


def gone(pid: int) -> bool:
    """No such process, or one that has ended and waits to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


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
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + START_S
            while proc.poll() is None and time.monotonic() < deadline:
                try:
                    requests.get(url + "/query", timeout=10)
                    break
                except requests.ConnectionError:
                    time.sleep(0.02)
            if proc.poll() is None:
                yield url
                return
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    pytest.fail(f"oxigraph serve did not start: {proc.stderr.read() if proc.stderr else ''}")


@dataclass(frozen=True)
class Backend:
    """A store for the store test-suite: the embedded one in a directory, or a remote one
    (a real `oxigraph serve` or Virtuoso on loopback)."""

    name: str
    #: What KG_STORE says: a directory or a URL.
    store: Path | str
    #: More settings the store needs (a remote store's endpoints), by setting name.
    options: dict[str, str] = field(default_factory=dict)

    @property
    def remote(self) -> bool:
        return not isinstance(self.store, Path)

    def settings(self, **more: object):
        from kg.config import load_settings

        return load_settings(
            {"base": BASE, "store": str(self.store), **self.options, **more}, environ={}
        )

    def environment(self) -> dict[str, str]:
        """The settings a `kg` process needs to use this store (for `running_server`)."""
        return {
            "KG_STORE": str(self.store),
            **{f"KG_{name.upper()}": value for name, value in self.options.items()},
        }

    def open(self, read_only: bool = False):
        from kg.store import open_store

        return open_store(self.settings(), read_only=read_only)

    def add_graphs(self, graphs: dict[str, Path]) -> None:
        """Test data that is no registry record (no data file, no manifest row, no SHACL):
        each N-Triples file as the named graph its key names. Embedded: written straight
        into a new store version; remote: by Graph Store Protocol PUT."""
        import pyoxigraph as ox

        if isinstance(self.store, Path):
            quads = {
                iri: [
                    ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(iri))
                    for t in ox.parse(path=str(path), format=ox.RdfFormat.N_TRIPLES)
                ]
                for iri, path in graphs.items()
            }
            with self.open() as store:
                store.replace_graphs(quads)
            return
        settings = self.settings()
        url = settings.store.rstrip("/") + "/" + settings.store_graphs
        for iri, path in graphs.items():
            requests.put(
                url,
                params={"graph": iri},
                data=path.read_bytes(),
                timeout=30,
                headers={"Content-Type": "application/n-triples"},
            ).raise_for_status()


@contextlib.contextmanager
def started_backend(name: str, root: Path) -> Iterator[Backend]:
    """A new, empty store of the backend ``name`` (one of :data:`BACKENDS`) under ``root``,
    running until the block ends."""
    if name == "embedded":
        yield Backend("embedded", root / ".kg" / "store")
    elif name == "remote":
        with running_oxigraph(root / "oxigraph") as url:
            yield Backend("remote", url)
    elif name == "virtuoso":
        from helpers.virtuoso import SETTINGS, virtuoso

        yield Backend("virtuoso", virtuoso().url, dict(SETTINGS))
    else:
        raise ValueError(f"no store backend {name!r}")


#: Every store backend the project supports: the store tests and the protocol suite run on
#: each. A new backend is one name here and its branch in `started_backend`.
BACKENDS = ("embedded", "remote", "virtuoso")


@dataclass(frozen=True)
class Served:
    url: str
    pid: int
    #: what KG_STORE says: the store's directory, or a remote store's URL
    store: Path | str
    #: the first lines the server wrote on standard error (its warnings at start)
    opening: list[str] = field(default_factory=list, compare=False)


@contextlib.contextmanager
def running_server(
    root: Path,
    env: dict[str, str] | None = None,
    *args: str,
    kg: list[str] | None = None,
    environ: dict[str, str] | None = None,
):
    """Run `kg serve --port 0 [args]` in ``root`` (data in root/data, store in root/store
    unless ``env`` names another) until the block ends; wait for /healthz, never a fixed
    sleep. ``kg`` is the command that runs kg (this checkout's, by default); ``environ``,
    where given, is the whole environment instead (no settings but its own)."""
    if environ is None:
        environ = {
            **os.environ,
            "KG_STORE": str(root / "store"),
            "KG_DATA": str(root / "data"),
            **(env or {}),
        }
    env = environ
    proc = subprocess.Popen(
        [*(kg or [sys.executable, "-m", "kg.cli"]), "serve", "--port", "0", *args],
        cwd=root,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    said: deque[str] = deque(maxlen=50)  # the last lines, for a failure's message
    opening: list[str] = []
    where: list[str] = []
    told = threading.Event()

    def drain() -> None:
        # Read standard error to the end: a full pipe would stop the server.
        for line in proc.stderr:
            said.append(line)
            if len(opening) < 50:
                opening.append(line)
            if not where and (match := re.search(r"serving (http://\S+?)/ ", line)):
                where.append(match.group(1))
                told.set()
        told.set()

    threading.Thread(target=drain, daemon=True, name="kg-serve-stderr").start()
    try:
        told.wait(START_S)
        if not where:
            pytest.fail(
                f"kg serve did not say where it listens (exit {proc.poll()}):\n" + "".join(said)
            )
        url = where[0]
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            with contextlib.suppress(requests.ConnectionError):
                if requests.get(url + "/healthz", timeout=10).status_code == 200:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("kg serve never answered /healthz with 200:\n" + "".join(said))
        store = env.get("KG_STORE") or str(root / ".kg" / "store")  # the default's folder
        yield Served(url, proc.pid, store if store.startswith("http") else Path(store), opening)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
