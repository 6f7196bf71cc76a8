"""Readers under a writer: bench/reliability.py in small (500 requests from 8 clients while
`kg load` runs twice), and its checker on answers made up to be wrong."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench import reliability
from helpers import ROOT


@pytest.fixture(scope="module")
def bench():
    return reliability


@pytest.mark.slow
def test_readers_under_a_writer(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "reliability.py"),
            "--records",
            "100",
            "--requests",
            "500",
            "--clients",
            "8",
            "--loads",
            "2",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.exists(), run.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["failures"] == 0, result["examples"]
    assert result["server_errors"] == 0
    assert result["requests"] >= 500 and result["loads"] == 2
    assert set(result["by_kind"]) == {"record", "index", "listing", "sparql"}
    assert result["generations_seen"] >= 2  # the readers did see the data change
    # Once the writer stopped, every kind of request reached the newest generation.
    assert all(result["asks_to_newest"][kind] >= 1 for kind in result["by_kind"])
    assert result["records"] == 100 + 2 * 2  # each load added two (deleted ten loads on)
    assert all(mb > 0 for mb in result["rss_mb_before"] + result["rss_mb_after"])
    assert run.returncode == 0


def page(title: str, printed: str) -> str:
    return f"<h1>{title}</h1>\n<dl><dt>printed value</dt><dd>{printed}</dd></dl>"


def test_the_checker_sees_a_mix_in_a_record(bench) -> None:
    consistent, error = bench.parse(
        "record",
        page("Reliability tracked record 3 at generation 4 (x)", bench.value(4)),
        20,
        2,
        10,
    )
    assert consistent == {4} and not error
    mixed, _ = bench.parse(
        "record",
        page("Reliability tracked record 3 at generation 4 (x)", bench.value(5)),
        20,
        2,
        10,
    )
    assert mixed == {4, 5}


def listing(rows: list[tuple[str, str]]) -> str:
    return json.dumps({"rows": [{"title": t, "printed_value": p} for t, p in rows]})


def test_the_checker_sees_a_mix_across_records(bench) -> None:
    def tracked(generation: int) -> list[tuple[str, str]]:
        return [
            (
                f"Reliability tracked record {k} at generation {generation} (x)",
                bench.value(generation),
            )
            for k in range(3)
        ]

    def added(*generations: int) -> list[tuple[str, str]]:
        return [
            (f"Reliability added record {g}-{i} (x)", bench.value(g))
            for g in generations
            for i in range(2)
        ]

    assert bench.parse("listing", listing(tracked(2) + added(1, 2)), 3, 2, 10) == ({2}, "")
    assert bench.parse("listing", listing(tracked(12) + added(*range(3, 13))), 3, 2, 10) == (
        {12},
        "",
    )
    # One record of the next generation, the added records of another load, one added
    # record too few or too many (a deleted one still there): each a mix.
    newer = [*tracked(2)[:2], *tracked(3)[2:]]
    assert bench.parse("listing", listing(newer + added(1, 2)), 3, 2, 10)[0] == {2, 3}
    assert bench.parse("listing", listing(tracked(2) + added(1)), 3, 2, 10)[0] == {1, 2}
    assert bench.parse("listing", listing(tracked(2) + added(1, 2)[1:]), 3, 2, 10)[1]
    assert bench.parse("listing", listing(tracked(12) + added(*range(2, 13))), 3, 2, 10)[1]
    assert (
        "2 of 3 tracked"
        in bench.parse("listing", listing(tracked(2)[:2] + added(1, 2)), 3, 2, 10)[1]
    )


def test_the_checker_judges_events_not_seconds(bench) -> None:
    Generation, Response = bench.Generation, bench.Response
    generations = [Generation(0, 0.0, 0.0), Generation(1, 10.0, 12.0), Generation(2, 20.0, 22.0)]
    answers = [
        Response("record", 11.0, 11.5, 200, {0}, client=1),  # during load 1: old is fine
        Response("record", 15.0, 15.1, 200, {0}, client=1),  # three seconds stale: measured
        Response("record", 16.0, 16.1, 200, {1}, client=1),
        Response("record", 16.5, 16.6, 200, {0}, client=1),  # back to 0 after 1: a failure
        Response("record", 16.5, 16.6, 200, {0}, client=2),  # another reader: only stale
        Response("record", 9.0, 9.5, 200, {1}, client=3),  # before load 1 began: impossible
        Response("index", 30.0, 30.1, 200, {1, 2}, client=4),  # a mix
        Response("sparql", 30.0, 30.1, 503, set(), client=4),
        Response("listing", 30.0, 30.1, 200, {2}, etag='"a"', client=5),
        Response("listing", 30.0, 30.1, 200, {2}, etag='"a"', client=6),
        Response("record", 30.0, 30.1, 200, {2}, client=5),
    ]
    reasons, _, stale = bench.check(answers, generations)
    assert reasons == {
        "older than a generation the reader had already seen": 1,
        "a generation not yet written": 1,
        "a mix of generations": 1,
        "5xx": 1,
    }
    # Answers older than the live generation are measured (three of them here), not failed.
    assert sorted(round(s, 1) for s in stale) == [3.0, 4.5, 4.5]
    again = [
        Response("listing", 30.0, 30.1, 200, {1}, etag='"a"'),
        Response("listing", 31.0, 31.1, 200, {2}, etag='"a"'),
    ]
    later = [*generations[:2], Generation(2, 30.5, 30.6)]
    assert "one ETag, two generations" in bench.check(again, later)[0]
