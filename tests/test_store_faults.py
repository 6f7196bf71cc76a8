"""Faults on the remote path, on both real servers (`oxigraph serve` and Virtuoso), through a
loopback proxy that fails as a store does (helpers.faults): stopped in the middle of a
load, stopped and started again between two requests, slow, or answering with an HTML
error page. What must hold: a clear error naming the store and exit 1; pages answer 503
with the reason, whole; readers never see half a load; and the load after the store is
back gives exactly what an uninterrupted load gives."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from helpers import NEW_HARDWARE, OLD_HARDWARE, SEED_ID, SEED_RECORD
from helpers.faults import FaultyProxy, faulty_proxy
from helpers.servers import BACKENDS, Backend, running_server, started_backend
from kg.cli import main
from kg.rdf.canonical import canonical_nquads

REMOTE = [name for name in BACKENDS if name != "embedded"]
#: The writes a load is cut at, per backend: Oxigraph's load is one update request; a
#: stepwise write (Virtuoso) is cut after its marker and pending list (its fourth write,
#: the first drop), when readers must be told to wait.
CUTS = {"remote": (1,), "virtuoso": (4,)}
#: Seconds a store may take per request in the slow case (the proxy waits longer than
#: either): for kg and /sparql, and for the pages.
TIMEOUT, PAGE_TIMEOUT = 2, 6
HTML = {"Accept": "text/html"}
RESULTS = {"Accept": "application/sparql-results+json"}


@dataclass
class Faulty:
    backend: Backend
    url: str
    proxy: FaultyProxy


@pytest.fixture(params=REMOTE)
def faulty(request, tmp_path: Path, sampled_copy: Path, monkeypatch) -> Iterator[Faulty]:
    """A store of each remote kind behind a faulty proxy; kg's settings name the proxy."""
    with (
        started_backend(request.param, tmp_path) as backend,
        faulty_proxy(str(backend.store)) as (url, proxy),
    ):
        for name, value in {**backend.environment(), "KG_STORE": url}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("KG_DATA", raising=False)
        monkeypatch.chdir(sampled_copy.parent)
        yield Faulty(backend, url, proxy)


def kg(runner, *args: str):
    return runner.invoke(main, list(args))


def dump(backend: Backend) -> str:
    """The data graphs of the real store (not through the proxy), canonical."""
    with backend.open(read_only=True) as store:
        return canonical_nquads(store.quads())


def change_seed(data: Path) -> None:
    path = data / SEED_RECORD
    path.write_text(path.read_text().replace(OLD_HARDWARE, NEW_HARDWARE))


def test_a_load_stopped_part_way_is_never_seen_and_the_next_load_completes(
    faulty: Faulty, runner, sampled_copy: Path, tmp_path: Path
) -> None:
    assert kg(runner, "load").exit_code == 0
    before_stats, before = kg(runner, "stats").output, dump(faulty.backend)
    change_seed(sampled_copy)
    for cut in CUTS[faulty.backend.name]:
        faulty.proxy.writes, faulty.proxy.down_at_write = 0, cut
        stopped = kg(runner, "load")
        assert stopped.exit_code == 1, stopped.output
        assert f"SPARQL store at {faulty.url}" in stopped.output
        assert "Traceback" not in stopped.output
        faulty.proxy.mode, faulty.proxy.down_at_write = "up", None
        # a reader sees the old load whole, or is told to wait: never half of the new one
        read = kg(runner, "stats")
        if read.exit_code == 0:
            assert read.output == before_stats
            assert dump(faulty.backend) == before
        else:
            assert read.exit_code == 1
            assert "is being written by a kg load" in read.output
    assert kg(runner, "load").exit_code == 0
    recovered, recovered_stats = dump(faulty.backend), kg(runner, "stats").output
    assert NEW_HARDWARE in recovered and recovered != before
    # the same data loaded without a fault into a new, empty store of the same kind
    (tmp_path / "again").mkdir()
    with started_backend(faulty.backend.name, tmp_path / "again") as fresh:
        assert kg(runner, "--store", str(fresh.store), "load").exit_code == 0
        assert dump(fresh) == recovered
        assert kg(runner, "--store", str(fresh.store), "stats").output == recovered_stats


#: What kg says for each fault.
SAID = {
    "down": "cannot reach the SPARQL store",
    "slow": "did not answer the query within",
    "html": "HTTP 502: 502 Bad Gateway",
}


def test_each_fault_gives_a_clear_error_and_503_pages_then_the_same_pages(
    faulty: Faulty, runner, sampled_copy: Path, monkeypatch
) -> None:
    """One kg serve through the faults in turn, the store back in between (one start of
    kg serve costs seconds): the store stopped, slow, behind a failing proxy."""
    assert kg(runner, "load").exit_code == 0
    # the pages' limit must let kg serve start (its index is built from the store); the
    # CLI's and /sparql's are short
    env = {
        **{name: value for name, value in os.environ.items() if name.startswith("KG_")},
        "KG_STORE_TIMEOUT": str(PAGE_TIMEOUT),
        "KG_QUERY_TIMEOUT": str(TIMEOUT),
    }
    monkeypatch.setenv("KG_STORE_TIMEOUT", str(TIMEOUT))
    with running_server(sampled_copy.parent, env) as served:
        page = f"{served.url}/record/{SEED_ID}"
        sparql = f"{served.url}/sparql?query=SELECT+(COUNT(*)+AS+?n)+WHERE+{{?s+?p+?o}}"
        good = requests.get(page, timeout=60, headers=HTML)
        counted = requests.get(sparql, timeout=60, headers=RESULTS)
        assert good.status_code == 200 and counted.status_code == 200
        for fault, said in SAID.items():
            faulty.proxy.mode, faulty.proxy.delay = fault, PAGE_TIMEOUT + 2
            # the server asks the store for its version at most once a second, and answers
            # from its response cache meanwhile (docs/deployment.md, "HTTP caching")
            time.sleep(1.2)
            failed = kg(runner, "stats")
            assert failed.exit_code == 1, fault
            assert said in failed.output and faulty.url in failed.output
            for url in (page, sparql):
                answer = requests.get(url, timeout=60, headers=HTML)
                assert answer.status_code == 503, (fault, url)
                assert said in answer.text  # the reason, on a whole page
                assert len(answer.content) == int(answer.headers["Content-Length"])
                assert answer.text.rstrip().endswith("</html>")

            faulty.proxy.mode = "up"  # the store is back: the same pages as before
            again = requests.get(page, timeout=60, headers=HTML)
            assert again.status_code == 200 and again.text == good.text, fault
            assert requests.get(sparql, timeout=60, headers=RESULTS).json() == counted.json()
