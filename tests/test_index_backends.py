"""The index and the store are of one version on every backend: an embedded store keeps
each version's index beside it; a remote store's is built into the server's index folder,
named by the store's version marker, and built again when the marker moves. Every page
kind answers from it."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from bench import gen
from helpers import BASE, DATA, open_test_store
from helpers.servers import Backend
from kg.store.index import INDEX_SUFFIX, Index
from kg.store.licences import parts
from kg.store.load import load_paths
from kg.web import create_app
from kg.web.state import close, state

BOTH = pytest.mark.parametrize("store_backend", ["embedded", "remote"], indirect=True)


def _claims(backend: Backend) -> int:
    with backend.open(read_only=True) as store:
        found = store.query(
            "SELECT (COUNT(?r) AS ?n) WHERE { ?r a <https://w3id.org/claimgraph/ns#Claim> }"
        )
        return int(next(iter(found))["n"].value)


@BOTH
def test_every_page_kind_answers_from_the_index_of_its_version(
    store_backend: Backend, tmp_path: Path
) -> None:
    with store_backend.open() as store:
        load_paths(store, [DATA], BASE)
    settings = store_backend.settings(index=str(tmp_path / "index"))
    app = create_app(dataclasses.asdict(settings))
    client = app.test_client()
    try:
        listing = client.get("/records.json?limit=1").get_json()
        assert listing["total"] == _claims(store_backend)
        with app.app_context():
            catalog, served = state(app).catalog, state(app).version
        assert catalog.version == served
        built = list((tmp_path / "index").glob(f"*{INDEX_SUFFIX}"))
        if store_backend.remote:  # built once for the marker, in the server's own folder
            assert [p.name for p in built] == [catalog.index.path.name]
        else:  # kept beside the version: nothing to build
            assert built == [] and catalog.index.path.parent == Path(store_backend.store)

        # the parts the index counts are the ones the store's canned query counts
        with app.app_context(), store_backend.open(read_only=True) as store:
            licence = state(app).settings.licence
            assert state(app).licence_parts == parts(store, licence)
            assert len(state(app).licence_parts) > 1  # the registry's own and an import's

        row = listing["rows"][0]
        board = client.get(f"/records.json?q={row['id']}").get_json()["rows"][0]
        assert board["id"] == row["id"]
        with app.app_context():
            boards = state(app).catalog.boards
            benchmark = boards.benchmarks()[0].benchmark
            view = boards.board(benchmark)
            assert view is not None
            model = boards.model_entries(view.page(0, 1)[0].row.model_node)[0]
        for path in (
            "/",
            f"/?q={row['model']}",
            f"/record/{row['id']}",
            benchmark.removeprefix(BASE.rstrip("/")),
            model.row.model_node.removeprefix(BASE.rstrip("/")),
            "/disagreements",
            "/feed.atom",
            "/sitemap.xml",
            "/.well-known/void",
        ):
            assert client.get(path).status_code == 200, path

        # A write moves the version: the app serves the new pair once its index is ready.
        gen.generate(5, 11, tmp_path / "more")
        with store_backend.open() as store:
            load_paths(store, [tmp_path / "more"], BASE)
        expected = _claims(store_backend)
        deadline = time.monotonic() + 120
        while client.get("/records.json?limit=1").get_json()["total"] != expected:
            assert time.monotonic() < deadline, "the app never moved to the new version"
            time.sleep(0.2)
        with app.app_context():
            catalog, served = state(app).catalog, state(app).version
            assert catalog.version == served == state(app).store.version()
        if store_backend.remote:
            assert len(list((tmp_path / "index").glob(f"*{INDEX_SUFFIX}"))) == 2
    finally:
        close(app)


def test_a_load_gives_an_older_version_its_index(tmp_path: Path) -> None:
    """A store written before versions kept indexes: the next `kg load`, even with nothing
    to change, writes the live version's index beside it."""
    store_dir = tmp_path / "store"
    with open_test_store(store_dir) as store:
        load_paths(store, [DATA], BASE)
        kept = store.kept_index()
    assert kept is not None
    kept.unlink()
    with open_test_store(store_dir) as store:
        assert store.kept_index() is None
        report = load_paths(store, [DATA], BASE)
        assert report.changed == 0 and store.kept_index() == kept
    with open_test_store(store_dir, read_only=True) as reader:
        assert Index(kept).version == reader.version() and Index(kept).size == _claims(
            Backend("embedded", store_dir)
        )
