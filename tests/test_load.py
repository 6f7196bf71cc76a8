"""Loading into each store (a real on-disk Oxigraph store, a real Oxigraph server): atomic,
idempotent, removal on full reload. Tests taking ``store_backend`` run against both."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import (
    AGENT_FILE,
    BASE,
    SAMPLE_FILES,
    SAMPLE_GRAPHS,
    SEED_ID,
    SEED_RECORD,
    SEED_SOURCE,
    open_test_store,
)
from helpers.servers import Backend
from kg.errors import InvalidDataError, StoreError
from kg.rdf.canonical import canonical_nquads
from kg.store import published_version
from kg.store.load import SCHEMA_ENTRY, load_paths
from kg.store.records import record_closure

#: The refusals: validation refuses the batch before any write request, so the store
#: cannot tell; they run on the embedded store and oxigraph serve, and on Virtuoso a
#: refused load's "nothing changes" is tests/test_cli_store.py's
#: test_invalid_load_exits_1_and_changes_nothing (a Virtuoso load costs seconds).
REFUSALS = pytest.mark.parametrize("store_backend", ["embedded", "remote"], indirect=True)


def dump(backend: Backend) -> str:
    with backend.open(read_only=True) as store:
        return canonical_nquads(store.quads())


def load(backend: Backend, *paths: Path):
    with backend.open() as store:
        return load_paths(store, list(paths), BASE)


def test_load_writes_the_graphs_of_each_file(sampled_copy: Path, store_backend: Backend) -> None:
    """A YAML file is one graph; a kept upstream file is its evaluation's and one per result;
    an import adds its models and benchmarks. The manifest has an entry for each."""
    report = load(store_backend, sampled_copy)
    assert report.files == SAMPLE_FILES and report.triples > 100
    with store_backend.open(read_only=True) as store:
        graphs = store.named_graphs()
        assert f"{BASE}record/{SEED_ID}" in graphs
        assert any(g.startswith("https://w3id.org/claimgraph/ontology/") for g in graphs)
        manifest = set(store.manifest()) - {SCHEMA_ENTRY}
        assert len(manifest) == SAMPLE_GRAPHS
        assert {
            f"{BASE}record/{SEED_ID}",
            f"{BASE}source/saadat-fellay-2026-genomic-lm-efficiency",
            f"{BASE}agent/claude",
            f"{BASE}evaluation/nt-2-5b-training-peak-memory-stage-deepspeed",
        } <= manifest


@REFUSALS
def test_a_batch_with_one_broken_file_loads_nothing(
    sampled_copy: Path, store_backend: Backend
) -> None:
    load(store_backend, sampled_copy)
    before = dump(store_backend)
    # A good change and a broken file in one batch: neither may land.
    record = sampled_copy / SEED_RECORD
    record.write_text(
        record.read_text().replace('display_value: "11.5"', 'display_value: "11.490"')
    )
    source = sampled_copy / SEED_SOURCE
    source.write_text(source.read_text().replace('page_count: "11"', 'page_count: "eleven"'))
    with pytest.raises(InvalidDataError) as info:
        load(store_backend, sampled_copy)
    assert "artifact.page_count" in "\n".join(info.value.lines())
    assert dump(store_backend) == before


def test_a_broken_first_load_creates_nothing(sampled_copy: Path, store_backend: Backend) -> None:
    (sampled_copy / "agents" / "bad.yaml").write_text(
        "kind: agent\nid: bad\nagent_type: robot\nlabel: x\n"
    )
    with pytest.raises(InvalidDataError):
        load(store_backend, sampled_copy)
    assert published_version(store_backend.settings()) is None  # no version was made


def test_reload_is_idempotent(sampled_copy: Path, store_backend: Backend) -> None:
    load(store_backend, sampled_copy)
    first = dump(store_backend)
    load(store_backend, sampled_copy)
    load(store_backend, sampled_copy / SEED_RECORD)
    assert dump(store_backend) == first


def test_reloading_a_changed_file_replaces_its_graph(
    sampled_copy: Path, store_backend: Backend
) -> None:
    load(store_backend, sampled_copy)
    record = sampled_copy / SEED_RECORD
    record.write_text(
        record.read_text().replace(
            "scope_note: Peak allocated GPU memory (Appendix A.3)", "scope_note: Changed scope"
        )
    )
    load(store_backend, record)
    with store_backend.open(read_only=True) as store:
        notes = [
            r["n"].value
            for r in store.query(
                f"SELECT ?n WHERE {{ <{BASE}record/{SEED_ID}> "
                "<https://w3id.org/claimgraph/ns#scopeNote> ?n }"
            )
        ]
    assert notes == ["Changed scope"]


def test_full_reload_removes_deleted_files(sampled_copy: Path, store_backend: Backend) -> None:
    extra = sampled_copy / "agents" / "second.yaml"
    extra.write_text("kind: agent\nid: second\nagent_type: person\nlabel: A second agent\n")
    load(store_backend, sampled_copy)
    with store_backend.open(read_only=True) as store:
        assert f"{BASE}agent/second" in store.named_graphs()
    extra.unlink()
    report = load(store_backend, sampled_copy)
    assert report.removed == [f"{BASE}agent/second"]
    with store_backend.open(read_only=True) as store:
        assert f"{BASE}agent/second" not in store.named_graphs()
        assert f"{BASE}agent/second" not in store.manifest()


def test_loading_one_file_does_not_remove_the_others(
    sampled_copy: Path, store_backend: Backend
) -> None:
    load(store_backend, sampled_copy)
    report = load(store_backend, sampled_copy / AGENT_FILE)
    assert report.removed == []
    with store_backend.open(read_only=True) as store:
        assert len(store.named_graphs()) >= 4


@REFUSALS
def test_deleting_a_source_that_records_cite_is_refused(
    sampled_copy: Path, store_backend: Backend
) -> None:
    load(store_backend, sampled_copy)
    before = dump(store_backend)
    (sampled_copy / SEED_SOURCE).unlink()
    with pytest.raises(InvalidDataError) as info:
        load(store_backend, sampled_copy)
    assert "refers to a source that no source file defines" in "\n".join(info.value.lines())
    assert dump(store_backend) == before


def test_a_partial_load_resolves_references_against_the_store(
    sampled_copy: Path,
    store_backend: Backend,
    tmp_path: Path,
) -> None:
    shared = tmp_path / "shared"
    shutil.copytree(sampled_copy, shared)
    shutil.rmtree(shared / "records")
    shutil.rmtree(shared / "runs")  # runs need their record
    load(store_backend, shared)
    load(
        store_backend, sampled_copy / SEED_RECORD
    )  # its source, agent and evaluation are in the store
    with store_backend.open(read_only=True) as store:
        assert len(record_closure(store, BASE, SEED_ID)) > 100
    lonely = tmp_path / "lonely.yaml"
    lonely.write_text(
        (sampled_copy / SEED_RECORD)
        .read_text()
        .replace(
            "source: saadat-fellay-2026-genomic-lm-efficiency\nevaluation",
            "source: nowhere\nevaluation",
        )
    )
    with pytest.raises(InvalidDataError) as info:
        load(store_backend, lonely)
    assert "source: refers to a source that no source file defines ('nowhere')" in (
        "\n".join(info.value.lines())
    )


def test_one_writer_at_a_time(sampled_copy: Path, store_dir: Path) -> None:
    with open_test_store(store_dir) as store:
        load_paths(store, [sampled_copy], BASE)
    with open_test_store(store_dir), pytest.raises(StoreError) as info:
        open_test_store(store_dir)
    assert "open for writing in another process" in str(info.value)


def test_a_write_prepared_on_stale_reads_is_refused(
    sampled_copy: Path, remote_backend: Backend
) -> None:
    """A remote store serializes transactions but cannot lock out a second writer: a write
    prepared before another writer published must not land over it."""
    store_backend = remote_backend
    load(store_backend, sampled_copy)
    slow = store_backend.open()
    slow.manifest()
    record = sampled_copy / SEED_RECORD
    record.write_text(record.read_text().replace("hardware: NVIDIA H100", "hardware: NVIDIA  H100"))
    assert load(store_backend, record).changed == 1  # another writer publishes meanwhile
    before = dump(store_backend)
    with pytest.raises(StoreError) as info:
        slow.replace_graphs({f"{BASE}agent/x": []}, manifest={})
    assert "changed while this write was prepared" in str(info.value)
    assert dump(store_backend) == before


def test_reading_a_missing_store_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as info:
        open_test_store(tmp_path / "nothing", read_only=True)
    assert "kg load" in str(info.value)


def test_only_changed_files_are_loaded_again(sampled_copy: Path, store_backend: Backend) -> None:
    first = load(store_backend, sampled_copy)
    assert first.changed == first.files == SAMPLE_FILES
    again = load(store_backend, sampled_copy)
    assert again.changed == 0 and again.files == SAMPLE_FILES
    record = sampled_copy / SEED_RECORD
    record.write_text(record.read_text().replace("hardware: NVIDIA H100", "hardware: NVIDIA  H100"))
    one = load(store_backend, sampled_copy)
    assert one.changed == 1
    record.touch()  # a new time but the same bytes: the hash says unchanged
    source = sampled_copy / SEED_SOURCE
    source.write_text(source.read_text())
    assert load(store_backend, sampled_copy).changed == 0


@REFUSALS
def test_a_change_that_breaks_unchanged_files_is_refused(
    sampled_copy: Path, store_backend: Backend
) -> None:
    load(store_backend, sampled_copy)
    before = dump(store_backend)
    # A new hash for the source's artifact: the record's review (unchanged) names the old one.
    source = sampled_copy / SEED_SOURCE
    source.write_text(
        source.read_text().replace(
            "sha256: 4bc2452110f280a7ba8baa4c7c28beac89769511019666bc77fc33af9b3bcd60",
            "sha256: " + "0" * 64,
        )
    )
    with pytest.raises(InvalidDataError) as info:
        load(store_backend, sampled_copy / "sources")
    text = "\n".join(info.value.lines())
    assert f"record {SEED_ID}: reviews[0].artifact_sha256: matches no artifact" in text
    assert dump(store_backend) == before


@REFUSALS
def test_deleting_a_source_that_unchanged_records_cite_is_refused(
    sampled_copy: Path,
    store_backend: Backend,
) -> None:
    load(store_backend, sampled_copy)
    before = dump(store_backend)
    (sampled_copy / SEED_SOURCE).unlink()
    with pytest.raises(InvalidDataError) as info:
        load(store_backend, sampled_copy / "sources")
    assert "source: refers to a source that no source file defines" in "\n".join(info.value.lines())
    assert dump(store_backend) == before


@REFUSALS
def test_an_id_that_another_loaded_file_holds_is_refused(
    sampled_copy: Path,
    store_backend: Backend,
) -> None:
    load(store_backend, sampled_copy)
    before = dump(store_backend)
    copy = sampled_copy / "agents" / "claude-copy.yaml"
    shutil.copy(sampled_copy / AGENT_FILE, copy)
    for path in (sampled_copy, copy):  # a full reload, and the new file alone
        with pytest.raises(InvalidDataError) as info:
            load(store_backend, path)
        assert "agent claude: id: the id is already used by" in "\n".join(info.value.lines())
        assert dump(store_backend) == before
    # Renaming a file keeps its id: the old file is gone, so the id is free.
    (sampled_copy / AGENT_FILE).unlink()
    assert load(store_backend, sampled_copy).changed == 1
    with store_backend.open(read_only=True) as store:
        assert store.manifest()[f"{BASE}agent/claude"].file == str(copy)


def test_a_partial_load_under_new_shapes_leaves_the_rest_to_revalidate(
    sampled_copy: Path,
    store_backend: Backend,
) -> None:
    load(store_backend, sampled_copy)
    with store_backend.open() as store:  # as if the data was loaded under other shapes
        manifest = store.manifest()
        manifest[SCHEMA_ENTRY] = manifest[SCHEMA_ENTRY]._replace(sha256="0" * 64)
        store.replace_graphs({}, (), manifest)
    assert load(store_backend, sampled_copy / AGENT_FILE).changed == 1
    # the other files were not validated under the current shapes: a full load does them
    assert load(store_backend, sampled_copy).changed == SAMPLE_FILES
    assert load(store_backend, sampled_copy).changed == 0
