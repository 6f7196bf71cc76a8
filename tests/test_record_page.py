"""A record's HTML page reads less than the record's closure (kg.web.pages.record) and shows
the same: the same views as the closure gives, the standing the rule gives, the runs read
once per store version."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pyoxigraph as ox
import pytest
from click.testing import CliRunner

from helpers import BASE, DATA, OTHER_ID, SEED_ID, WITHOUT_IMPORT
from kg.cli import main
from kg.errors import NotFoundError
from kg.rdf.facts import Facts
from kg.read.record import RecordView
from kg.store import EmbeddedStore
from kg.store.records import (
    graphs_about,
    page_closure,
    quote_siblings,
    record_and_standing,
    record_closure,
)
from kg.store.standing import CURRENT, standing
from kg.web import compile_templates, create_app
from kg.web.pages.record import KEPT_COLUMNS, KEPT_RUNS, KEPT_SIBLINGS, RecordPage
from kg.web.state import close, state

CURATOR = "test-curator"
#: A run of the seed, held back from the first load of a test.
HELD_RUN = "nt-peak-memory-20261130t085235z-3ca60460"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled data without the import, loaded, with changes of standing: a record
    superseded by the other (a change that links to another record's graph) and a source
    retracted as a whole (a change found from the record's source)."""
    import shutil

    root = tmp_path_factory.mktemp("record-page")
    shutil.copytree(DATA, root / "data", ignore=WITHOUT_IMPORT)
    (root / "data" / "agents" / f"{CURATOR}.yaml").write_text(
        f"kind: agent\nid: {CURATOR}\nagent_type: person\nlabel: A test curator\n"
    )
    common = [
        "--store",
        str(root / "store"),
        "--archive",
        str(root / "archive"),
        "--base",
        BASE,
        "--data",
        str(root / "data"),
    ]
    for args in (
        ["load"],
        ["supersede", SEED_ID, OTHER_ID, "--agent", CURATOR, "--reason", "newer"],
        [
            "retract",
            "saadat-fellay-2026-genomic-lm-efficiency",
            "--agent",
            CURATOR,
            "--reason",
            "withdrawn",
            "--evidence",
            "https://example.org/notice",
        ],
    ):
        result = CliRunner().invoke(main, [*common, *args])
        assert result.exit_code == 0, result.output
    return root


def claims(store: EmbeddedStore) -> list[str]:
    return sorted(
        row["r"].value.rsplit("/", 1)[-1]
        for row in store.query("SELECT ?r WHERE { ?r a <https://w3id.org/claimgraph/ns#Claim> }")
    )


def test_the_page_reads_the_closure_but_the_runs(root: Path) -> None:
    with EmbeddedStore(root / "store", read_only=True) as store:
        for ident in claims(store):
            closure = {q.graph_name.value for q in record_closure(store, BASE, ident)}
            quads, runs = page_closure(store, BASE, ident)
            page = {q.graph_name.value for q in quads}
            run_graphs = {graph for graph, _ in runs}
            assert page | run_graphs <= closure
            left = closure - page - run_graphs  # only what the runs link to (the runner)
            linked = {
                q.object.value
                for graph in run_graphs
                for q in store.quads([graph])
                if isinstance(q.object, ox.NamedNode)
            }
            assert left <= linked, ident


def test_the_page_shows_what_the_closure_gives(root: Path) -> None:
    """The record's views from the page's reads equal those from the whole closure (with
    its runs read from the closure's facts), and so does the table of one sentence."""
    app = create_app({"store": root / "store", "archive": root / "archive", "base": BASE})
    try:
        with EmbeddedStore(root / "store", read_only=True) as store:
            idents = claims(store)
        for ident in idents:
            with app.test_request_context(f"/record/{ident}"):
                app_state = state(app)
                page = RecordPage(app_state, app_state.registry(), ident, None)
                iri = page.iri
                whole = Facts(
                    record_and_standing(app_state.store, BASE, ident)[0], app_state.terms.graph
                )
                old = RecordView(whole, iri, BASE)
                new = RecordView(page.facts, iri, BASE, None, page.runs)
                assert {k: v for k, v in vars(new).items() if k != "f"} == {
                    k: v for k, v in vars(old).items() if k != "f"
                }, ident
                assert new.runs, ident  # the seed's runs judge both records
                assert page.standing == standing(app_state.store, iri.value), ident
                quote = page.quote_view()
                assert quote is not None and [c.id for c in quote.others] == quote_siblings(
                    app_state.store, BASE, ident
                )
                assert all(any(cell is not None for cell in run.cells) for run in quote.runs)
        with app.app_context():  # each run was read once, for both records' pages
            kept = state(app).current.derived[KEPT_RUNS]
            assert len(kept) == len({run for _, run in kept}) > 0
    finally:
        close(app)


def test_the_catalogue_knows_each_standing_and_who_may_share_a_sentence(root: Path) -> None:
    app = create_app({"store": root / "store", "archive": root / "archive", "base": BASE})
    try:
        with app.app_context():
            app_state = state(app)
            catalog = app_state.catalog
            store = app_state.store
            assert catalog.standings is not None
            for ident in claims(store):
                iri = f"{BASE}record/{ident}"
                assert catalog.standings.get(iri, CURRENT) == standing(store, iri), ident
                assert {catalog.standings[iri].standing} <= {"superseded", "retracted"}
            for row in catalog.rows():
                assert row.shares_quote or not quote_siblings(store, BASE, row.id), row.id
                assert catalog.row_of(row.id, row.record) == row
            assert catalog.row_of(SEED_ID, f"{BASE}record/elsewhere") is None
    finally:
        close(app)


