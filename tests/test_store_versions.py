"""The embedded store's versions under readers: a version a living reader holds is never
pruned, whatever the writer does meanwhile; one nobody holds goes once it is old."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox

from kg.store.embedded import EmbeddedStore
from kg.store.versions import KEEP_VERSIONS, READERS, leased


def write(store: EmbeddedStore, n: int) -> None:
    quad = ox.Quad(
        ox.NamedNode(f"urn:s{n}"), ox.NamedNode("urn:p"), ox.Literal(str(n)), ox.NamedNode("urn:g")
    )
    store.replace_graphs({"urn:g": [quad]})


def versions(path: Path) -> list[str]:
    return sorted(p.name for p in path.glob("v-*") if p.is_dir())


def test_a_version_a_reader_holds_outlives_any_number_of_writes(tmp_path: Path) -> None:
    path = tmp_path / "store"
    with EmbeddedStore(path) as writer:
        write(writer, 0)
        reader = EmbeddedStore(path, read_only=True)
        held = reader.version()
        assert held in leased(path)
        for n in range(1, 2 * KEEP_VERSIONS + 2):
            write(writer, n)
        assert held in versions(path)
        # What a query worker does: open the held version afresh, and read it whole.
        again = ox.Store.read_only(str(path / held))
        assert [q.object.value for q in again.quads_for_pattern(None, None, None, None)] == ["0"]
        del again
        assert [q.object.value for q in reader.quads()] == ["0"]
        reader.close()
        write(writer, 99)
        assert held not in versions(path)
        assert len(versions(path)) == KEEP_VERSIONS


def test_a_dropped_reader_releases_its_version(tmp_path: Path) -> None:
    path = tmp_path / "store"
    with EmbeddedStore(path) as writer:
        write(writer, 0)
        reader = EmbeddedStore(path, read_only=True)
        held = reader.version()
        del reader  # a web view replaced by a newer one is dropped, never closed
        gc.collect()
        assert held not in leased(path)
        for n in range(1, KEEP_VERSIONS + 2):
            write(writer, n)
        assert held not in versions(path)


def test_the_lease_of_a_process_that_is_gone_holds_nothing(tmp_path: Path) -> None:
    path = tmp_path / "store"
    with EmbeddedStore(path) as writer:
        write(writer, 0)
        # A reader process that died (SIGKILL) without releasing its lease.
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import os, sys; from pathlib import Path; "
                "from kg.store.embedded import EmbeddedStore; "
                "s = EmbeddedStore(Path(sys.argv[1]), read_only=True); os._exit(0)",
                str(path),
            ],
            check=True,
        )
        [stale] = list((path / READERS).iterdir())
        held = stale.name.split(".")[0]
        assert held not in leased(path)
        assert not stale.exists()
        for n in range(1, KEEP_VERSIONS + 2):
            write(writer, n)
        assert held not in versions(path)
