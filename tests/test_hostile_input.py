"""Hostile input through the real `kg validate` and `kg load` (the `kg` command, in-process).

Every case breaks one file of a copy of data/ — the broken variants of
test_broken_variants.py plus what a hostile or careless file can be beyond a wrong
value: YAML bombs, object-constructing tags, deep nesting, a 50 MB file, binary junk,
bad encodings, invalid IRIs, duplicate ids. Each must give one clear line naming the
file, the record and the field, exit 1, no traceback, and leave the store's content
exactly as it was (its canonical dump compared before and after). The longest case
is reported at the end of the run (not asserted: the machine is shared).
"""

from __future__ import annotations

import os
import random
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from helpers import (
    AGENT_FILE,
    BASE,
    DATA,
    SEED_ID,
    SEED_RECORD,
    SEED_SOURCE,
    WITHOUT_IMPORT,
    open_test_store,
)
from helpers.variants import RUN, VARIANTS, break_file, setter
from kg.cli import main
from kg.model.datafiles import parse_yaml
from kg.rdf.canonical import canonical_nquads
from kg.store.load import load_paths

RECORD_LABEL = f"record {SEED_ID}"
SOURCE_LABEL = "source saadat-fellay-2026-genomic-lm-efficiency"
HOSTILE = "records/hostile.yaml"  # a new file, beside the good ones


@dataclass(frozen=True)
class Case:
    """One hostile file: how to make it, and the line that must name it."""

    id: str
    relative: str  # the file (under data/) the message must name
    make: Callable[[Path], None]  # breaks the copy of data/
    label: str  # "record <id>", or "" where the file is refused before its id is known
    field: str  # "" where the whole file is refused; a place inside it counts too
    message: str  # words the message must hold
    #: The commands that must refuse it. The broken variants' `kg validate` messages are
    #: already held to file, record and field in-process (test_broken_variants); here
    #: `kg load` refuses them (it validates first) and keeps the store as it was.
    commands: tuple[str, ...] = ("validate", "load")


def _variant_cases() -> list[Case]:
    cases = []
    for ident, relative, change, field, message in VARIANTS:
        original = parse_yaml((DATA / relative).read_text())
        label = (
            f"{original['kind']} {original['id']}" if ident != "bad-id" else "record Seed Record!"
        )
        cases.append(
            Case(
                f"variant-{ident}",
                relative,
                changing(relative, change),
                label,
                field,
                message,
                commands=("load",),
            )
        )
    return cases


def writes(
    relative: str, content: bytes | str | Callable[[str], str | bytes]
) -> Callable[[Path], None]:
    """A change that writes ``relative``: fixed content, or a function of its seed text."""

    def make(data: Path) -> None:
        path = data / relative
        value = content(path.read_text()) if callable(content) else content
        path.write_bytes(value.encode() if isinstance(value, str) else value)

    return make


