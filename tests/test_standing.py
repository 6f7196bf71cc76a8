"""A claim's standing: each command writes a change of standing as a data file and loads it,
the shapes refuse what makes no sense, the rule derives standing from the data files alone
(the seed's real runs, a failed check of the pinned file), and a release keeps the
standing it had."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bench import pdfgen
from helpers import BASE, OTHER_ID, SEED_ID, sha256
from helpers.verifying import RECORD, write_data
from kg.cli import main
from kg.model.datafiles import parse_yaml
from kg.store import EmbeddedStore

SOURCE_ID = "saadat-fellay-2026-genomic-lm-efficiency"
FP32_RUN = "nt-peak-memory-20261130t085235z-3ca60460"
CURATOR = "test-curator"


@pytest.fixture
def kg(runner, written_copy: Path, tmp_path: Path):
    """``kg`` over a copy of the bundled data (without the import), loaded, with a curator's
    agent file; returns the result of each call."""
    (written_copy / "agents" / f"{CURATOR}.yaml").write_text(
        f"kind: agent\nid: {CURATOR}\nagent_type: person\nlabel: A test curator\n"
    )
    common = [
        "--store",
        str(tmp_path / "store"),
        "--archive",
        str(tmp_path / "archive"),
        "--base",
        BASE,
        "--data",
        str(written_copy),
    ]

    def call(*args: str):
        result = runner.invoke(main, [*common, *args])
        assert "Traceback" not in result.output, result.output
        return result

    assert call("load").exit_code == 0
    return call


def change(*args: str, agent: str = CURATOR, reason: str | None = "a reason") -> list[str]:
    return [*args, "--agent", agent, *(["--reason", reason] if reason is not None else [])]


def standing_lines(kg, ident: str = SEED_ID, *more: str) -> dict[str, list[str]]:
    result = kg("standing", ident, *more)
    assert result.exit_code == 0, result.output
    lines: dict[str, list[str]] = {}
    for line in result.stdout.splitlines():
        key, _, rest = line.partition("\t")
        lines.setdefault(key, []).append(rest)
    return lines


def assert_the_query_agrees(kg, store: Path) -> None:
    """The canned query ``current-claims`` (the rule in SPARQL) lists exactly the claims
    the rule (kg.model.standing) gives a current standing."""
    import json

    from kg.store.standing import CURRENT as NOTHING
    from kg.store.standing import standings

    result = kg("query", "current-claims", "--format", "json")
    assert result.exit_code == 0, result.output
    listed = {b["record"]["value"] for b in json.loads(result.stdout)["results"]["bindings"]}
    with EmbeddedStore(store, read_only=True) as reader:
        found = standings(reader)
        records = {
            row["r"].value
            for row in reader.query(
                "SELECT ?r WHERE { ?r a <https://w3id.org/claimgraph/ns#Claim> }"
            )
        }
    assert listed == {r for r in records if found.get(r, NOTHING).is_current}


def written(data: Path) -> list[dict]:
    return [parse_yaml(p.read_text()) for p in sorted((data / "standing").glob("*.yaml"))]


def test_the_seed_is_current_by_its_real_runs(kg) -> None:
    """bf16 and amp-bf16 reproduce the claim, fp32 does not: the precision is a parameter
    the paper leaves open, so not every setting contradicts it, and it stays current."""
    lines = standing_lines(kg)
    assert lines["standing"] == ["current"]
    runs = dict(line.split(": ", 1) for line in lines["runs"])
    assert runs["precision=bf16"].endswith("consistent")
    assert "inconsistent" not in runs["precision=bf16"]
    assert "inconsistent" not in runs["precision=amp-bf16"]
    assert runs["precision=fp32"].endswith(" inconsistent")
    assert "change" not in lines


@pytest.mark.parametrize(
    "command, extra, expected",
    [
        (
            "dispute",
            ["--evidence", FP32_RUN, "--evidence", "https://example.org/thread"],
            "disputed",
        ),
        ("withdraw", [], "withdrawn"),
        ("correct", ["--value", "11.29"], "corrected"),
        ("retract", ["--notice", "https://example.org/notice"], "retracted"),
    ],
)
def test_each_change_is_a_file_and_gives_its_standing(
    kg, written_copy, command, extra, expected
) -> None:
    result = kg(command, SEED_ID, *change(*extra, reason=f"{command} for a test"))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [f"{SEED_ID}\t{expected}\t{command} for a test"]
    [doc] = written(written_copy)
    assert doc["change"] == expected and doc["records"] == [SEED_ID]
    assert doc["agent"] == CURATOR and doc["reason"] == f"{command} for a test"
    lines = standing_lines(kg)
    assert lines["standing"] == [expected]
    assert lines["reason"] == [f"{command} for a test"]
    if command == "dispute":
        assert doc["evidence"] == [{"run": FP32_RUN}, {"url": "https://example.org/thread"}]
        assert f"{BASE}activity/{FP32_RUN}" in lines["evidence"]
    if command == "correct":
        assert lines["corrected value"] == ["11.29"]
    # The record itself is not edited: its printed value stays as printed.
    record = parse_yaml((written_copy / "records" / f"{SEED_ID}.yaml").read_text())
    assert record["printed_value"] == "11.49"
    assert_the_query_agrees(kg, written_copy.parent / "store")


def test_a_source_retraction_retracts_every_record_quoted_from_it(kg, written_copy) -> None:
    result = kg("retract", SOURCE_ID, *change("--evidence", "https://example.org/notice"))
    assert result.exit_code == 0, result.output
    assert sorted(line.split("\t")[:2] for line in result.stdout.splitlines()) == sorted(
        [[OTHER_ID, "retracted"], [SEED_ID, "retracted"]]
    )
    [doc] = written(written_copy)
    assert doc["source"] == SOURCE_ID and "records" not in doc
    assert standing_lines(kg, OTHER_ID)["standing"] == ["retracted"]
    assert_the_query_agrees(kg, written_copy.parent / "store")


def test_supersede_and_reinstate(kg, written_copy) -> None:
    result = kg("supersede", SEED_ID, OTHER_ID, *change("--at", "2026-12-02T10:00:00Z"))
    assert result.exit_code == 0, result.output
    lines = standing_lines(kg)
    assert lines["standing"] == ["superseded"]
    assert lines["superseded by"] == [f"{BASE}record/{OTHER_ID}"]
    assert standing_lines(kg, OTHER_ID)["standing"] == ["current"]
    result = kg(
        "reinstate", SEED_ID, *change("--at", "2026-12-02T11:00:00Z", reason="both numbers stand")
    )
    assert result.exit_code == 0, result.output
    lines = standing_lines(kg)
    assert lines["standing"] == ["current"] and lines["reason"] == ["both numbers stand"]
    # Nothing is lost: both changes are listed, oldest first.
    assert [c.split("\t")[1] for c in lines["change"]] == ["superseded", "reinstated"]
    assert len(written(written_copy)) == 2
    assert_the_query_agrees(kg, written_copy.parent / "store")
    # What changed standing since a date: both changes, newest first; the runs are older.
    since = kg("query", "standing-changes", "-p", "since=2026-12-02", "--format", "csv")
    assert since.exit_code == 0, since.output
    rows = since.stdout.splitlines()[1:]
    assert [row.split(",")[3] for row in rows] == ["reinstated", "superseded"]
    assert all(f"{BASE}record/{SEED_ID}" in row for row in rows)
    earlier = kg("query", "standing-changes", "-p", "since=2026-11-30", "--format", "csv")
    assert "run consistent" in earlier.stdout and "run inconsistent" in earlier.stdout


def _refused(kg, written_copy, args: list[str], code: int, *phrases: str) -> None:
    """The command fails with ``code``, its message holds ``phrases``, no file stays
    behind and the store answers as before."""
    before = standing_lines(kg)
    result = kg(*args)
    assert result.exit_code == code, result.output
    for phrase in phrases:
        assert phrase in result.stderr, result.stderr
    assert written(written_copy) == []
    assert standing_lines(kg) == before


def test_refusals_name_what_is_wrong_and_change_nothing(kg, written_copy) -> None:
    # No reason: the shapes require one (an empty one is no value at all).
    _refused(
        kg,
        written_copy,
        ["withdraw", SEED_ID, *change(reason="")],
        1,
        "standing/withdrawn-",
        "reason",
    )
    _refused(kg, written_copy, ["withdraw", SEED_ID, *change(reason=None)], 2, "--reason")
    # An unknown record, an unknown agent, unknown evidence.
    _refused(
        kg,
        written_copy,
        ["withdraw", "no-such-record", *change()],
        1,
        "no record with id 'no-such-record'",
    )
    _refused(
        kg,
        written_copy,
        ["retract", "no-such-thing", *change()],
        1,
        "no record or source with id 'no-such-thing'",
    )
    _refused(
        kg,
        written_copy,
        ["withdraw", SEED_ID, *change(agent="nobody")],
        1,
        "agent: refers to an agent that no agent file defines ('nobody')",
    )
    _refused(
        kg,
        written_copy,
        ["dispute", SEED_ID, *change("--evidence", "no-such-run")],
        2,
        "--evidence no-such-run",
    )
    _refused(kg, written_copy, ["dispute", SEED_ID, *change()], 2, "--evidence")
    # Superseding itself.
    _refused(
        kg,
        written_copy,
        ["supersede", SEED_ID, SEED_ID, *change()],
        1,
        "superseded_by: a record cannot supersede itself",
    )
    _refused(
        kg,
        written_copy,
        ["correct", SEED_ID, *change("--value", "eleven")],
        1,
        "value: not a decimal number",
    )
    _refused(kg, written_copy, ["withdraw", SEED_ID, *change("--at", "yesterday")], 2, "--at")


def test_a_cycle_of_supersessions_is_refused(kg, written_copy) -> None:
    assert kg("supersede", SEED_ID, OTHER_ID, *change()).exit_code == 0
    result = kg("supersede", OTHER_ID, SEED_ID, *change())
    assert result.exit_code == 1, result.output
    assert "makes a cycle of supersessions" in result.stderr
    assert [d["records"] for d in written(written_copy)] == [[SEED_ID]]
    assert standing_lines(kg, OTHER_ID)["standing"] == ["current"]


def test_a_hand_written_file_is_held_to_the_shapes(kg, written_copy) -> None:
    """The shapes judge a standing file however it was written (one a curator edits)."""
    path = written_copy / "standing" / "hand-written.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "kind": "standing",
                "id": "hand-written",
                "change": "disputed",
                "record": SEED_ID,
                "agent": CURATOR,
                "at": "2026-12-02T10:00:00",
                "value": "3",
                "evidence": [{"run": "no-such-run"}, {"url": "not a url"}],
            }
        )
    )
    result = kg("load")
    assert result.exit_code == 1
    for phrase in (
        "hand-written.yaml: standing hand-written: reason: missing",
        "at: not a date-time with time zone",
        "value: only a correction gives a corrected value",
        "evidence[0].run: refers to a run, review, record or source that no file "
        "defines ('no-such-run')",
        "evidence[1].url: not a web address",
    ):
        assert phrase in result.stderr, result.stderr
    # What the YAML's structure shows is reported before the shapes run.
    path.write_text(
        yaml.safe_dump(
            {
                "kind": "standing",
                "id": "hand-written",
                "change": "disputed",
                "record": SEED_ID,
                "agent": CURATOR,
                "at": "2026-12-02T10:00:00Z",
                "reason": "r",
                "evidence": [{"paper": "x"}, "a string"],
            }
        )
    )
    result = kg("load")
    assert result.exit_code == 1
    assert "evidence[0].paper: unknown kind of evidence" in result.stderr
    assert "evidence[1]: expected one of run, review, record, source or url" in result.stderr
    assert standing_lines(kg)["standing"] == ["current"]


def test_a_failed_value_check_on_the_pinned_file_disputes_until_a_curator_reinstates(
    runner, tmp_path
) -> None:
    """kg verify against the pinned PDF, which prints another value: the value check fails,
    so the rule makes the claim disputed; a curator's reinstatement with a reason makes it
    current again. A check of another file (hash mismatch) is no evidence either way."""
    pdf = pdfgen.make_pdf(
        tmp_path / "changed.pdf",
        11,
        {6: pdfgen.paragraph("the NT 2.5B checkpoint (33.88 → 11.94 GB)")},
    )
    other = pdfgen.make_pdf(tmp_path / "base.pdf", 11, {6: pdfgen.paragraph()})
    data = tmp_path / "data"
    store = tmp_path / "store"
    common = ["--store", str(store), "--base", BASE, "--data", str(data)]

    def kg(*args: str):
        result = runner.invoke(main, [*common, *args])
        assert "Traceback" not in result.output, result.output
        return result

    def standing() -> str:
        result = kg("standing", RECORD)
        assert result.exit_code == 0, result.output
        return result.stdout.splitlines()[0].split("\t")[1]

    # Pinned to another file: the failed checks of this one say nothing of the claim.
    write_data(data, sha256(other))
    assert kg("verify", RECORD, "--pdf", str(pdf)).exit_code == 1
    assert standing() == "current"

    for review in (data / "reviews").glob("*.yaml"):
        review.unlink()
    write_data(data, sha256(pdf))
    assert kg("verify", RECORD, "--pdf", str(pdf)).exit_code == 1
    assert standing() == "disputed"
    assert_the_query_agrees(kg, store)
    reason = kg("standing", RECORD).stdout
    assert "a check of the pinned file failed (quote-check, value-check)" in reason

    (data / "agents" / f"{CURATOR}.yaml").write_text(
        f"kind: agent\nid: {CURATOR}\nagent_type: person\nlabel: A test curator\n"
    )
    result = kg(
        "reinstate",
        RECORD,
        *change(reason="the erratum prints 11.49; the PDF's 11.94 is a typesetting error"),
    )
    assert result.exit_code == 0, result.output
    assert standing() == "current"
    assert_the_query_agrees(kg, store)


def test_a_release_keeps_the_standing_it_had(kg, written_copy) -> None:
    first = kg("release", "--date", "2026-12-01").stdout.strip()
    assert kg("correct", SEED_ID, *change("--value", "11.29")).exit_code == 0
    second = kg("release", "--date", "2026-12-02").stdout.strip()
    assert standing_lines(kg, SEED_ID, "--release", first)["standing"] == ["current"]
    then = standing_lines(kg, SEED_ID, "--release", second)
    assert then["standing"] == ["corrected"] and then["corrected value"] == ["11.29"]
    history = kg("history", SEED_ID)
    assert history.exit_code == 0, history.output
    lines = history.stdout.splitlines()
    assert [line.split()[0] for line in lines if not line.startswith(" ")] == [first, second]
    # the standing where it changed: current at first (not said), corrected in the second
    [said] = [line.strip() for line in lines if line.strip().startswith("standing ")]
    assert lines.index(said.join(["    ", ""])) > lines.index(
        next(line for line in lines if line.startswith(second))
    )
    assert said.startswith("standing corrected since ")
    assert said.endswith(": a reason; corrected value 11.29")
    # The record page at each release: the standing it had, and the table of releases.
    from helpers.web import app_over

    root = written_copy.parent
    with app_over(root, archive=root / "archive") as app:
        client = app.test_client()

        def page(release: str) -> str:
            answer = client.get(
                f"/record/{SEED_ID}",
                query_string={"release": release},
                headers={"Accept": "text/html"},
            )
            assert answer.status_code == 200
            return answer.get_data(as_text=True)

        assert 'id="standing-banner"' not in page(first)
        then = page(second)
        assert 'id="standing-banner"' in then and "Corrected value: <strong>11.29</strong>" in then
        cells = (
            client.get(f"/record/{SEED_ID}", headers={"Accept": "text/html"})
            .get_data(as_text=True)
            .split('<td class="standing">')[1:]
        )
        assert [c.split("</td>")[0] for c in cells] == ["current", "corrected (11.29)"]


def test_the_store_holds_the_change_as_provenance(kg, written_copy, tmp_path) -> None:
    assert kg("withdraw", SEED_ID, *change()).exit_code == 0
    [doc] = written(written_copy)
    activity = f"<{BASE}activity/{doc['id']}>"
    with EmbeddedStore(tmp_path / "store", read_only=True) as store:
        assert store.query(f"""ASK {{ {activity} a <https://w3id.org/claimgraph/ns#StandingChange> ;
            <http://www.w3.org/ns/prov#wasAssociatedWith> <{BASE}agent/{CURATOR}> .
            <{BASE}record/{SEED_ID}> <http://www.w3.org/ns/prov#wasInvalidatedBy> {activity} }}""")


def test_every_export_carries_a_standing_that_is_not_current(kg) -> None:
    """CSL-JSON ``status`` (read by citeproc-py), the BibTeX ``note`` (read back by
    bibtexparser), JSON-LD (expanded by pyld to what ``kg show`` prints), and the Every Eval
    Ever export's details; a current claim has none of them."""
    import json

    import bibtexparser
    from citeproc.source.json import CiteProcJSON
    from pyld import jsonld

    def export(fmt: str) -> str:
        result = kg("export", SEED_ID, "--format", fmt)
        assert result.exit_code == 0, result.output
        return result.stdout

    def record_item() -> dict:
        return next(i for i in json.loads(export("csl-json")) if i["id"] == SEED_ID)

    assert "status" not in record_item()
    assert "claimgraph_standing" not in export("every-eval-ever")
    assert (
        kg(
            "retract",
            SEED_ID,
            *change(
                "--notice", "https://example.org/notice", reason="the authors retracted the paper"
            ),
        ).exit_code
        == 0
    )

    item = record_item()
    assert item["status"] == "retracted"
    assert "the authors retracted the paper" in item["note"]
    reference = CiteProcJSON([item])[SEED_ID]
    assert str(reference.status) == "retracted"

    library = bibtexparser.parse_string(export("bibtex"))
    [entry] = [e for e in library.entries if e.key == SEED_ID]
    assert "retracted" in entry.fields_dict["note"].value
    assert "the authors retracted the paper" in entry.fields_dict["note"].value

    document = json.loads(export("jsonld"))
    assert document["standing"] == "kgv:retracted"
    assert "the authors retracted the paper" in document["standingSummary"]
    shown = kg("show", SEED_ID, "--format", "nt").stdout
    expanded = jsonld.to_rdf(document, {"format": "application/n-quads"})
    standing = "<https://w3id.org/claimgraph/ns#standing>"
    assert [line for line in expanded.splitlines() if standing in line] == [
        line for line in shown.splitlines() if standing in line
    ]

    details = json.loads(export("every-eval-ever"))["evaluation_results"][0]["score_details"][
        "details"
    ]
    assert details["claimgraph_standing"].startswith("retracted since ")


@pytest.mark.browser
def test_the_banner_in_chromium(page, runner, written_copy: Path, tmp_path: Path) -> None:
    """A reader of a disputed record sees the banner with the reason and its evidence, can
    follow the evidence to the run, and finds the change in the record's history."""
    from helpers.servers import running_server

    (written_copy / "agents" / f"{CURATOR}.yaml").write_text(
        f"kind: agent\nid: {CURATOR}\nagent_type: person\nlabel: A test curator\n"
    )
    root = written_copy.parent
    result = runner.invoke(
        main,
        [
            "--store",
            str(root / "store"),
            "--base",
            BASE,
            "--data",
            str(written_copy),
            "dispute",
            SEED_ID,
            "--evidence",
            FP32_RUN,
            "--agent",
            CURATOR,
            "--reason",
            "fp32 needs twice the memory",
        ],
    )
    assert result.exit_code == 0, result.output
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    with running_server(root, {"KG_BASE": BASE}) as served:
        page.goto(f"{served.url}/record/{SEED_ID}")
        banner = page.locator("#standing-banner")
        assert banner.is_visible()
        assert banner.get_attribute("role") == "alert"
        assert "Disputed" in banner.inner_text()
        assert "fp32 needs twice the memory" in banner.inner_text()
        # above the fold: before the methods a reader scrolls to
        assert banner.bounding_box()["y"] < page.locator("#methods").bounding_box()["y"]
        page.screenshot(path=str(tmp_path / "disputed.png"), full_page=True)
        rows = page.locator("table.standing-changes tbody tr")
        assert rows.count() == 1 and "disputed" in rows.first.inner_text()
        banner.locator(f"a[href='/activity/{FP32_RUN}']").click()
        page.wait_for_url(f"**/activity/{FP32_RUN}")
        assert FP32_RUN in page.inner_text("body")
        # the other claim of the sentence is untouched: no banner
        page.goto(f"{served.url}/record/{OTHER_ID}")
        assert page.locator("#standing-banner").count() == 0
    assert not errors, errors


def test_leaderboards_show_current_claims_and_the_rest_one_click_away(runner, data_copy) -> None:
    """The index has a standing facet and says each record's standing; a leaderboard ranks
    current claims only by default, and ``standing=all`` lists the others, unranked."""
    import json

    from helpers.boards import assert_board_reads_agree
    from helpers.eee import MMLU
    from helpers.web import app_over
    from kg.web.state import state

    root = data_copy.parent
    (data_copy / "agents" / f"{CURATOR}.yaml").write_text(
        f"kind: agent\nid: {CURATOR}\nagent_type: person\nlabel: A test curator\n"
    )
    board = f"/benchmark/{MMLU}/leaderboard.json"
    with app_over(root) as app:
        before = json.loads(app.test_client().get(board).data)["rows"]
    top, second = before[0], before[1]
    assert top["rank"] == 1 and second["rank"] == 2
    result = runner.invoke(
        main,
        [
            "--store",
            str(root / "store"),
            "--base",
            BASE,
            "--data",
            str(data_copy),
            "withdraw",
            top["id"],
            *change(),
        ],
    )
    assert result.exit_code == 0, result.output
    with app_over(root) as app:
        client = app.test_client()
        rows = json.loads(client.get(board).data)["rows"]
        assert top["id"] not in [r["id"] for r in rows]
        assert rows[0]["id"] == second["id"] and rows[0]["rank"] == 1
        every = json.loads(client.get(board, query_string={"standing": "all"}).data)["rows"]
        [gone] = [r for r in every if r["id"] == top["id"]]
        assert gone["rank"] is None and gone["standing"] == "withdrawn"
        assert len(every) == len(before)
        with app.app_context():  # the board's pieces count the withdrawn row as its rows do
            assert_board_reads_agree(state(app).catalog.boards)
        page = client.get(f"/benchmark/{MMLU}", headers={"Accept": "text/html"})
        assert 'id="not-current"' in page.get_data(as_text=True)
        listing = json.loads(
            client.get("/records.json", query_string={"standing": "withdrawn"}).data
        )
        assert [r["id"] for r in listing["rows"]] == [top["id"]]
        index = client.get("/records", headers={"Accept": "text/html"}).get_data(as_text=True)
        assert 'data-facet="standing"' in index
        tagged = 'class="tag standing-tag standing-withdrawn"'
        assert tagged in client.get(
            "/", query_string={"standing": "withdrawn"}, headers={"Accept": "text/html"}
        ).get_data(as_text=True)
        assert tagged in client.get(
            f"/benchmark/{MMLU}", query_string={"standing": "all"}, headers={"Accept": "text/html"}
        ).get_data(as_text=True)


def test_runs_that_contradict_under_every_setting_tried_dispute(kg, written_copy) -> None:
    """The 33.88 GB claim is reproduced by one precision setting only (bf16 weights with
    fp32 Adam moments). Without that run, every setting tried contradicts it: disputed by
    the rule, until a curator rules otherwise; a later run could dispute it again."""
    (written_copy / "runs" / "nt-peak-memory-20261201t221327z-9e572747.yaml").unlink()
    assert kg("load").exit_code == 0
    lines = standing_lines(kg, OTHER_ID)
    assert lines["standing"] == ["disputed"]
    assert lines["reason"][0].startswith(
        "reproduction runs contradict it under every setting tried (precision="
    )
    assert "bf16-fp32-adam" not in lines["reason"][0]
    assert_the_query_agrees(kg, written_copy.parent / "store")
    # The seed keeps its consistent runs: current.
    assert standing_lines(kg)["standing"] == ["current"]
    result = kg("reinstate", OTHER_ID, *change(reason="the precision is left open"))
    assert result.exit_code == 0, result.output
    assert standing_lines(kg, OTHER_ID)["standing"] == ["current"]
    assert_the_query_agrees(kg, written_copy.parent / "store")