def test_the_catalogue_knows_what_bears_on_each_record(root: Path) -> None:
    """What the catalogue read of every record at once gives each page the same graphs and
    runs as the page's own query: the reviews, the supersession, the retraction of the
    source, the runs."""
    app = create_app({"store": root / "store", "archive": root / "archive", "base": BASE})
    try:
        with app.app_context():
            app_state = state(app)
            about, store = app_state.catalog.about, app_state.store
            assert about is not None
            for ident in claims(store):
                record = ox.NamedNode(f"{BASE}record/{ident}")
                assert about[record.value] == graphs_about(store, record)[record.value]
                assert about[record.value].graphs and about[record.value].runs, ident
                quads, runs = page_closure(store, BASE, ident, about)
                alone, alone_runs = page_closure(store, BASE, ident)
                assert set(quads) == set(alone) and runs == alone_runs, ident
            with pytest.raises(NotFoundError):  # a graph that is not a claim's
                page_closure(store, BASE, "saadat-fellay-2026-genomic-lm-efficiency", about)
    finally:
        close(app)


def test_a_live_page_shows_what_a_new_version_bears_on_its_record(tmp_path: Path) -> None:
    """What bears on a record is read with each version's catalogue: a run and a change of
    standing loaded while the app serves are on the page once it serves the new version."""
    data = tmp_path / "data"
    shutil.copytree(DATA, data, ignore=WITHOUT_IMPORT)
    (data / "agents" / f"{CURATOR}.yaml").write_text(
        f"kind: agent\nid: {CURATOR}\nagent_type: person\nlabel: A test curator\n"
    )
    shutil.move(data / "runs" / f"{HELD_RUN}.yaml", tmp_path / f"{HELD_RUN}.yaml")
    common = [
        "--store",
        str(tmp_path / "store"),
        "--archive",
        str(tmp_path / "archive"),
        "--base",
        BASE,
        "--data",
        str(data),
    ]
    assert CliRunner().invoke(main, [*common, "load"]).exit_code == 0
    reason = "a newer measurement of the same quantity"
    app = create_app(
        {"store": tmp_path / "store", "archive": tmp_path / "archive", "base": BASE, "cache_mb": 0}
    )
    try:
        client = app.test_client()
        before = client.get(f"/record/{SEED_ID}").text
        assert HELD_RUN not in before and reason not in before
        shutil.move(tmp_path / f"{HELD_RUN}.yaml", data / "runs" / f"{HELD_RUN}.yaml")
        for args in (
            ["supersede", SEED_ID, OTHER_ID, "--agent", CURATOR, "--reason", reason],
            ["load"],
        ):
            result = CliRunner().invoke(main, [*common, *args])
            assert result.exit_code == 0, result.output
        deadline = time.monotonic() + 120  # the app looks once a second, then builds
        while (
            HELD_RUN not in (page := client.get(f"/record/{SEED_ID}").text)
            and time.monotonic() < deadline
        ):
            time.sleep(0.3)
        assert f'href="/activity/{HELD_RUN}"' in page and reason in page
        with app.app_context():
            about = state(app).catalog.about
            assert about is not None
            record = f"{BASE}record/{SEED_ID}"
            assert f"{BASE}activity/{HELD_RUN}" in {run for _, run in about[record].runs}
            assert any("/activity/superseded-" in graph for graph in about[record].graphs)
    finally:
        close(app)


def test_a_page_of_a_release_keeps_nothing(root: Path) -> None:
    """A release's page reads its runs and the claims of its sentence from the release's
    store and keeps none of them; a live page keeps them for its version."""
    common = ["--store", str(root / "store"), "--archive", str(root / "archive"), "--base", BASE]
    result = CliRunner().invoke(main, [*common, "release", "--date", "2026-12-03"])
    assert result.exit_code == 0, result.output
    app = create_app({"store": root / "store", "archive": root / "archive", "base": BASE})
    try:
        client = app.test_client()
        with app.app_context():
            [info] = state(app).archive.releases()
        answer = client.get(f"/record/{SEED_ID}?release={info.id}")
        assert answer.status_code == 200 and b"Reproduction runs (claimgraph)" in answer.data
        with app.app_context():
            assert not {KEPT_RUNS, KEPT_SIBLINGS, KEPT_COLUMNS} & set(state(app).current.derived)
        assert client.get(f"/record/{SEED_ID}").status_code == 200
        with app.app_context():
            derived = state(app).current.derived
            assert derived[KEPT_RUNS]
            assert derived[KEPT_SIBLINGS] == {SEED_ID: [OTHER_ID]}
            assert set(derived[KEPT_COLUMNS]) == {OTHER_ID}
    finally:
        close(app)


def test_every_template_compiles_before_the_first_request(tmp_path: Path) -> None:
    """What a worker of `kg serve` does as it starts: no page kind compiles its template
    on its first request."""
    app = create_app({"store": str(tmp_path / "store"), "data": str(DATA)})
    compile_templates(app)
    cache = app.jinja_env.cache
    assert cache is not None
    compiled = {key[1] for key in cache}
    assert {"index.html", "record.html", "sparql.html", "error.html"} <= compiled
    assert compiled == set(app.jinja_env.list_templates())