def replacing(old: str, new: str) -> Callable[[str], str]:
    def change(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    return change


def appending(extra: str) -> Callable[[str], str]:
    return lambda text: text + extra


def changing(relative: str, change: Callable[[dict], None]) -> Callable[[Path], None]:
    return lambda data: break_file(data, relative, change)


def fifty_megabytes(data: Path) -> None:
    # Real bytes, not a sparse file: a reader that reads before it checks would pay for all.
    with (data / HOSTILE).open("w") as out:
        out.write("kind: record\nid: hostile\nnote: |\n")
        line = "  " + "x" * 1022 + "\n"
        for _ in range(50 * 1024):
            out.write(line)


def binary_junk(data: Path) -> None:
    (data / HOSTILE).write_bytes(random.Random(12).randbytes(64 * 1024))


def billion_laughs() -> str:
    lines = ["kind: record", "id: hostile", 'lol0: &a0 ["lol"]']
    lines += [f"lol{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    return "\n".join([*lines, "title: *a9", ""])


def duplicate_of(relative: str, copy: str) -> Callable[[Path], None]:
    def make(data: Path) -> None:
        shutil.copy(data / relative, data / copy)

    return make


SEED_AGENT_TEXT = (DATA / AGENT_FILE).read_text()
YAML_ERROR = "YAML error: line"

NEW_CASES = [
    # YAML syntax and structure
    Case(
        "yaml-unclosed-flow",
        SEED_RECORD,
        writes(SEED_RECORD, appending("broken: [a, b\n")),
        "",
        "",
        "YAML error: line",
    ),
    Case(
        "yaml-bad-indentation",
        SEED_RECORD,
        writes(
            SEED_RECORD, replacing("metric: peak-memory\n", "metric: peak-memory\n   oops: x\n")
        ),
        "",
        "",
        YAML_ERROR,
    ),
    Case(
        "yaml-tab-indentation",
        AGENT_FILE,
        writes(AGENT_FILE, "kind: agent\nid: x\n\tlabel: y\n"),
        "",
        "",
        YAML_ERROR,
    ),
    Case(
        "yaml-two-documents",
        AGENT_FILE,
        writes(AGENT_FILE, appending("---\nkind: agent\n")),
        "",
        "",
        "one YAML document",
    ),
    Case(
        "yaml-duplicate-key",
        SEED_RECORD,
        writes(SEED_RECORD, appending("title: A second title\n")),
        "",
        "",
        "duplicate key 'title'",
    ),
    Case(
        "yaml-complex-key",
        AGENT_FILE,
        writes(AGENT_FILE, appending("? [a, b]\n: c\n")),
        "",
        "",
        "keys must be plain strings",
    ),
    Case(
        "top-level-list",
        HOSTILE,
        writes(HOSTILE, "- kind: record\n- id: x\n"),
        "",
        "",
        "must be a YAML mapping",
    ),
    Case(
        "top-level-scalar",
        HOSTILE,
        writes(HOSTILE, "just some words\n"),
        "",
        "",
        "must be a YAML mapping",
    ),
    # the whole file
    Case("empty-file", HOSTILE, writes(HOSTILE, b""), "", "", "file is empty"),
    Case("only-comments", HOSTILE, writes(HOSTILE, "# nothing here\n\n"), "", "", "file is empty"),
    Case(
        "no-kind",
        HOSTILE,
        writes(HOSTILE, "id: hostile\ntitle: No kind at all\n"),
        "",
        "kind",
        "missing 'kind'",
    ),
    Case(
        "unknown-kind",
        HOSTILE,
        writes(HOSTILE, "kind: claim\nid: hostile\n"),
        "",
        "kind",
        "unknown kind 'claim'",
    ),
    Case(
        "kind-is-a-list",
        HOSTILE,
        writes(HOSTILE, "kind: [record]\nid: hostile\n"),
        "",
        "kind",
        "unknown kind",
    ),
    Case(
        "no-id",
        HOSTILE,
        writes(HOSTILE, "kind: agent\nagent_type: person\nlabel: x\n"),
        "agent",
        "id",
        "missing 'id'",
    ),
    Case("file-of-50-mb", HOSTILE, fifty_megabytes, "", "", "file is too large (5"),
    Case(
        "file-just-over-1-mb",
        HOSTILE,
        writes(HOSTILE, "kind: agent\nid: x\nnote: " + "y" * 1_000_000 + "\n"),
        "",
        "",
        "file is too large",
    ),
    Case("binary-junk", HOSTILE, binary_junk, "", "", "not UTF-8"),
    Case(
        "png-named-yaml",
        HOSTILE,
        writes(HOSTILE, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))),
        "",
        "",
        "not UTF-8",
    ),
    Case(
        "invalid-utf8-in-a-value",
        SEED_RECORD,
        writes(SEED_RECORD, lambda t: t.encode().replace(b"NVIDIA H100", b"NVIDIA H\xff100", 1)),
        "",
        "",
        "not UTF-8 text (undecodable byte at offset",
    ),
    Case(
        "utf16-file",
        AGENT_FILE,
        writes(AGENT_FILE, SEED_AGENT_TEXT.encode("utf-16")),
        "",
        "",
        "not UTF-8",
    ),
    Case(
        "raw-nul-byte",
        AGENT_FILE,
        writes(AGENT_FILE, SEED_AGENT_TEXT + "note: a\x00b\n"),
        "",
        "",
        "character U+0000",
    ),
    Case(
        "raw-control-character",
        AGENT_FILE,
        writes(AGENT_FILE, SEED_AGENT_TEXT + "note: bell\x07\n"),
        "",
        "",
        "character U+0007",
    ),
    Case(
        "escaped-control-character",
        AGENT_FILE,
        writes(AGENT_FILE, SEED_AGENT_TEXT + 'note: "a\\0b\\x1bc"\n'),
        "",
        "",
        "control character U+0000",
    ),
    Case(
        "escaped-lone-surrogate",
        AGENT_FILE,
        writes(AGENT_FILE, SEED_AGENT_TEXT + 'note: "\\ud800"\n'),
        "",
        "",
        YAML_ERROR,
    ),
    # YAML features that attack the reader
    Case(
        "billion-laughs",
        HOSTILE,
        writes(HOSTILE, billion_laughs()),
        "",
        "",
        "aliases (*name) are not allowed",
    ),
    Case(
        "merge-key-alias",
        AGENT_FILE,
        writes(AGENT_FILE, "kind: agent\nid: claude\nbase: &b {label: x}\nmore:\n  <<: *b\n"),
        "",
        "",
        "aliases (*name) are not allowed",
    ),
    # Whichever refuses first, our reader (12 levels) or the parser's own limit (libyaml's
    # 1000, in PyYAML 6.0.4), the message names the file and the field; its words may be
    # the parser's.
    Case(
        "deep-flow-nesting",
        HOSTILE,
        writes(HOSTILE, "kind: record\nid: hostile\nnote: " + "[" * 300_000 + "]" * 300_000),
        "",
        "note",
        YAML_ERROR,
    ),
    Case(
        "deep-block-nesting",
        HOSTILE,
        writes(
            HOSTILE,
            "kind: record\nid: hostile\n"
            + "".join("  " * i + f"k{i}:\n" for i in range(40))
            + "  " * 40
            + "v: x\n",
        ),
        "",
        "k0",
        "nested deeper than 12 levels",
    ),
    Case(
        "python-object-apply",
        HOSTILE,
        writes(
            HOSTILE,
            "kind: record\nid: hostile\ntitle: !!python/object/apply:os.system ['touch PWNED']\n",
        ),
        "",
        "",
        "YAML tags (tag:yaml.org,2002:python/object/apply:os.system) are not allowed",
    ),
    Case(
        "python-name-tag",
        HOSTILE,
        writes(HOSTILE, "kind: record\nid: hostile\ntitle: !!python/name:os.system ''\n"),
        "",
        "",
        "YAML tags (tag:yaml.org,2002:python/name:os.system) are not allowed",
    ),
    Case(
        "local-tag",
        AGENT_FILE,
        writes(AGENT_FILE, "kind: agent\nid: claude\nlabel: !shell ls\n"),
        "",
        "",
        "YAML tags (!shell) are not allowed",
    ),
    Case(
        "binary-tag",
        AGENT_FILE,
        writes(AGENT_FILE, "kind: agent\nid: claude\nlabel: !!binary aGVsbG8=\n"),
        "",
        "",
        "YAML tags (tag:yaml.org,2002:binary) are not allowed",
    ),
    # wrong types and keys
    Case(
        "reviews-as-text",
        SEED_RECORD,
        changing(SEED_RECORD, setter("reviews", value="claude")),
        RECORD_LABEL,
        "reviews",
        "expected a list",
    ),
    Case(
        "locator-as-list",
        SEED_RECORD,
        changing(SEED_RECORD, setter("locator", value=["a", "b"])),
        RECORD_LABEL,
        "locator",
        "expected a mapping of keys to values, got a list",
    ),
    Case(
        "id-as-mapping",
        AGENT_FILE,
        writes(AGENT_FILE, "kind: agent\nid: {name: claude}\nagent_type: software\nlabel: c\n"),
        "agent",
        "id",
        "missing 'id'",
    ),
    Case(
        "unknown-top-level-key",
        SEED_RECORD,
        writes(SEED_RECORD, appending("colour: red\n")),
        RECORD_LABEL,
        "colour",
        "unknown key",
    ),
    Case(
        "unknown-nested-key",
        SEED_SOURCE,
        writes(SEED_SOURCE, replacing("  page_count:", "  page_cuont:")),
        SOURCE_LABEL,
        "artifact.page_cuont",
        "unknown key (did you mean 'page_count'?)",
    ),
    # invalid IRIs and URLs
    Case(
        "id-path-traversal",
        AGENT_FILE,
        writes(AGENT_FILE, "kind: agent\nid: ../../etc/passwd\nagent_type: software\nlabel: x\n"),
        "agent ../../etc/passwd",
        "id",
        "not a valid id",
    ),
    Case(
        "id-breaks-an-iri",
        AGENT_FILE,
        writes(AGENT_FILE, 'kind: agent\nid: "a> <b"\nagent_type: software\nlabel: x\n'),
        "agent a> <b",
        "id",
        "not a valid id",
    ),
    Case(
        "url-javascript",
        SEED_SOURCE,
        writes(
            SEED_SOURCE,
            replacing("https://openreview.net/pdf?id=NUleWh1GFx", "javascript:alert(1)"),
        ),
        SOURCE_LABEL,
        "artifact.retrieval_url",
        "not an http(s) URL ('javascript:alert(1)')",
    ),
    Case(
        "url-with-space",
        SEED_SOURCE,
        writes(
            SEED_SOURCE,
            replacing("https://openreview.net/pdf?id=NUleWh1GFx", "https://openreview net/pdf"),
        ),
        SOURCE_LABEL,
        "artifact.retrieval_url",
        "not an http(s) URL",
    ),
    Case(
        "url-with-angle-brackets",
        SEED_SOURCE,
        writes(
            SEED_SOURCE,
            replacing(
                "https://openreview.net/pdf?id=NUleWh1GFx", "https://openreview.net/<script>"
            ),
        ),
        SOURCE_LABEL,
        "artifact.retrieval_url",
        "not an http(s) URL",
    ),
    Case(
        "url-without-host",
        SEED_SOURCE,
        writes(SEED_SOURCE, replacing("https://openreview.net/pdf?id=NUleWh1GFx", "https:///pdf")),
        SOURCE_LABEL,
        "artifact.retrieval_url",
        "not an http(s) URL",
    ),
    # dates, hashes, numbers, vocabulary
    Case(
        "date-february-30-with-zone",
        SEED_RECORD,
        writes(SEED_RECORD, replacing('"2026-10-15T22:00:00Z"', '"2026-02-30T22:00:00Z"')),
        RECORD_LABEL,
        "reviews[0].reviewed_at",
        "not a date-time with time zone",
    ),
    Case(
        "date-hour-25",
        SEED_RECORD,
        writes(SEED_RECORD, replacing('"2026-10-15T22:00:00Z"', '"2026-10-15T25:00:00Z"')),
        RECORD_LABEL,
        "reviews[0].reviewed_at",
        "not a date-time with time zone",
    ),
    Case(
        "date-zone-out-of-range",
        SEED_RECORD,
        writes(SEED_RECORD, replacing('"2026-10-15T22:00:00Z"', '"2026-10-15T22:00:00+99:00"')),
        RECORD_LABEL,
        "reviews[0].reviewed_at",
        "not a date-time with time zone",
    ),
    Case(
        "date-only-no-time",
        SEED_RECORD,
        writes(SEED_RECORD, replacing('"2026-10-15T22:00:00Z"', '"2026-10-15"')),
        RECORD_LABEL,
        "reviews[0].reviewed_at",
        "not a date-time with time zone",
    ),
    Case(
        "hash-uppercase",
        SEED_SOURCE,
        writes(SEED_SOURCE, replacing("sha256: 4bc2", "sha256: 4BC2")),
        SOURCE_LABEL,
        "artifact.sha256",
        "not a SHA-256",
    ),
    Case(
        "hash-65-digits",
        SEED_SOURCE,
        writes(SEED_SOURCE, replacing("sha256: 4bc2", "sha256: 04bc2")),
        SOURCE_LABEL,
        "artifact.sha256",
        "not a SHA-256",
    ),
    Case(
        "numeric-infinite-exponent",
        SEED_RECORD,
        writes(SEED_RECORD, replacing('numeric_value: "11.49"', 'numeric_value: "1e999999999"')),
        RECORD_LABEL,
        "numeric_value",
        "not a decimal number",
    ),
    Case(
        "numeric-nan",
        SEED_RECORD,
        writes(SEED_RECORD, replacing('numeric_value: "11.49"', 'numeric_value: "NaN"')),
        RECORD_LABEL,
        "numeric_value",
        "not a decimal number",
    ),
    Case(
        "numeric-five-thousand-digits",
        SEED_RECORD,
        writes(SEED_RECORD, replacing('numeric_value: "11.49"', f'numeric_value: "{"9" * 5000}"')),
        RECORD_LABEL,
        "numeric_value",
        "not a decimal number (at most 20 digits",
    ),
    Case(
        "numeric-rounded-differently",
        SEED_RECORD,
        writes(SEED_RECORD, replacing('numeric_value: "11.49"', 'numeric_value: "11.5"')),
        RECORD_LABEL,
        "numeric_value",
        "does not agree with the printed value '11.49'",
    ),
    Case(
        "page-huge",
        SEED_RECORD,
        writes(SEED_RECORD, replacing('page: "6"', 'page: "99999999999999999999999999"')),
        RECORD_LABEL,
        "locator.page",
        "not a page number",
    ),
    Case(
        "method-wrong-case",
        SEED_RECORD,
        writes(SEED_RECORD, replacing("      - pdf-text-parse", "      - PDF-Text-Parse")),
        RECORD_LABEL,
        "reviews[0].methods[1]",
        "not a review method",
    ),
    Case(
        "unit-iri-instead-of-name",
        SEED_RECORD,
        writes(
            SEED_RECORD, replacing("unit: gigabyte", "unit: http://qudt.org/vocab/unit/GigaBYTE")
        ),
        RECORD_LABEL,
        "unit",
        "not a known unit",
    ),
    # references across files
    Case(
        "duplicate-agent-id",
        AGENT_FILE,
        duplicate_of(AGENT_FILE, "agents/claude-again.yaml"),
        "agent claude",
        "id",
        "the id is already used by data/agents/claude-again.yaml",
    ),
    Case(
        "duplicate-record-id",
        SEED_RECORD,
        duplicate_of(SEED_RECORD, "records/copy.yaml"),
        RECORD_LABEL,
        "id",
        "the id is already used by data/records/copy.yaml",
    ),
    Case(
        "record-of-missing-source",
        SEED_RECORD,
        writes(
            SEED_RECORD,
            replacing(
                "source: saadat-fellay-2026-genomic-lm-efficiency\nevaluation",
                "source: nowhere\nevaluation",
            ),
        ),
        RECORD_LABEL,
        "source",
        "refers to a source that no source file defines ('nowhere')",
    ),
    Case(
        "run-by-missing-agent",
        RUN,
        writes(RUN, replacing("agent: claimgraph-runner", "agent: ghost")),
        "run nt-peak-memory-20261130t085235z-3ca60460",
        "agent",
        "refers to an agent that no agent file defines ('ghost')",
    ),
]

