"""Bulk dumps: kg export --all and the browser's /dumps/ give back the store's dataset."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pyoxigraph as ox
import pytest
import requests
from click.testing import CliRunner

from bench import gen
from bench.dump_shapes import check_dump
from helpers import BASE, DATA
from helpers.servers import running_server
from helpers.web import app_over
from kg.cli import main
from kg.rdf.canonical import canonical_nquads
from kg.store import EmbeddedStore
from kg.store.load import load_paths

FORMATS = {
    "nquads": ("nq", ox.RdfFormat.N_QUADS),
    "trig": ("trig", ox.RdfFormat.TRIG),
    "jsonld": ("jsonld", ox.RdfFormat.JSON_LD),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """The seed and a generated corpus (shared sources, reviews, runs) in one store."""
    root = tmp_path_factory.mktemp("dumps")
    shutil.copytree(DATA, root / "data")
    gen.generate(15, 3, root / "corpus")
    with EmbeddedStore(root / "store") as writer:
        load_paths(writer, [root / "data", root / "corpus"], BASE)
    return root / "store"


def dataset(store: Path) -> str:
    with EmbeddedStore(store, read_only=True) as reader:
        return canonical_nquads(reader.quads())


def fresh_store_from(path: Path, rdf_format: ox.RdfFormat, where: Path) -> str:
    """Load a dump file into a new on-disk Oxigraph store; its canonical N-Quads."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    fresh = ox.Store(str(where))
    fresh.bulk_load(data, format=rdf_format)
    text = canonical_nquads(fresh)
    del fresh
    return text


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_dump_loads_back_to_the_same_dataset(
    store: Path, tmp_path: Path, fmt: str, packed: bool
) -> None:
    out = tmp_path / "out"
    args = ["--store", str(store), "export", "--all", "--format", fmt, "-o", str(out)]
    result = CliRunner().invoke(main, args + (["--gzip"] if packed else []))
    assert result.exit_code == 0, result.output
    suffix, rdf_format = FORMATS[fmt]
    name = f"claimgraph.{suffix}" + (".gz" if packed else "")
    assert result.stdout == "" and result.stderr.startswith(f"kg: wrote {out / name}: ")
    assert fresh_store_from(out / name, rdf_format, tmp_path / "fresh") == dataset(store)

    manifest = json.loads((out / "manifest.json").read_text())
    entry = manifest["files"][name]
    body = (out / name).read_bytes()
    assert entry["sha256"] == hashlib.sha256(body).hexdigest()
    assert entry["bytes"] == len(body) and entry["gzip"] is packed
    with EmbeddedStore(store, read_only=True) as reader:
        assert entry["quads"] == sum(1 for _ in reader.quads())
        assert manifest["store_version"] == reader.version()
    # the dump and the notices of the upstream licences beside it (docs/following.md)
    listed = sorted([(name, entry["sha256"]), *manifest["notices"].items()])
    assert (out / "SHA256SUMS").read_text() == "".join(f"{d}  {n}\n" for n, d in listed)


