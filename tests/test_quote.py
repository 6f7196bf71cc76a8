"""The claims of one quoted sentence, side by side on each record's page: derived from the
graph (the records that share a source and a locator quote), linked both ways, with every
run's verdict on each claim. The web app in-process (Flask's test client) over a real
store loaded by `kg load`."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from helpers import BASE, DATA, OTHER_ID, SEED_ID, SENTENCE_RUNS
from helpers.web import web_app
from kg.store.records import quote_siblings

OTHER_RECORD = f"records/{OTHER_ID}.yaml"
QUOTE = "the NT 2.5B checkpoint (33.88 → 11.49 GB)"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = tmp_path_factory.mktemp("quote")
    shutil.copytree(DATA, root / "data")
    return web_app(root).test_client()


def side_by_side(html: str) -> str:
    found = re.search(r'<table class="quote-claims">(.*?)</table>', html, re.S)
    assert found, "no side-by-side table"
    return found.group(1)


@pytest.mark.parametrize(("this", "other"), [(SEED_ID, OTHER_ID), (OTHER_ID, SEED_ID)])
def test_each_page_shows_both_claims_linked_to_the_other(client, this: str, other: str) -> None:
    html = client.get(f"/record/{this}").text
    table = side_by_side(html)
    # the sentence's order: 33.88 first, then 11.49; the page's own record is not a link
    heads = re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", table.split("</thead>")[0])
    assert [re.sub(r"<[^>]+>", "", h) for h in heads] == ["Claim"] + (
        ["33.88 GB (this record)", "11.49 GB"]
        if this == OTHER_ID
        else ["33.88 GB", "11.49 GB (this record)"]
    )
    assert f'href="/record/{other}"' in table and f'href="/record/{this}"' not in table
    assert "transcribed by claimgraph, not checked upstream" in table
    assert "source checked" in table
    assert QUOTE in html
    # the related records name the other claim too
    related = html.split('id="related"')[1]
    assert f'href="/record/{other}"' in related and 'href="#same-sentence"' in related


def test_every_run_of_either_claim_is_a_row_with_its_verdict(client) -> None:
    table = side_by_side(client.get(f"/record/{OTHER_ID}").text)
    rows = re.findall(r'<tr class="run">(.*?)</tr>', table, re.S)
    assert len(rows) == SENTENCE_RUNS  # one row per run of either claim
    fp32 = next(r for r in rows if "precision fp32<" in r)
    cells = re.findall(r"<td(?:\s[^>]*)?>(.*?)</td>", fp32, re.S)
    # the 2026-11-30 fp32 run judged 11.49 GB only
    assert "no verdict" in cells[0]
    assert "24.17 at deepspeed-zero2-offload" in cells[1] and "inconsistent" in cells[1]


def test_the_pairing_comes_from_the_graph(tmp_path: Path) -> None:
    """Another sentence, and the pages stand alone; the same sentence, and they pair."""
    shutil.copytree(DATA, tmp_path / "data")
    path = tmp_path / "data" / OTHER_RECORD
    path.write_text(
        path.read_text().replace(
            "  quote: the NT 2.5B checkpoint (33.88 → 11.49 GB)\n",
            "  quote: another sentence (33.88 GB)\n",
        )
    )
    client = web_app(tmp_path).test_client()
    for record in (SEED_ID, OTHER_ID):
        html = client.get(f"/record/{record}").text
        assert 'class="quote-claims"' not in html and 'id="same-sentence"' not in html


def test_quote_siblings(tmp_path: Path) -> None:
    shutil.copytree(DATA, tmp_path / "data")
    app = web_app(tmp_path)
    store = app.extensions["kg"].store
    assert quote_siblings(store, BASE, SEED_ID) == [OTHER_ID]
    assert quote_siblings(store, BASE, OTHER_ID) == [SEED_ID]


def test_the_evidence_table_marks_the_transcribers_reading(client) -> None:
    html = client.get(f"/record/{OTHER_ID}").text
    table = html.split('<table class="evidence">')[1].split("</table>")[0]
    rows = re.findall(r"<tr id=[^>]*>(.*?)</tr>", table, re.S)
    assert len(rows) == 3
    reading = [r for r in rows if "Transcriber&#39;s reading" in r or "Transcriber's reading" in r]
    assert len(reading) == 1 and "stage before ZeRO offload" in reading[0]
    assert "Figure 3 was not seen by the transcriber" in reading[0]  # how it was read
    assert sum("In the source&#39;s words" in r or "In the source's words" in r for r in rows) == 2
    # the status's caveats, from the vocabulary
    assert "claimgraph&#39;s own transcription" in html or "claimgraph's own transcription" in html


def test_a_sentence_of_many_claims_is_shown_cut_and_says_so(tmp_path: Path) -> None:
    """A page reads at most QuoteView.MAX_SIBLINGS other claims of its sentence in full."""
    from kg.read.quote import QuoteView

    shutil.copytree(DATA, tmp_path / "data")
    text = (tmp_path / "data" / OTHER_RECORD).read_text()
    extra = QuoteView.MAX_SIBLINGS + 1  # with the seed: two more than the page shows
    for i in range(extra):
        (tmp_path / "data" / "records" / f"{OTHER_ID}-copy-{i:02d}.yaml").write_text(
            text.replace(f"id: {OTHER_ID}", f"id: {OTHER_ID}-copy-{i:02d}")
        )
    html = web_app(tmp_path).test_client().get(f"/record/{SEED_ID}").text
    heads = re.findall(r"<th[ >]", side_by_side(html).split("</thead>")[0])
    assert len(heads) == 1 + 1 + QuoteView.MAX_SIBLINGS  # the row label, this one, the others
    assert "2 more records quote this sentence" in html
