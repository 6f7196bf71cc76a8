"""The checks of a machine source check of a kept JSON file against its records.

- ``hash-check`` (source-hash-verification): the file's SHA-256 against the hash the
  records' artifact pins (the bytes they were made from);
- ``pointer-check`` (json-pointer-resolution), for each record: its JSON Pointer resolves
  in the file to a number;
- ``json-value-check`` (json-pointer-resolution), for each record: that number is written
  exactly as the record's printed value (``0.3303`` is not ``0.33030``); what a value is,
  and how it is written, is the file's format's to say (``value_as_written``).

The pointer and value checks are made on any file that parses (a copy of the file from
elsewhere may be checked), but a file with another hash is reported as such: the pinned
artifact is another file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from ..model.upstream.format import UpstreamFormat
from ..model.upstream.jsondoc import JsonSyntaxError, loads, resolve
from .checks import FAILED, HASH, NOT_CHECKED, PASSED, Check, FileInfo, worst_outcome

POINTER, JSON_VALUE = "pointer-check", "json-value-check"


@dataclass(frozen=True)
class JsonTarget:
    """What an imported record says can be checked in its kept file."""

    record: str
    evaluation: str
    source: str
    printed: str
    pointer: str
    sha256: str  # the hash of the bytes the record was made from
    kept: str  # the kept file, relative to the data directory
    upstream_path: str  # its path in the origin repository
    format: str  # the upstream format its import read (kg.model.upstream.formats)


@dataclass
class JsonOutcome:
    """A file checked against its records."""

    evaluation: str
    source: str
    file: FileInfo
    targets: list[JsonTarget]
    checks: list[Check] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        return worst_outcome(c.outcome for c in self.checks)


def check_json_file(
    name: str, raw: bytes, targets: list[JsonTarget], fmt: UpstreamFormat
) -> JsonOutcome:
    """Check a file (named ``name``, holding ``raw``, of the format ``fmt``) against
    ``targets``: the records of one evaluation."""
    file = FileInfo(Path(name), hashlib.sha256(raw).hexdigest(), len(raw))
    first = targets[0]
    out = JsonOutcome(first.evaluation, first.source, file, targets)
    same = file.sha256 == first.sha256
    out.checks.append(
        Check(
            HASH,
            PASSED if same else FAILED,
            "the SHA-256 of the file is the one the records were made from"
            if same
            else "the file is not the one the records were made from (another SHA-256)",
            expected=first.sha256,
            found=file.sha256,
        )
    )
    try:
        doc = loads(raw)
    except JsonSyntaxError as exc:
        for target in targets:
            for check in (POINTER, JSON_VALUE):
                out.checks.append(
                    Check(
                        check,
                        NOT_CHECKED,
                        f"the file cannot be read as JSON: {exc}",
                        expected=target.pointer if check == POINTER else target.printed,
                        record=target.record,
                    )
                )
        return out
    for target in targets:
        out.checks += _record_checks(doc, target, fmt)
    return out


def _record_checks(doc: object, target: JsonTarget, fmt: UpstreamFormat) -> list[Check]:
    try:
        value = resolve(doc, target.pointer)
    except KeyError as exc:
        return [
            Check(
                POINTER,
                FAILED,
                f"the pointer does not resolve ({exc.args[0]})",
                expected=target.pointer,
                record=target.record,
            ),
            Check(
                JSON_VALUE,
                NOT_CHECKED,
                "nothing to compare: the pointer does not resolve",
                expected=target.printed,
                record=target.record,
            ),
        ]
    written = fmt.value_as_written(value)
    if written is None:
        return [
            Check(
                POINTER,
                FAILED,
                "the pointer resolves to something that is not a number",
                expected=target.pointer,
                found=str(value)[:80],
                record=target.record,
            ),
            Check(
                JSON_VALUE,
                NOT_CHECKED,
                "nothing to compare: no number at the pointer",
                expected=target.printed,
                record=target.record,
            ),
        ]
    same = written == target.printed
    return [
        Check(
            POINTER,
            PASSED,
            "the pointer resolves to a number",
            expected=target.pointer,
            found=written,
            record=target.record,
        ),
        Check(
            JSON_VALUE,
            PASSED if same else FAILED,
            "the number is written exactly as the printed value"
            if same
            else "the number is not written as the printed value",
            expected=target.printed,
            found=written,
            record=target.record,
        ),
    ]
