"""kg.kinds: the one table of kinds of node agrees with the mapping, the data, the docs and
the web app's routes."""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

import pytest

from helpers import BASE, DATA, ROOT
from kg import kinds
from kg.cli import main
from kg.model.mapping import MAPPERS
from kg.web import create_app


def test_the_file_kinds_are_the_mappings_and_the_data_directories() -> None:
    assert set(kinds.FILE_KINDS) == set(MAPPERS)
    directories = {kind.directory for kind in kinds.KINDS if kind.directory is not None}
    assert directories == {path.name for path in DATA.iterdir() if path.is_dir()}
    for name in kinds.FILE_KINDS:
        kind = kinds.by_name(name)
        assert kinds.by_directory(kinds.data_directory(name)) is kind
        assert kind in kinds.by_segment(kind.segment)


def test_rows_are_well_formed() -> None:
    names = [kind.name for kind in kinds.KINDS]
    assert len(names) == len(set(names))
    for kind in kinds.KINDS:
        # a rank among the file kinds exactly when the kind has data files
        assert (kind.file_rank is None) == (kind.directory is None), kind.name
    ranks = [kind.file_rank for kind in kinds.KINDS if kind.file_rank is not None]
    assert sorted(ranks) == list(range(len(ranks)))
    # what belongs to a segment (its IRIs: routes, caching, citations, diffs) is one thing
    for segment in kinds.SEGMENTS:
        rows = kinds.by_segment(segment)
        assert len({(k.citable, k.shared, k.browsed, k.history_rank) for k in rows}) == 1
    assert kinds.by_directory("no-such-folder") is None
    with pytest.raises(KeyError):
        kinds.data_directory("release")


def test_the_orders_each_place_uses() -> None:
    """Messages, prefixes, query parameters, differences and pages list kinds in these
    orders today: a change of the table must not reorder what users see."""
    assert kinds.FILE_KINDS == (
        "record",
        "evaluation",
        "source",
        "agent",
        "review",
        "run",
        "import",
        "standing",
    )
    assert kinds.SEGMENTS == (
        "record",
        "source",
        "agent",
        "evaluation",
        "activity",
        "release",
        "import",
        "model",
        "benchmark",
    )
    assert kinds.HISTORY_SEGMENTS == (
        "record",
        "source",
        "evaluation",
        "agent",
        "activity",
        "import",
    )
    assert kinds.segments(citable=True) == ("record", "source")
    assert kinds.minted_iri(BASE, "record", "a b/c") == f"{BASE}record/a%20b%2Fc"


def test_every_file_kind_is_documented() -> None:
    """docs/records.md's table: each kind of data file, in display order, with its folder
    and the IRI of its main node."""
    doc = (ROOT / "docs" / "records.md").read_text()
    rows = re.findall(
        r"^\| `(\w+)` \| `data/(\w+)/` \| .* \| `<base>(\w+)/<id>` \|$", doc, flags=re.M
    )
    assert rows == [(k.name, k.directory, k.segment) for k in kinds.KINDS if k.directory]


@pytest.fixture(scope="module")
def app_and_ids(tmp_path_factory):
    """The web app over the bundled data, loaded and released once; an id of every segment
    (a minted IRI the store holds, and the release made)."""
    from click.testing import CliRunner

    root = tmp_path_factory.mktemp("kinds")
    store, archive = root / "store", root / "archive"
    common = ["--store", str(store), "--archive", str(archive), "--base", BASE]
    runner = CliRunner()
    for args in (["load", str(DATA)], ["release", "--date", "2026-12-01"]):
        result = runner.invoke(main, [*common, *args])
        assert result.exit_code == 0, result.output
    app = create_app({"store": store, "archive": archive, "base": BASE})
    ids = {"release": result.stdout.strip()}
    for quad in app.extensions["kg"].store.quads():
        iri = getattr(quad.subject, "value", "")
        for segment in kinds.SEGMENTS:
            prefix = kinds.iri_prefix(BASE, segment)
            if iri.startswith(prefix) and "#" not in iri:
                ids.setdefault(segment, unquote(iri[len(prefix) :]))
    return app, ids


@pytest.mark.parametrize("segment", kinds.SEGMENTS)
def test_every_segment_is_routed(app_and_ids, segment: str) -> None:
    app, ids = app_and_ids
    response = app.test_client().get(f"/{segment}/{quote(ids[segment], safe='')}")
    assert response.status_code == 200, response.text
    assert response.mimetype == "text/html"


def test_other_segments_are_not(app_and_ids) -> None:
    app, _ = app_and_ids
    assert app.test_client().get("/no-such-kind/x").status_code == 404