def test_dumps_are_reproducible_and_share_one_manifest(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    for fmt in FORMATS:
        CliRunner().invoke(
            main, ["--store", str(store), "export", "--all", "-f", fmt, "--gzip", "-o", str(out)]
        )
    first = json.loads((out / "manifest.json").read_text())["files"]
    assert sorted(first) == ["claimgraph.jsonld.gz", "claimgraph.nq.gz", "claimgraph.trig.gz"]
    again = CliRunner().invoke(
        main, ["--store", str(store), "export", "--all", "-f", "nquads", "--gzip", "-o", str(out)]
    )
    assert again.exit_code == 0
    # gzip without a time stamp: the same store gives the same bytes
    assert json.loads((out / "manifest.json").read_text())["files"] == first
    for line in (out / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split("  ")
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary left


def download(url: str, target: Path) -> requests.Response:
    response = requests.get(url, timeout=60)
    assert response.status_code == 200, response.text[:300]
    target.write_bytes(response.content)
    return response


@pytest.mark.slow
def test_the_browser_serves_dumps_of_the_live_version(tmp_path: Path) -> None:
    root = tmp_path / "site"
    root.mkdir()
    shutil.copytree(DATA, root / "data")
    with running_server(root, {"KG_DUMPS": str(root / "dumps")}) as served:
        index = requests.get(served.url + "/").text
        for name in (
            "claimgraph.nq.gz",
            "claimgraph.trig.gz",
            "claimgraph.jsonld.gz",
            "SHA256SUMS",
        ):
            assert f'href="/dumps/{name}"' in index
        response = download(served.url + "/dumps/claimgraph.nq.gz", tmp_path / "a.nq.gz")
        digest = hashlib.sha256(response.content).hexdigest()
        assert response.headers["ETag"] == f'"{digest}"'
        assert response.headers["Content-Type"] == "application/gzip"
        assert fresh_store_from(
            tmp_path / "a.nq.gz", ox.RdfFormat.N_QUADS, tmp_path / "fresh"
        ) == dataset(served.store)
        sums = requests.get(served.url + "/dumps/SHA256SUMS").text
        assert f"{digest}  claimgraph.nq.gz\n" in sums and "claimgraph.jsonld.gz" in sums
        trig = download(served.url + "/dumps/claimgraph.trig.gz", tmp_path / "a.trig.gz")
        assert hashlib.sha256(trig.content).hexdigest() in sums
        manifest = requests.get(served.url + "/dumps/manifest.json").json()
        assert requests.get(served.url + "/dumps/..%2Fmanifest.json").status_code == 404

        # a load makes a new store version: the next download is a dump of it
        record = next((root / "data" / "records").glob("*.yaml"))
        record.write_text(
            record.read_text().replace(
                "Peak allocated GPU memory (Appendix A.3)", "Peak allocated GPU memory (A.3)"
            )
        )
        env = {**os.environ, "KG_STORE": str(served.store), "KG_DATA": str(root / "data")}
        subprocess.run(
            [sys.executable, "-m", "kg.cli", "load"],
            cwd=root,
            env=env,
            check=True,
            capture_output=True,
        )
        deadline = time.monotonic() + 120  # a bound on liveness, not a measure of speed
        while time.monotonic() < deadline:
            newer = requests.get(served.url + "/dumps/manifest.json").json()
            if newer["store_version"] != manifest["store_version"]:
                break
            time.sleep(0.2)  # the server looks for a new version once a second
        assert newer["store_version"] != manifest["store_version"]
        body = gzip.decompress(requests.get(served.url + "/dumps/claimgraph.nq.gz").content)
        assert b"Peak allocated GPU memory (A.3)" in body
        assert [p.name for p in (root / "dumps").iterdir()] == [newer["store_version"]]


def test_a_dump_is_served_with_the_default_relative_dumps_folder(
    tmp_path: Path, monkeypatch
) -> None:
    """The default dumps folder (.kg/dumps) is relative to where the server runs; the
    download once answered 500, read from the package's folder instead."""
    shutil.copytree(DATA, tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    with app_over(tmp_path, dumps=Path(".kg") / "dumps") as app:
        response = app.test_client().get("/dumps/claimgraph.nq.gz")
        assert response.status_code == 200
        assert gzip.decompress(response.data).startswith(b"<")
        assert (tmp_path / ".kg" / "dumps").is_dir()


@pytest.mark.slow  # pyshacl over 28,000 triples: seconds
def test_the_served_dump_passes_the_shapes_under_pyshacl(client) -> None:
    """The whole dump of the bundled data, as a server gives it, conforms to shapes/ under
    pyshacl, the counts as the store gives them back (xsd:integer) included."""
    response = client.get("/dumps/claimgraph.nq.gz")
    assert response.status_code == 200
    body = gzip.decompress(response.data)
    sizes = [line for line in body.splitlines() if b"<http://www.w3.org/ns/dcat#byteSize>" in line]
    assert sizes and all(b"XMLSchema#integer>" in line for line in sizes)
    check = check_dump(body)
    assert check.triples > 20_000
    assert (check.conforms, dict(check.results)) == (True, {})
