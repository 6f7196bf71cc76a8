"""A real Virtuoso Open Source 7 (Debian's virtuoso-opensource-7-bin) on 127.0.0.1 for the
store tests: one server per test process, started on first use with its own database
directory and free ports, given the grant that anonymous SPARQL updates need, emptied of
our graphs before each test that asks for a new store, and stopped by its process id when
the tests end."""

from __future__ import annotations

import atexit
import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import requests

from bench.remote_stores import INI, stop_process  # one configuration, for the bench and the tests

VIRTUOSO = "/usr/bin/virtuoso-t"
ISQL = "/usr/bin/isql-vt"
#: What the remote store's settings say for Virtuoso's endpoints (docs/deployment.md).
SETTINGS = {
    "store_query": "sparql",
    "store_update": "sparql",
    "store_graphs": "sparql-graph-crud",
    "store_union": "none",
}
#: How long a fresh database may take to answer: a liveness bound for a loaded machine
#: (it answers in seconds), not a measure of speed.
START_S = 120

_MEMORY = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
#: The query time limit of the tests' server, in seconds.
QUERY_LIMIT_S = 300


def _stop_with_parent() -> None:
    """In the child: SIGTERM when the test process dies, even when it is killed and its
    exit handlers never run (Linux's PR_SET_PDEATHSIG)."""
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)


class Virtuoso:
    """One running server."""

    def __init__(self) -> None:
        from helpers.servers import free_port

        if not Path(VIRTUOSO).exists():
            pytest.fail(
                "the Virtuoso tests need Debian's virtuoso-opensource-7-bin "
                "(./scripts/test installs it)"
            )
        # in memory where there is a tmpfs: a database that lives for one test run needs
        # no disk syncs
        self.dir = Path(tempfile.mkdtemp(prefix="kg-virtuoso-", dir=_MEMORY))
        self.sql_port, http_port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{http_port}"
        ini = self.dir / "virtuoso.ini"
        ini.write_text(
            INI.format(
                dir=self.dir, sql_port=self.sql_port, http_port=http_port, limit=QUERY_LIMIT_S
            )
        )
        # -f: in the foreground, so that the process id is the server's own
        self.proc = subprocess.Popen(
            [VIRTUOSO, "-f", "-c", str(ini)],
            cwd=self.dir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            preexec_fn=_stop_with_parent,
        )
        atexit.register(self.stop)
        deadline = time.monotonic() + START_S
        while True:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                log = self.dir / "virtuoso.log"
                pytest.fail(
                    "Virtuoso did not start:\n"
                    + (log.read_text(errors="replace")[-3000:] if log.exists() else "")
                )
            try:
                requests.get(self.url + "/sparql", params={"query": "ASK {}"}, timeout=10)
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        self.sql('GRANT SPARQL_UPDATE TO "SPARQL";')

    def sql(self, statement: str) -> None:
        """Run one SQL statement as the database's administrator."""
        done = subprocess.run(
            [ISQL, f"127.0.0.1:{self.sql_port}", "dba", "dba", f"exec={statement}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if done.returncode != 0 or "Error" in done.stdout:
            pytest.fail(f"isql-vt {statement!r} failed: {done.stdout}{done.stderr}")

    def clear(self) -> None:
        """Drop every graph but Virtuoso's own: a new, empty store (in SQL, at once: a
        SPARQL DROP per graph takes seconds)."""
        from kg.store.dialects import VIRTUOSO as DIALECT

        kept = ", ".join(f"iri_to_id('{g}')" for g in DIALECT.system_graphs)
        self.sql(f"DELETE FROM DB.DBA.RDF_QUAD WHERE G NOT IN ({kept});")

    def stop(self) -> None:
        stop_process(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)


_running: list[Virtuoso] = []


def virtuoso() -> Virtuoso:
    """This test process's Virtuoso, started on first use, emptied of our graphs."""
    if not _running or _running[0].proc.poll() is not None:
        _running[:] = [Virtuoso()]
    server = _running[0]
    server.clear()
    return server
