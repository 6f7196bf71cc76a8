"""A `kg load` killed with SIGKILL in the middle of a bulk load loses nothing.

A real subprocess loads a generated corpus into a store that holds the seed data; the
test watches the store directory and kills the process once the bulk loader has
written into the new version. The store must then hold exactly the old content or
exactly the new (canonical dumps compared), and the next `kg load` must work and
leave no trace of the dead writer. A load that cannot write (a full disk) says so in
one line and leaves the store as it was.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench import gen
from helpers import BASE, DATA, ROOT, open_test_store
from helpers.checks import assert_copies_hold_the_store
from kg.rdf.canonical import canonical_nquads
from kg.read.catalog import Catalog
from kg.store.embedded import live_version
from kg.store.index import version_index
from kg.store.load import load_paths

#: Records in the generated corpus: enough that the bulk load alone takes a second or
#: more, so that the kill lands inside it.
RECORDS = 1500


def dump(store: Path) -> str:
    with open_test_store(store, read_only=True) as reader:
        return canonical_nquads(reader.quads())


def kg_load(store: Path, *paths: Path, **popen) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "kg.cli", "--store", str(store), "load", *map(str, paths)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def bulk_load_started(store: Path, old: Path) -> bool:
    """True once a version other than ``old`` holds a table file of its own: the
    checkpoint's files are hard links of the old version's (two links), what the bulk
    loader writes has one."""
    for version in store.glob("v-*"):
        if version == old or not version.is_dir():
            continue
        try:
            if any(f.stat().st_nlink == 1 for f in version.glob("*.sst")):
                return True
        except FileNotFoundError:
            continue
    return False


def assert_index_of(store: Path, version: Path) -> None:
    """The live version's index is its own: beside it, read from it, listing its records."""
    with open_test_store(store, read_only=True) as reader:
        catalog = Catalog.from_store(reader)
        assert catalog.index.path == version_index(version)
        assert catalog.version == version.name == reader.version()
        ids = {r.id for r in catalog.rows()}
        claims = reader.query(
            "SELECT ?id WHERE { ?r a <https://w3id.org/claimgraph/ns#Claim> ; "
            "<http://purl.org/dc/terms/identifier> ?id }"
        )
        assert ids == {row["id"].value for row in claims}


def seeded(tmp_path: Path) -> tuple[Path, Path, str]:
    """A store holding the bundled data: its directory, live version and canonical dump."""
    store = tmp_path / "store"
    with open_test_store(store) as writer:
        load_paths(writer, [DATA], BASE)
    old_version = live_version(store)
    assert old_version is not None
    return store, old_version, dump(store)


def killed_when(store: Path, corpus: Path, reached) -> subprocess.Popen:
    """A `kg load` of ``corpus`` into ``store``, killed with SIGKILL (with any worker it
    started) as soon as ``reached()`` says so."""
    proc = kg_load(store, corpus, start_new_session=True)
    deadline = time.monotonic() + 300
    try:
        while not reached():
            assert proc.poll() is None, f"kg load ended before the step: {proc.stderr.read()}"
            assert time.monotonic() < deadline, "the load never reached the step"
            time.sleep(0.002)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    return proc


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    gen.generate(RECORDS, 3, out)
    return out