CASES = _variant_cases() + NEW_CASES
TIMES: dict[str, float] = {}


def test_enough_cases() -> None:
    assert len(CASES) >= 50
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory, request):
    """A store loaded from data/, and its canonical dump (what no case may change)."""
    root = tmp_path_factory.mktemp("hostile")
    shutil.copytree(DATA, root / "data", ignore=WITHOUT_IMPORT)
    store = root / "store"
    with open_test_store(store) as writer:
        load_paths(writer, [root / "data"], BASE)
    with open_test_store(store, read_only=True) as reader:
        before = canonical_nquads(reader.quads())
    yield store, before
    if TIMES:
        slowest = max(TIMES, key=TIMES.get)
        plugins = request.config.pluginmanager
        reporter, capture = (
            plugins.get_plugin("terminalreporter"),
            plugins.get_plugin("capturemanager"),
        )
        if reporter is not None and capture is not None:
            with capture.global_and_fixture_disabled():  # past the output capture
                reporter.write_line(
                    f"\nhostile input: {len(TIMES)} runs of kg validate / "
                    f"kg load, slowest {TIMES[slowest]:.2f} s ({slowest})"
                )


def kg(cwd: Path, store: Path, *args: str) -> tuple[Result, float]:
    """The ``kg`` command in this process, run in ``cwd`` (so messages name data/...): the
    command's one entry point, errors to exit codes in one place, as a shell runs it,
    without an interpreter's start per call (two calls a case, over a hundred cases)."""
    started = time.perf_counter()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, ["--store", str(store), "--data", "data", *args])
    finally:
        os.chdir(here)
    return result, time.perf_counter() - started


