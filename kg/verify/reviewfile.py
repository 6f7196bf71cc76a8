"""A verification as data files: a ``kind: review`` file, and the verifier's agent file.

The keys are those of docs/records.md; every scalar is written as a string, because data
files are read back with no implicit typing. Nothing here is typed by hand: the checks,
the file's hash and the software versions come from the run itself.
"""

from __future__ import annotations

import hashlib
import platform
from datetime import datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from .. import __version__
from ..model.yamltext import dump_yaml
from .checks import PASSED, Check, Outcome
from .jsonchecks import JsonOutcome

#: The default agent: this version of claimgraph's verifier (a new version is a new agent).
VERIFIER = f"claimgraph-verify-{__version__}"
METHOD_NOTE = (
    "kg verify: the SHA-256 of the file was computed and compared with the hash the source "
    "pins for its artifact; on the pinned file, pypdf extracted the text of the page the "
    "locator names (and of every page when the quote is not on it), normalized it (Unicode "
    "NFKC, ligatures, soft hyphens, words hyphenated across line ends, runs of white space, "
    "line breaks, arrows) and looked for the quoted sentence, and for the printed value "
    "inside the quote only."
)
JSON_METHOD_NOTE = (
    "kg verify: the SHA-256 of the kept JSON file was computed and compared with the hash of "
    "the bytes the records were made from; in the file, parsed with its numbers as written, "
    "each record's JSON Pointer (RFC 6901) was resolved, and the number found there was "
    "compared with the record's printed value, character for character."
)
_OUTCOME_WORDS = {"failed": "failed", "not-checked": "could not be checked"}


def stamp(moment: datetime) -> str:
    """A UTC date-time as data files write it: ``2026-11-30T09:00:00Z``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def review_id(record: str, started: datetime) -> str:
    """``<record>-verify-<time>``, shortened with a hash where ids would grow too long."""
    suffix = f"-verify-{started:%Y%m%dt%H%M%Sz}"
    if len(record) + len(suffix) > 200:
        digest = hashlib.sha256(record.encode()).hexdigest()[:8]
        record = f"{record[: 200 - len(suffix) - 9]}-{digest}"
    return record + suffix


def software() -> list[dict[str, str]]:
    """The software that made the checks, with the versions installed here."""
    packages = [{"name": "claimgraph", "version": __version__}]
    for name in ("pypdf", "cryptography"):
        try:
            packages.append({"name": name, "version": metadata.version(name)})
        except metadata.PackageNotFoundError:
            continue  # cryptography is only needed for AES-encrypted files
    packages.append({"name": "python", "version": platform.python_version()})
    return packages


def review_document(
    result: Outcome, ident: str, agent: str, started: datetime, ended: datetime
) -> dict[str, Any]:
    """The review file of one verification."""
    target, file = result.target, result.file
    doc: dict[str, Any] = {
        "kind": "review",
        "id": ident,
        "record": target.record,
        "source": target.source,
        "agent": agent,
        "role": "verifier",
        "started_at": stamp(started),
        "reviewed_at": stamp(ended),
    }
    if result.outcome == PASSED:
        doc["status"] = "source-checked"
    if target.sha256 and file.sha256 == target.sha256:
        # The review used the pinned artifact only when the file read is that file.
        doc["artifact_sha256"] = target.sha256
    doc["methods"] = list(dict.fromkeys(c.method for c in result.checks))
    doc["method_note"] = METHOD_NOTE
    doc["note"] = summary(result.checks)
    doc["file"] = {"name": file.path.name, "sha256": file.sha256, "bytes": str(file.size)}
    if file.page_count:
        doc["file"]["page_count"] = str(file.page_count)
    doc["software"] = software()
    doc["checks"] = [_check(c) for c in result.checks]
    return doc


def json_review_document(
    result: JsonOutcome, ident: str, agent: str, started: datetime, ended: datetime
) -> dict[str, Any]:
    """The review file of one kept JSON file checked against its records."""
    file = result.file
    pinned = result.targets[0].sha256
    doc: dict[str, Any] = {
        "kind": "review",
        "id": ident,
        "records": [t.record for t in result.targets],
        "source": result.source,
        "agent": agent,
        "role": "verifier",
        "started_at": stamp(started),
        "reviewed_at": stamp(ended),
    }
    if result.outcome == PASSED:
        doc["status"] = "source-checked"
    if file.sha256 == pinned:
        doc["artifact_sha256"] = pinned
    doc["methods"] = list(dict.fromkeys(c.method for c in result.checks))
    doc["method_note"] = JSON_METHOD_NOTE
    doc["note"] = summary(result.checks)
    doc["file"] = {"name": file.path.name, "sha256": file.sha256, "bytes": str(file.size)}
    doc["software"] = [
        {"name": "claimgraph", "version": __version__},
        {"name": "python", "version": platform.python_version()},
    ]
    doc["checks"] = [_check(c) for c in result.checks]
    return doc


def summary(checks: list[Check]) -> str:
    """ "All 4 checks passed." or "2 of 4 checks passed; quote check failed; ..."."""
    passed = sum(c.outcome == PASSED for c in checks)
    if passed == len(checks):
        return f"All {len(checks)} checks passed."
    others = "; ".join(
        f"{c.check.replace('-', ' ')}{' of ' + c.record if c.record else ''} "
        f"{_OUTCOME_WORDS[c.outcome]}"
        for c in checks
        if c.outcome != PASSED
    )
    return f"{passed} of {len(checks)} checks passed; {others}."


def _check(check: Check) -> dict[str, str]:
    doc = {
        "check": check.check,
        "method": check.method,
        "outcome": check.outcome,
        "detail": check.detail,
    }
    for key in ("expected", "found"):
        if getattr(check, key):
            doc[key] = getattr(check, key)
    if check.page is not None:
        doc["page"] = str(check.page)
    if check.found_on_page is not None:
        doc["found_on_page"] = str(check.found_on_page)
    if check.record:
        doc["record"] = check.record
    return doc


def agent_document(ident: str = VERIFIER) -> dict[str, str]:
    """The agent file of claimgraph's verifier: real provenance of the tool itself."""
    return {
        "kind": "agent",
        "id": ident,
        "agent_type": "software",
        "label": f"claimgraph kg verify {__version__}",
        "version": __version__,
        "note": (
            "claimgraph's own verifier (kg verify): it computes a file's SHA-256 and "
            "looks for a record's quote and value in the text pypdf extracts from the "
            "PDF. Automated checks only; no human review is claimed. Its reviews are "
            "claimgraph's, not the source registry's."
        ),
    }


def write_new(path: Path, doc: dict[str, Any]) -> Path:
    """Write ``doc`` as YAML to ``path``, or beside it (``-2``, ``-3``, ...) when that exists
    (the id follows the file name)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    stem, n = path.stem, 1
    while True:
        try:
            with path.open("x", encoding="utf-8") as out:
                dump_yaml(doc, out)
            return path
        except FileExistsError:
            n += 1
            path = path.with_name(f"{stem}-{n}{path.suffix}")
            doc = {**doc, "id": f"{stem}-{n}"}
