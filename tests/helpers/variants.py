"""Data files broken on purpose: each kind of violation, on a copy of the bundled data,
with the field its message must name and words the message must hold."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from helpers import BASE, OTHER_ID, SEED_ID, SEED_RECORD, SEED_SOURCE
from kg.model.datafiles import parse_yaml

AGENT = "agents/claude.yaml"
RUN = "runs/nt-peak-memory-20261130t085235z-3ca60460.yaml"  # the fp32 run: inconsistent
EVALUATION = "evaluations/nt-2-5b-training-peak-memory-stage-deepspeed.yaml"
OTHER_RECORD = f"records/{OTHER_ID}.yaml"  # claimgraph's transcription of 33.88 GB
Doc = dict[str, Any]


def setter(*path: str | int, value: Any) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        target: Any = doc
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return change


def deleter(*path: str | int) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        target: Any = doc
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]

    return change


def renamer(old: str, new: str, *path: str | int) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        target: Any = doc
        for step in path:
            target = target[step]
        target[new] = target.pop(old)

    return change


def verdict_on(record: str, **values: str) -> Callable[[Doc], None]:
    """A verdict of the run's own (its only one copied) on ``record``, added as ``verdicts``
    (the form a recipe of several claims writes), with ``values`` changed."""

    def change(doc: Doc) -> None:
        doc["verdicts"] = [{"record": record, **doc["verdict"], **values}]

    return change


def break_file(data: Path, relative: str, change: Callable[[Doc], None]) -> None:
    """Apply ``change`` to the data file ``relative`` under ``data``, and write it back."""
    path = data / relative
    doc = parse_yaml(path.read_text())
    change(doc)
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False))


# (test id, file changed, change, field named, words of the message)
VARIANTS = [
    (
        "impossible-date",
        SEED_RECORD,
        setter("reviews", 0, "reviewed_at", value="2026-13-45T22:00:00Z"),
        "reviews[0].reviewed_at",
        "not a date-time with time zone ('2026-13-45T22:00:00Z')",
    ),
    (
        "date-without-zone",
        SEED_RECORD,
        setter("reviews", 0, "reviewed_at", value="2026-10-15T22:00:00"),
        "reviews[0].reviewed_at",
        "not a date-time with time zone ('2026-10-15T22:00:00')",
    ),
    (
        "short-hash",
        SEED_SOURCE,
        setter("artifact", "sha256", value="4bc2452110f2"),
        "artifact.sha256",
        "not a SHA-256 (64 lowercase hexadecimal digits) ('4bc2452110f2')",
    ),
    (
        "non-hex-hash",
        SEED_SOURCE,
        setter("artifact", "sha256", value="z" * 64),
        "artifact.sha256",
        "not a SHA-256",
    ),
    (
        "numeric-disagrees",
        SEED_RECORD,
        setter("numeric_value", value="11.94"),
        "numeric_value",
        "11.94 does not agree with the printed value '11.49'",
    ),
    (
        "numeric-not-a-number",
        SEED_RECORD,
        setter("numeric_value", value="eleven"),
        "numeric_value",
        "not a decimal number (at most 20 digits before the point and 18 after) ('eleven')",
    ),
    ("missing-title", SEED_RECORD, deleter("title"), "title", "missing (required)"),
    (
        "missing-review-time",
        SEED_RECORD,
        deleter("reviews", 0, "reviewed_at"),
        "reviews[0].reviewed_at",
        "missing (required)",
    ),
    (
        "misspelt-key",
        SEED_RECORD,
        renamer("reviewed_at", "reviwed_at", "reviews", 0),
        "reviews[0].reviwed_at",
        "unknown key (did you mean 'reviewed_at'?)",
    ),
    (
        "unknown-review-method",
        SEED_RECORD,
        setter("reviews", 0, "methods", 1, value="telepathy"),
        "reviews[0].methods[1]",
        "not a review method (one of: source-hash-verification",
    ),
    (
        "unknown-direction",
        SEED_RECORD,
        setter("metric_direction", value="sideways"),
        "metric_direction",
        "not a metric direction (one of: lower, higher) ('sideways')",
    ),
    (
        "unknown-evidence-kind",
        SEED_RECORD,
        setter("evidence_kind", value="rumour"),
        "evidence_kind",
        "not an evidence kind",
    ),
    (
        "unknown-review-status",
        SEED_RECORD,
        setter("review_status", value="checked-ish"),
        "review_status",
        "not a review status",
    ),
    (
        "missing-source",
        SEED_RECORD,
        setter("source", value="no-such-source"),
        "source",
        "refers to a source that no source file defines ('no-such-source')",
    ),
    (
        "missing-agent",
        SEED_RECORD,
        setter("reviews", 0, "agent", value="nobody"),
        "reviews[0].agent",
        "refers to an agent that no agent file defines ('nobody')",
    ),
    (
        "missing-evaluation",
        SEED_RECORD,
        setter("evaluation", value="nothing"),
        "evaluation",
        "refers to an evaluation that no evaluation file defines ('nothing')",
    ),
    (
        "unknown-unit",
        SEED_RECORD,
        setter("unit", value="furlong"),
        "unit",
        "not a known unit (the names are in ontology/units.ttl) ('furlong')",
    ),
    (
        "page-not-a-number",
        SEED_RECORD,
        setter("locator", "page", value="six"),
        "locator.page",
        "not a page number (a whole number from 1) ('six')",
    ),
    (
        "zero-pages",
        SEED_SOURCE,
        setter("artifact", "page_count", value="0"),
        "artifact.page_count",
        "not a page count (a whole number from 1) ('0')",
    ),
    (
        "openreview-id-not-an-id",
        SEED_SOURCE,
        setter("openreview", value="https://openreview.net/forum?id=NUleWh1GFx"),
        "openreview",
        "not an arXiv id (2101.00001) or OpenReview id (NUleWh1GFx)",
    ),
    (
        "orcid-not-an-orcid",
        SEED_SOURCE,
        setter("authors", 0, "orcid", value="0000-0002-1825"),
        "authors[0].orcid",
        "not an ORCID iD (0000-0002-1825-0097) ('0000-0002-1825')",
    ),
    (
        "impossible-creation-date",
        SEED_SOURCE,
        setter("artifact", "pdf_creation_date", value="2026-02-30"),
        "artifact.pdf_creation_date",
        "not a date (YYYY-MM-DD) ('2026-02-30')",
    ),
    (
        "invalid-url",
        SEED_SOURCE,
        setter("artifact", "retrieval_url", value="openreview pdf NUleWh1GFx"),
        "artifact.retrieval_url",
        "not an http(s) URL ('openreview pdf NUleWh1GFx')",
    ),
    (
        "bad-release-id",
        SEED_RECORD,
        setter("upstream_releases", 0, value="2026-10-22-xyz"),
        "upstream_releases[0]",
        "not a release id (YYYY-MM-DD-<12 hex digits>) ('2026-10-22-xyz')",
    ),
    ("bad-id", SEED_RECORD, setter("id", value="Seed Record!"), "id", "not a valid id"),
    (
        "unknown-missing-reason",
        SEED_RECORD,
        setter("uncertainty", "missing", value="forgotten"),
        "uncertainty.missing",
        "not a reason a value can be missing for (one of: unreported",
    ),
    (
        "negative-coverage",
        SEED_RECORD,
        setter("coverage", "scored", value="-3"),
        "coverage.scored",
        "neither a whole number nor {missing: <reason>} ('-3')",
    ),
    (
        "list-for-a-value",
        SEED_RECORD,
        setter("title", value=["a", "b"]),
        "title",
        "expected a single value, got a list",
    ),
    ("empty-value", SEED_RECORD, setter("hardware", value=""), "hardware", "empty value"),
    (
        "review-hash-mismatch",
        SEED_RECORD,
        setter("reviews", 0, "artifact_sha256", value="0" * 64),
        "reviews[0].artifact_sha256",
        "matches no artifact of the source",
    ),
    (
        "unknown-agent-type",
        AGENT,
        setter("agent_type", value="robot"),
        "agent_type",
        "not an agent type (one of: software, person, organization) ('robot')",
    ),
    (
        "unknown-citation-type",
        SEED_RECORD,
        setter("evidence", 0, "citation", value="hearsay"),
        "evidence[0].citation",
        "not a citation type",
    ),
    (
        "unknown-missing-field",
        SEED_RECORD,
        setter("missing_metadata", 0, "field", value="colour"),
        "missing_metadata[0].field",
        "not a field of a record ('colour')",
    ),
    (
        "unknown-role",
        SEED_RECORD,
        setter("reviews", 0, "role", value="bystander"),
        "reviews[0].role",
        "not an agent role",
    ),
    (
        "vague-source-date",
        SEED_SOURCE,
        setter("date", value="spring 2026"),
        "date",
        "not a date (YYYY, YYYY-MM or YYYY-MM-DD) ('spring 2026')",
    ),
    ("missing-evaluation-title", EVALUATION, deleter("title"), "title", "missing (required)"),
    (
        "run-outcome-edited",
        RUN,
        setter("verdict", "outcome", value="consistent"),
        "verdict.outcome",
        "the outcome does not follow from the measured value",
    ),
    (
        "run-claim-edited",
        RUN,
        setter("verdict", "claimed", value="24.00"),
        "verdict.claimed",
        "the claimed value 24.00 is not the record's value (11.49)",
    ),
    (
        "run-measurement-edited",
        RUN,
        setter("verdict", "measured", value="11.60"),
        "verdict.measured",
        "the measured value 11.60 is not the run's measurement",
    ),
    (
        "run-unknown-status",
        RUN,
        setter("status", value="fine"),
        "status",
        "not a run status (one of: completed, failed, out-of-memory, skipped)",
    ),
    ("run-bad-log-hash", RUN, setter("log_sha256", value="abc"), "log_sha256", "not a SHA-256"),
    (
        "run-of-missing-record",
        RUN,
        setter("record", value="nothing"),
        "record",
        "refers to a record that no record file defines ('nothing')",
    ),
    (
        "mapping-for-a-list",
        SEED_RECORD,
        setter("reviews", 0, "methods", value={"a": "b"}),
        "reviews[0].methods",
        "expected a list, got a mapping",
    ),
    (
        "reading-without-note",
        OTHER_RECORD,
        deleter("evidence", 2, "note"),
        "evidence[2].basis",
        "a statement that is the transcriber's reading says how it was read",
    ),
    (
        "unknown-statement-basis",
        OTHER_RECORD,
        setter("evidence", 0, "basis", value="hunch"),
        "evidence[0].basis",
        "not a statement basis (one of: source-wording, transcriber-reading)",
    ),
    (
        "run-two-verdicts-on-one-record",
        RUN,
        verdict_on(SEED_ID),
        "verdict",
        f"has two verdicts on record {BASE}record/{SEED_ID}",
    ),
    (
        "run-verdict-on-missing-record",
        RUN,
        verdict_on("nothing"),
        "verdicts[0].record",
        "refers to a record that no record file defines ('nothing')",
    ),
    (
        "run-second-claim-edited",
        RUN,
        verdict_on(
            OTHER_ID,
            stage="checkpointing",
            claimed="30.00",
            measured="51.49",
            relative_difference="0.5198",
            outcome="inconsistent",
        ),
        "verdicts[0].claimed",
        "the claimed value 30.00 is not the record's value (33.88)",
    ),
    (
        "run-second-outcome-edited",
        RUN,
        verdict_on(
            OTHER_ID,
            stage="checkpointing",
            claimed="33.88",
            measured="51.49",
            relative_difference="0.5198",
            outcome="consistent",
        ),
        "verdicts[0].outcome",
        "the outcome does not follow from the measured value",
    ),
]
