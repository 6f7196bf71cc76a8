"""A write of a few files updates the previous version's index instead of writing it
whole: after each kind of write the updated index holds exactly what an index written
whole from the same version holds (rows, ranks, facets, boards, disagreements, standings,
what bears on each record, quote sharing, search, the activities the timeline lists, VoID's class partitions)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

import kg.store.index.update
import kg.store.index.write
from bench import gen
from helpers import BASE, DATA, open_test_store
from kg.cli import main
from kg.store.index import Index, write_index
from kg.store.index.schema import CODED
from kg.store.load import load_paths

#: The tables compared, each without the row numbers (which differ by history).
CONTENT = {
    "rows": "SELECT * FROM rows",
    "facet_values": "SELECT * FROM facet_values ORDER BY facet, value",
    "boards": "SELECT * FROM boards ORDER BY benchmark",
    "source_boards": "SELECT * FROM source_boards ORDER BY source, benchmark",
    "disagreeing": "SELECT * FROM disagreeing ORDER BY model, benchmark",
    "disagreeing_by": "SELECT * FROM disagreeing_by ORDER BY 1, 2, 3, 4",
    "standings": "SELECT * FROM standings ORDER BY record",
    "imports": "SELECT * FROM imports ORDER BY import",
    "import_rows": "SELECT * FROM import_rows ORDER BY imported_by",
    "term_uses": "SELECT * FROM term_uses ORDER BY term",
    "about": "SELECT * FROM about ORDER BY node",
    "activities": "SELECT * FROM activities ORDER BY activity",
    "classes": "SELECT * FROM classes ORDER BY class",
    "activity_records": "SELECT * FROM activity_records ORDER BY activity, record",
    "quote_pairs": "SELECT q.source, q.quote, r.id FROM quote_pairs q "
    "JOIN rows r ON r.n = q.n ORDER BY 1, 2, 3",
}
#: Rows whose coded facet values (kg/store/index/facet_codes.py) are not their own values.
MISCODED = "SELECT r.id FROM rows r LEFT JOIN row_facets f ON f.n = r.n WHERE f.n IS NULL OR " + (
    " OR ".join(
        f"(SELECT value FROM facet_codes WHERE code = f.{key}) IS NOT r.{key}" for key in CODED
    )
)
SEARCHES = ["synthetic", "helm", "accuracy memory", "mistral", "rewardbench", "claude"]


def content(path: Path) -> dict[str, object]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        found: dict[str, object] = {}
        for name, sql in CONTENT.items():
            cursor = db.execute(sql)
            columns = [c[0] for c in cursor.description]
            rows = [dict(zip(columns, r, strict=True)) for r in cursor]
            if name == "rows":
                rows = sorted(
                    ({k: v for k, v in r.items() if k != "n"} for r in rows), key=lambda r: r["id"]
                )
            found[name] = rows
        assert db.execute(MISCODED).fetchall() == []
        assert db.execute("SELECT count(*) FROM row_facets").fetchone()[0] == len(found["rows"])
        for query in SEARCHES:
            found[f"search {query}"] = sorted(
                id_
                for (id_,) in db.execute(
                    "SELECT rows.id FROM search JOIN rows ON rows.n = search.rowid "
                    "WHERE search MATCH ?",
                    (query,),
                )
            )
    db.close()
    return found


@pytest.fixture
def data(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(DATA, root)
    gen.generate(150, 5, root / "synthetic")
    return root


def _ident(path: Path) -> str:
    return next(
        line.split(": ", 1)[1] for line in path.read_text().splitlines() if line.startswith("id: ")
    )


def _load_and_compare(store_dir: Path, data: Path, tmp_path: Path, updated: bool = True) -> Index:
    with open_test_store(store_dir) as store:
        load_paths(store, [data], BASE)
    with open_test_store(store_dir, read_only=True) as reader:
        kept = reader.kept_index()
        assert kept is not None
        index = Index(kept)
        assert index.version == reader.version()
        whole = tmp_path / "whole.index.sqlite"
        write_index(reader, whole, reader.version())
    if updated:
        assert index.updated_from, "written whole where it could be updated"
    assert content(kept) == content(whole)
    return index


@pytest.mark.parametrize("one_by_one", [200, 0], ids=["about-each", "about-all"])
def test_each_kind_of_write_updates_the_index_to_what_a_whole_write_gives(
    data: Path, tmp_path: Path, one_by_one: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # what bears on the records read again: one query each, or one for all of them
    monkeypatch.setattr(kg.store.index.update, "ABOUT_ONE_BY_ONE", one_by_one)
    store_dir = tmp_path / "store"
    first = _load_and_compare(store_dir, data, tmp_path, updated=False)
    assert first.size > 400

    # a source renamed: every record of it shows the new title
    source = data / "sources" / "crfm-helm-lite.yaml"
    source.write_text(source.read_text().replace("title: HELM Lite", "title: HELM Lite (v1)"))
    _load_and_compare(store_dir, data, tmp_path)

    # a source whose records quote it renamed: their rows come back from the index with
    # their quoted sentences
    source = data / "synthetic" / "sources" / "synthetic-source-2.yaml"
    source.write_text(source.read_text().replace("title: Synthetic study", "title: A study"))
    _load_and_compare(store_dir, data, tmp_path)

    # records removed (with the reviews and runs of them): what they were quoted with,
    # their boards and facets follow
    records = sorted((data / "synthetic" / "records").glob("*.yaml"))
    for path in records[:3]:
        ident = _ident(path)
        for other in (data / "synthetic").rglob("*.yaml"):
            if other != path and f"{ident}\n" in other.read_text():
                other.unlink()
        path.unlink()
    _load_and_compare(store_dir, data, tmp_path)

    # a record added under a new id
    text, ident = records[3].read_text(), _ident(records[3])
    (records[3].parent / "added.yaml").write_text(text.replace(ident, ident + "-added"))
    _load_and_compare(store_dir, data, tmp_path)

    # a record's value changed (wherever the file prints it: value, quote, review)
    path = records[4]
    text = path.read_text()
    printed = next(
        line.split(": ", 1)[1].strip("'")
        for line in text.splitlines()
        if line.startswith("printed_value: ")
    )
    path.write_text(text.replace(printed, "1234.5"))
    _load_and_compare(store_dir, data, tmp_path)

    # a source retracted by a curator (`kg retract`): every record of it changes standing
    result = CliRunner().invoke(
        main,
        [
            "--store",
            str(store_dir),
            "--base",
            BASE,
            "--data",
            str(data),
            "retract",
            "crfm-helm-lite",
            "--agent",
            "claude",
            "--reason",
            "a reason",
            "--evidence",
            "https://example.org/notice",
        ],
    )
    assert result.exit_code == 0, result.output
    index = _load_and_compare(store_dir, data, tmp_path)  # the retraction's own load
    assert (
        index.execute("SELECT count(*) FROM rows WHERE standing = 'retracted'").fetchone()[0] > 10
    )

    # reviews and runs of records removed: their records' methods and standing follow
    for folder in ("reviews", "runs"):
        for path in sorted((data / "synthetic" / folder).glob("*.yaml"))[:2]:
            path.unlink()
    _load_and_compare(store_dir, data, tmp_path)


def test_an_index_written_a_few_records_at_a_time_is_the_one_written_at_once(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole write reads its records a chunk at a time (its memory bounded by a chunk):
    what records share a quoted sentence, a board's ranks and the facets come out as from
    one chunk of every record; and the same whether each chunk's fields come from the scan
    of every field made first (a store in this process) or from the store itself."""
    with open_test_store(tmp_path / "store") as store:
        load_paths(store, [data], BASE)
    with open_test_store(tmp_path / "store", read_only=True) as reader:
        assert reader.reads_in_process
        write_index(reader, tmp_path / "one.index.sqlite", reader.version())
        monkeypatch.setattr(kg.store.index.write, "CHUNK", 7)
        write_index(reader, tmp_path / "many.index.sqlite", reader.version())
        monkeypatch.setattr(type(reader), "reads_in_process", False)
        write_index(reader, tmp_path / "asked.index.sqlite", reader.version())
    one, many = content(tmp_path / "one.index.sqlite"), content(tmp_path / "many.index.sqlite")
    assert len(one["rows"]) > 400 and any(row["shares_quote"] == "1" for row in one["rows"])
    assert one == many
    assert content(tmp_path / "asked.index.sqlite") == one
    assert sorted(p.name for p in tmp_path.glob("*.index.sqlite*")) == [
        "asked.index.sqlite",
        "many.index.sqlite",
        "one.index.sqlite",
    ]  # no scan of fields left beside them
