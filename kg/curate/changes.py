"""Changes of standing, written as data files and loaded: what ``kg retract``, ``withdraw``,
``supersede``, ``dispute``, ``correct`` and ``reinstate`` do.

Each change is one ``kind: standing`` file under ``data/standing/`` (docs/standing.md),
validated and loaded with the rest of the data directory; a change the shapes refuse is
removed again and the store is left as it was. Nothing a record says is edited.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..errors import NotFoundError, UsageError
from ..kinds import data_directory, iri_prefix, minted_iri
from ..model.mapping.context import is_web_url
from ..model.mapping.standing import EVIDENCE_KINDS
from ..model.standing import Standing, moment
from ..model.yamltext import dump_yaml
from ..rdf.namespaces import KG
from ..registry import Registry
from ..store.load import LoadReport, load_paths, store_types
from ..store.standing import records_of_source, standing

#: The changes a curator can make, as the ``change:`` of a standing file.
CHANGES = ("retracted", "withdrawn", "superseded", "disputed", "corrected", "reinstated")
#: The type each kind of evidence has, by the id's segment.
_EVIDENCE_TYPES = {
    "run": ("activity", KG.ReproductionRun),
    "review": ("activity", KG.Review),
    "record": ("record", KG.Claim),
    "source": ("source", KG.SourceDocument),
}


@dataclass
class Request:
    """One change of standing, as a curator asks for it on the command line."""

    change: str
    target: str
    reason: str
    agent: str
    evidence: list[str] = field(default_factory=list)
    at: datetime | None = None
    value: str | None = None
    superseded_by: str | None = None
    notice: str | None = None


@dataclass
class StandingChanged:
    """What a change did: the file written, the load, and the standing it gave each record."""

    path: Path
    loaded: LoadReport
    standings: dict[str, Standing]


def change_standing(registry: Registry, data: Path, request: Request) -> StandingChanged:
    """Load the data directory, write the file for ``request`` into ``data/standing/``,
    and load it.

    :raises NotFoundError: for an id that names no record (or, for a retraction, source).
    :raises UsageError: for an evidence item that is neither a node of the registry nor a
        web address, a time without a time zone, or a data directory that cannot be
        written.
    :raises InvalidDataError: when the shapes refuse the change (no reason, superseding
        itself, a cycle of supersessions, ...): the file is removed again and the store
        is unchanged.
    """
    if request.change not in CHANGES:
        raise UsageError(f"not a change of standing: {request.change!r}")
    if not data.is_dir():
        raise UsageError(f"{data}: no such data directory")
    at = request.at or datetime.now(UTC).replace(microsecond=0)
    if at.tzinfo is None:
        raise UsageError("--at needs a time zone (2026-12-02T10:00:00Z)")
    # The store holds what the data directory says before ids are looked up in it (files
    # that have not changed are skipped); an invalid file stops here, before any writing.
    load_paths(registry.store, [data], registry.base)
    document = _document(registry, request, at)
    path = data / data_directory("standing") / f"{document['id']}.yaml"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as out:
            dump_yaml(document, out)
    except FileExistsError:
        raise UsageError(f"{path} exists already (the same change at the same time)") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    try:
        report = load_paths(registry.store, [data], registry.base)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    records = [minted_iri(registry.base, "record", r) for r in document.get("records", [])]
    if "source" in document:
        records = records_of_source(
            registry.store, minted_iri(registry.base, "source", document["source"])
        )
    return StandingChanged(path, report, {r: standing(registry.store, r) for r in records})


def _document(registry: Registry, request: Request, at: datetime) -> dict:
    """The standing file's content, keys in the order docs/standing.md lists them."""
    target_kind = _kind_of(
        registry,
        request.target,
        ("record", "source") if request.change == "retracted" else ("record",),
    )
    stamp = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    digest = hashlib.sha256(
        "\n".join([request.change, request.target, stamp, request.agent]).encode()
    ).hexdigest()[:8]
    document: dict = {
        "kind": "standing",
        "id": f"{request.change}-{at.astimezone(UTC):%Y%m%dt%H%M%Sz}-{digest}",
        "change": request.change,
    }
    if target_kind == "source":
        document["source"] = request.target
    else:
        document["records"] = [request.target]
    if request.superseded_by is not None:
        _kind_of(registry, request.superseded_by, ("record",))
        document["superseded_by"] = request.superseded_by
    if request.value is not None:
        document["value"] = request.value
    document["agent"] = request.agent
    document["at"] = stamp
    document["reason"] = request.reason
    if request.notice is not None:
        document["notice"] = request.notice
    if request.evidence:
        document["evidence"] = [_evidence(registry, item) for item in request.evidence]
    return document


def _has_type(registry: Registry, segment: str, ident: str, cls) -> bool:
    iri = minted_iri(registry.base, segment, ident)
    return str(cls) in store_types(registry.store, {iri}, exclude=set()).get(iri, set())


def _kind_of(registry: Registry, ident: str, kinds: tuple[str, ...]) -> str:
    """Which of ``kinds`` (record, source) the store knows ``ident`` as.

    :raises NotFoundError: when it knows none.
    """
    for kind in kinds:
        segment, cls = _EVIDENCE_TYPES[kind]
        if _has_type(registry, segment, ident, cls):
            return kind
    raise NotFoundError(f"no {' or '.join(kinds)} with id {ident!r}")


def _evidence(registry: Registry, item: str) -> dict[str, str]:
    """``--evidence``: a web address, a registry IRI, or the id of a run, review, record or
    source; as the ``{kind: id}`` or ``{url: address}`` of a standing file."""
    ident = item
    for segment in ("activity", "record", "source"):
        prefix = iri_prefix(registry.base, segment)
        if item.startswith(prefix):
            ident = item.removeprefix(prefix)
            break
    else:
        if is_web_url(item):
            return {"url": item}
    for kind in EVIDENCE_KINDS:
        segment, cls = _EVIDENCE_TYPES[kind]
        if _has_type(registry, segment, ident, cls):
            return {kind: ident}
    raise UsageError(
        f"--evidence {item}: no run, review, record or source has that id, and "
        "it is not a web address (http or https)"
    )


def parse_time(text: str) -> datetime:
    """``--at``: an ISO 8601 date-time with a time zone.

    :raises UsageError: when it is not one.
    """
    try:
        value = moment(text)
    except ValueError:
        raise UsageError(f"--at {text}: not a date-time (2026-12-02T10:00:00Z)") from None
    if value.tzinfo is None:
        raise UsageError(f"--at {text}: give the time zone (2026-12-02T10:00:00Z)")
    return value