@pytest.mark.slow
def test_sigkill_during_bulk_load(corpus: Path, tmp_path: Path) -> None:
    store, old_version, before = seeded(tmp_path)

    proc = killed_when(store, corpus, lambda: bulk_load_started(store, old_version))
    assert proc.returncode == -signal.SIGKILL

    # The dead writer's version never went live: readers see the old content, exactly.
    after_kill_version = live_version(store)
    after_kill = dump(store)
    leftovers = [v for v in store.glob("v-*") if v.is_dir() and v != after_kill_version]
    assert after_kill_version == old_version, "the kill landed after the switch"
    assert after_kill == before
    assert_index_of(store, old_version)
    assert leftovers, "the half-written version is there to be cleaned"
    assert list(store.glob("kg-load-*")), "and so is the dead load's spool"

    # The next load works: the lock died with its holder; the half-written version and
    # the spool go, and the old version stays as the one before the live one.
    again = kg_load(store, corpus)
    _, stderr = again.communicate(timeout=600)
    assert again.returncode == 0, stderr
    assert "Traceback" not in stderr
    new_version = live_version(store)
    assert new_version not in (None, old_version)
    assert not any(v.exists() for v in leftovers)
    # readers/ holds the leases of living readers (tests/test_store_versions.py): none now.
    assert {p.name for p in store.iterdir()} - {"readers"} == {
        "live",
        "write.lock",
        "copies.sqlite",
        *(
            f"{v.name}{part}"
            for v in (old_version, new_version)
            for part in ("", ".manifest.sqlite", ".copies.sqlite", ".index.sqlite")
        ),
    }
    assert not list((store / "readers").glob("*"))
    # The copies the dead writer was adding were never committed; the live ones hold.
    assert assert_copies_hold_the_store(store) > 1000

    # And it holds exactly what a load that was never interrupted gives.
    clean = tmp_path / "clean"
    with open_test_store(clean) as writer:
        load_paths(writer, [DATA], BASE)
        load_paths(writer, [corpus], BASE)
    assert dump(store) == dump(clean)


def index_being_written(store: Path, old: Path) -> bool:
    """True while a new version's index is being written (its temporary file exists)."""
    return any(not p.name.startswith(old.name) for p in store.glob("v-*.index.sqlite.tmp"))


@pytest.mark.slow
def test_sigkill_while_the_index_is_written(corpus: Path, tmp_path: Path) -> None:
    """The index is written after the version's quads, before the switch: a load killed
    then leaves the old pair live, and the next load cleans up and makes a new pair."""
    store, old_version, before = seeded(tmp_path)
    killed_when(store, corpus, lambda: index_being_written(store, old_version))
    assert live_version(store) == old_version
    assert dump(store) == before
    assert_index_of(store, old_version)
    again = kg_load(store, corpus)
    _, stderr = again.communicate(timeout=600)
    assert again.returncode == 0, stderr
    new_version = live_version(store)
    assert new_version not in (None, old_version)
    assert not list(store.glob("*.tmp"))
    assert_index_of(store, new_version)


@pytest.mark.parametrize("where", ["spool", "store"])
def test_a_load_that_cannot_write_says_so_and_leaves_the_store(tmp_path: Path, where: str) -> None:
    """A full disk, played by a limit on the size of any file the process writes (SIGXFSZ
    ignored, so a write past it fails as a full disk's would): the load's spool file fails
    at 1 MB, the store's own files at half the size of its largest. Either way: one line
    naming what could not be written, exit 1, no traceback, the store as it was, and the
    next load works."""
    import resource

    store = tmp_path / "store"
    with open_test_store(store) as writer:
        load_paths(writer, [DATA], BASE)
    old = live_version(store)
    assert old is not None
    before = dump(store)
    largest = max(f.stat().st_size for f in old.iterdir() if f.is_file())
    limit = 1_000_000 if where == "spool" else largest // 2

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = kg_load(store, "--force", DATA, preexec_fn=small_files)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 1, err
    assert err.strip().splitlines()[-1].startswith("kg: error: cannot "), err
    assert "Traceback" not in err
    assert live_version(store) == old and dump(store) == before
    again = kg_load(store, "--force", DATA)
    assert again.wait(timeout=600) == 0, again.communicate()[1]
    assert dump(store) == before  # the same data, written whole again


def test_a_batch_whose_working_files_cannot_be_written_says_so(corpus: Path) -> None:
    """A batch large enough to keep its typed nodes and constraint triples in working files
    on disk, with a file-size limit that those files pass: one line naming them, exit 1,
    no traceback (the 1M import met a full disk there, and ended in a traceback)."""
    import resource

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64_000, 64_000))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "kg.cli", "validate", str(corpus)],
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=small_files,
        timeout=600,
    )
    assert proc.returncode == 1, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("kg: error: cannot write the batch's working files"), proc.stderr
    assert "Traceback" not in proc.stderr
