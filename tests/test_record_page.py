"""A record's HTML page reads less than the record's closure (kg.web.record_page) and shows
the same: the same views as the closure gives, the standing the rule gives, the runs read
once per store version."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
from click.testing import CliRunner

from helpers import BASE, OTHER_ID, SEED_ID
from kg.cli import main
from kg.rdf.facts import Facts
from kg.store import EmbeddedStore
from kg.store.records import page_closure, quote_siblings, record_closure, record_with_standing
from kg.store.standing import CURRENT, standing
from kg.web import create_app
from kg.web.record_page import KEPT_RUNS, RecordPage
from kg.web.state import close, state
from kg.web.views.record import RecordView

CURATOR = "test-curator"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled data without the import, loaded, with changes of standing: a record
    superseded by the other (a change that links to another record's graph) and a source
    retracted as a whole (a change found from the record's source)."""
    import shutil

    from helpers import DATA, WITHOUT_IMPORT

    root = tmp_path_factory.mktemp("record-page")
    shutil.copytree(DATA, root / "data", ignore=WITHOUT_IMPORT)
    (root / "data" / "agents" / f"{CURATOR}.yaml").write_text(
        f"kind: agent\nid: {CURATOR}\nagent_type: person\nlabel: A test curator\n")
    common = ["--store", str(root / "store"), "--archive", str(root / "archive"), "--base",
              BASE, "--data", str(root / "data")]
    for args in (["load"],
                 ["supersede", SEED_ID, OTHER_ID, "--agent", CURATOR, "--reason", "newer"],
                 ["retract", "saadat-fellay-2026-genomic-lm-efficiency", "--agent", CURATOR,
                  "--reason", "withdrawn", "--evidence", "https://example.org/notice"]):
        result = CliRunner().invoke(main, [*common, *args])
        assert result.exit_code == 0, result.output
    return root


def claims(store: EmbeddedStore) -> list[str]:
    return sorted(row["r"].value.rsplit("/", 1)[-1] for row in store.query(
        "SELECT ?r WHERE { ?r a <https://w3id.org/claimgraph/ns#Claim> }"))


def test_the_page_reads_the_closure_but_the_runs(root: Path) -> None:
    with EmbeddedStore(root / "store", read_only=True) as store:
        for ident in claims(store):
            closure = {q.graph_name.value for q in record_closure(store, BASE, ident)}
            quads, runs = page_closure(store, BASE, ident)
            page = {q.graph_name.value for q in quads}
            run_graphs = {graph for graph, _ in runs}
            assert page | run_graphs <= closure
            left = closure - page - run_graphs  # only what the runs link to (the runner)
            linked = {q.object.value for graph in run_graphs for q in store.quads([graph])
                      if isinstance(q.object, ox.NamedNode)}
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
                whole = Facts(record_with_standing(app_state.store, BASE, ident),
                              app_state.terms.graph)
                old = RecordView(whole, iri, BASE)
                new = RecordView(page.facts, iri, BASE, None, page.runs)
                assert {k: v for k, v in vars(new).items() if k != "f"} == \
                    {k: v for k, v in vars(old).items() if k != "f"}, ident
                assert new.runs, ident  # the seed's runs judge both records
                assert page.standing == standing(app_state.store, iri.value), ident
                quote = page.quote_view()
                assert quote is not None and [c.id for c in quote.others] == \
                    quote_siblings(app_state.store, BASE, ident)
                assert all(any(cell is not None for cell in run.cells) for run in quote.runs)
        with app.app_context():  # each run was read once, for both records' pages
            kept = state(app).view.derived[KEPT_RUNS]
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
            for row in catalog.rows:
                assert row.shares_quote or not quote_siblings(store, BASE, row.id), row.id
                assert catalog.row_of(row.id, row.record) is row
            assert catalog.row_of(SEED_ID, f"{BASE}record/elsewhere") is None
    finally:
        close(app)


def test_a_page_of_a_release_keeps_no_run(root: Path) -> None:
    """A release's page reads its runs from the release's store and keeps none of them."""
    common = ["--store", str(root / "store"), "--archive", str(root / "archive"), "--base",
              BASE]
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
            assert KEPT_RUNS not in state(app).view.derived
        assert client.get(f"/record/{SEED_ID}").status_code == 200
        with app.app_context():
            assert state(app).view.derived[KEPT_RUNS]
    finally:
        close(app)
