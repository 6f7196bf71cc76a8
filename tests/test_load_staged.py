"""Large batches are written while they are validated (a staged write): the same content
as a write in one step, nothing on failure, and a renamed file handled."""

from __future__ import annotations

from pathlib import Path

import pytest

import kg.store.load
from bench import gen
from helpers import BASE, open_test_store
from kg.errors import InvalidDataError
from kg.rdf.canonical import canonical_nquads
from kg.store.base import StagedWrite
from kg.store.load import load_paths


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated corpus of more than STAGE_FROM files."""
    target = tmp_path_factory.mktemp("corpus")
    gen.generate(300, 5, target)
    assert len(list(target.rglob("*.yaml"))) >= kg.store.load.STAGE_FROM
    return target


@pytest.fixture(autouse=True)
def staged(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every batch of STAGE_FROM files or more staged, whatever cores this machine has."""
    monkeypatch.setattr(kg.store.load, "STAGE_UP_TO", 10**9)


def test_which_batches_are_staged(monkeypatch: pytest.MonkeyPatch) -> None:
    assert kg.store.load.staging(kg.store.load.STAGE_FROM)
    assert not kg.store.load.staging(kg.store.load.STAGE_FROM - 1)
    monkeypatch.setattr(kg.store.load, "STAGE_UP_TO", 50_000)
    monkeypatch.setattr(kg.store.load, "worker_count", lambda: 10**6)  # no core to spare
    assert kg.store.load.staging(49_999)
    assert not kg.store.load.staging(50_000)


def load(store_dir: Path, *paths: Path):
    with open_test_store(store_dir) as store:
        return load_paths(store, list(paths), BASE)


def dump(store_dir: Path) -> str:
    with open_test_store(store_dir, read_only=True) as store:
        return canonical_nquads(store.quads())


def versions(store_dir: Path) -> list[str]:
    return sorted(p.name for p in store_dir.iterdir())


@pytest.mark.slow
def test_a_staged_write_stores_what_a_one_step_write_stores(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(kg.store.load, "CHUNK_BYTES", 1 << 20)  # several chunks
    staged = load(tmp_path / "staged", corpus)
    monkeypatch.setattr(kg.store.load, "STAGE_FROM", 10**9)
    whole = load(tmp_path / "whole", corpus)
    assert staged.changed == whole.changed == staged.files
    assert dump(tmp_path / "staged") == dump(tmp_path / "whole")
    with (
        open_test_store(tmp_path / "staged", read_only=True) as a,
        open_test_store(tmp_path / "whole", read_only=True) as b,
    ):
        assert a.manifest() == b.manifest()


@pytest.mark.slow
def test_an_invalid_staged_batch_writes_nothing(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(kg.store.load, "CHUNK_BYTES", 1 << 20)
    store_dir = tmp_path / "store"
    load(store_dir, corpus)
    before, layout = dump(store_dir), versions(store_dir)
    records = sorted((corpus / "records").glob("*.yaml"))
    broken = records[-1]
    original = broken.read_text()
    broken.write_text(
        original.replace("hardware: Synthetic GPU", "hardware: Synthetic GPU\nhardwar: x")
    )
    try:
        with pytest.raises(InvalidDataError) as info:
            load(store_dir, corpus)
        assert "hardwar" in "\n".join(info.value.lines())
    finally:
        broken.write_text(original)
    assert dump(store_dir) == before
    assert versions(store_dir) == layout  # the half-filled new version is gone


@pytest.mark.slow
def test_a_renamed_file_loaded_alone_replaces_its_graph(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store_dir = tmp_path / "store"
    load(store_dir, corpus)
    record_quads = len(_record_lines(dump(store_dir)))
    moved = tmp_path / "moved"
    moved.mkdir()
    records = sorted((corpus / "records").glob("*.yaml"))
    renamed = []
    try:
        for record in records:  # every record renamed, then loaded on its own: a staged batch
            target = moved / record.name
            target.write_text(
                record.read_text().replace("hardware: Synthetic GPU", "hardware: Synthetic GPU 2")
            )
            record.rename(record.with_suffix(".gone"))
            renamed.append(record)
        assert len(renamed) >= kg.store.load.STAGE_FROM
        report = load(store_dir, moved)
        assert report.changed == len(records)
        with open_test_store(store_dir, read_only=True) as store:
            text = canonical_nquads(store.quads())
    finally:
        for record in renamed:
            record.with_suffix(".gone").rename(record)
    in_records = _record_lines(text)
    assert sum('"Synthetic GPU 2"' in line for line in in_records) == len(records)
    assert len(in_records) == record_quads  # the old values were dropped, not merged


def _record_lines(nquads: str) -> list[str]:
    return [line for line in nquads.splitlines() if "/record/" in line.rsplit(" ", 2)[-2]]


def test_a_one_step_write_deletes_each_chunk_once_read(tmp_path: Path) -> None:
    """A batch written at its commit reads its spool chunks and deletes them, so that a
    million results' N-Quads do not sit on the disk beside the version they fill."""
    chunks = []
    for n in range(3):
        chunk = tmp_path / f"chunk-{n}.nq"
        chunk.write_text(f'<urn:s{n}> <urn:p> "{n}" <urn:g{n}> .\n')
        chunks.append(chunk)
    with open_test_store(tmp_path / "store") as store:
        staged = StagedWrite(store)
        for chunk in chunks:
            staged.add(chunk)
        staged.commit([f"urn:g{n}" for n in range(3)], [], {})
        assert len(list(store.quads())) == 3
    assert not any(chunk.exists() for chunk in chunks)