def matching_line(stderr: str, case: Case) -> str | None:
    prefix = f"data/{case.relative}: "
    for line in stderr.splitlines():
        if not line.startswith(prefix):
            continue
        rest = line[len(prefix) :]
        if case.label:
            if not rest.startswith(case.label + ": "):
                continue
            rest = rest[len(case.label) + 2 :]
        if case.field:  # the field, or a place inside it (note[0][0])
            written, _, after = rest.partition(": ")
            if written != case.field and not written.startswith(
                (case.field + ".", case.field + "[")
            ):
                continue
            rest = after
        if case.message in rest:
            return line
    return None


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_file(case: Case, loaded, tmp_path: Path) -> None:
    store, before = loaded
    version = os.readlink(store / "live")
    entries = sorted(p.name for p in store.iterdir())
    shutil.copytree(DATA, tmp_path / "data", ignore=WITHOUT_IMPORT)
    try:
        case.make(tmp_path / "data")
        for command in case.commands:
            result, seconds = kg(tmp_path, store, command, "data")
            TIMES[f"{case.id} {command}"] = seconds
            assert result.exit_code == 1, (command, result.exit_code, result.stderr[-2000:])
            # an exception the command does not turn into a message is a traceback in a shell
            assert isinstance(result.exception, SystemExit), repr(result.exception)
            assert "Traceback" not in result.stderr, result.stderr[-2000:]
            assert result.stdout == ""
            problems = [line for line in result.stderr.splitlines() if not line.startswith("kg:")]
            assert matching_line(result.stderr, case), (command, result.stderr[-2000:])
            # One clear message, and at most a few direct consequences (the review that
            # names the hash the source no longer has, the runs that quote the record's
            # value), never a cascade over every file that refers to the broken one.
            assert len(problems) <= 4, problems
        assert not (tmp_path / "PWNED").exists() and not (tmp_path / "data" / "PWNED").exists()
    finally:
        shutil.rmtree(tmp_path / "data", ignore_errors=True)  # the 50 MB file goes at once
    assert os.readlink(store / "live") == version
    assert sorted(p.name for p in store.iterdir()) == entries
    with open_test_store(store, read_only=True) as reader:
        assert canonical_nquads(reader.quads()) == before
