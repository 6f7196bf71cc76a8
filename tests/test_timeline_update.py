"""A load that changes only some records' words (a source renamed, a value corrected)
updates the previous version's timeline file in place; any other load writes it whole.
Either way the file holds exactly what a whole write of the same index and archive gives,
and the feeds show the new words."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import feedparser
import pytest
from click.testing import CliRunner

from helpers import BASE, SEED_ID, copy_sampled
from helpers.web import app_over
from kg.cli import main
from kg.store.archive import Archive
from kg.store.index import Index
from kg.store.index.timeline_file import timeline_name
from kg.store.index.timeline_write import write_timeline

SOURCE = "crfm-helm-lite"
TABLES = {
    "entries": "SELECT * FROM entries ORDER BY pos",
    "entry_records": "SELECT * FROM entry_records ORDER BY record, pos",
    "entry_nodes": "SELECT * FROM entry_nodes ORDER BY node, pos",
    "changed": "SELECT * FROM changed ORDER BY record",
    "sitemap": "SELECT * FROM sitemap ORDER BY pos",
    "meta": "SELECT * FROM meta WHERE key != 'updated_from' ORDER BY key",
}


def content(path: Path) -> dict[str, list]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        found = {name: db.execute(sql).fetchall() for name, sql in TABLES.items()}
    db.close()
    return found


class Store:
    def __init__(self, root: Path):
        self.root = root
        self.data = copy_sampled(root / "data")
        self.runner = CliRunner()

    def kg(self, *args: str) -> None:
        result = self.runner.invoke(
            main,
            ["--store", str(self.root / "store"), "--base", BASE, "--data", str(self.data), *args],
        )
        assert result.exit_code == 0, result.output

    def timeline(self) -> tuple[Path, dict[str, str]]:
        """The live version's timeline file and its meta table; checked against a whole
        write of the same index and archive."""
        kept = sorted((self.root / "store").glob("v-*.index.sqlite"))[-1]
        index = Index(kept)
        with Archive(self.root / "store-archive") as archive:
            path = self.root / "store-index" / timeline_name(index, archive)
            whole = self.root / "whole.timeline.sqlite"
            whole.unlink(missing_ok=True)
            write_timeline(index, archive, BASE, whole)
        assert content(path) == content(whole)
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            meta = dict(db.execute("SELECT key, value FROM meta"))
        db.close()
        return path, meta

    def retitle(self, title: str) -> None:
        path = self.data / "sources" / f"{SOURCE}.yaml"
        path.write_text(re.sub(r"(?m)^title: .*$", f"title: {title}", path.read_text()))


@pytest.fixture
def store(tmp_path: Path) -> Store:
    made = Store(tmp_path)
    made.kg("load")
    made.kg("release", "--date", "2026-12-01", "--note", "first")
    return made


def test_a_source_renamed_updates_the_timeline_in_place(store: Store) -> None:
    _, first = store.timeline()
    assert "updated_from" not in first
    store.retitle("HELM Lite, renamed")
    store.kg("load")
    _, meta = store.timeline()
    assert meta["updated_from"] == first["index"] != meta["index"]
    with app_over(store.root) as app:
        feed = feedparser.parse(app.test_client().get(f"/feed/source/{SOURCE}.atom").data)
    summaries = [e.summary for e in feed.entries if e.title.startswith("New record: ")]
    assert summaries and all(s.endswith("(HELM Lite, renamed)") for s in summaries)


def test_a_load_that_adds_a_record_writes_the_timeline_whole(store: Store) -> None:
    """A new record's entry takes a place among the others: the file is written whole."""
    records = store.data / "records"
    seed = next(records.glob("*.yaml"))
    ident = re.search(r"(?m)^id: (.*)$", seed.read_text())
    assert ident is not None
    (records / "test-timeline-extra.yaml").write_text(
        seed.read_text().replace(ident.group(1), "test-timeline-extra")
    )
    store.kg("load")
    _, meta = store.timeline()
    assert "updated_from" not in meta


def test_a_retraction_changes_an_activity_and_writes_the_timeline_whole(store: Store) -> None:
    """A change of standing is an activity of its own: its entry takes a place, so the
    file is written whole, and its feed shows it."""
    (store.data / "agents" / "test-curator.yaml").write_text(
        "kind: agent\nid: test-curator\nagent_type: person\nlabel: A test curator\n"
    )
    store.kg(
        "retract",
        SEED_ID,
        "--agent",
        "test-curator",
        "--reason",
        "a test of the timeline",
        "--at",
        "2026-12-02T10:00:00Z",
    )
    store.kg("load")
    _, meta = store.timeline()
    assert "updated_from" not in meta
    with app_over(store.root) as app:
        feed = feedparser.parse(app.test_client().get(f"/feed/record/{SEED_ID}.atom").data)
    summaries = [e.get("summary") for e in feed.entries if "retracted" in e.title]
    assert summaries == ["a test of the timeline"]
