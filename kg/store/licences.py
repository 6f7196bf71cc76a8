"""The registry's parts and the licence each states, read from a store, and their notices
written beside a dump or a release (:mod:`kg.model.licences` says which part has which).

What the canned query ``record-licences`` counts (the records of each part, with its
licence and notice file), with the registry's own part taking the operator's setting:
VoID, the dumps' manifest, a release's manifest and ``kg licences`` all read it here.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ..model.licences import OWN, QUOTATIONS, Licence, licence
from .base import GraphStore, solutions
from .queries import canned_query

#: How a notice file beside a dump or a release is named: this, then the import's id.
NOTICE_PREFIX = "LICENSE-"


@dataclass(frozen=True)
class Part:
    """One part of the registry: the registry's own statements, or what one import brought."""

    #: ``claimgraph``, or the import's id
    name: str
    licence: Licence
    #: the licence's notice text, as a path under the data folder ("" when there is none)
    notice: str
    #: how many records it holds
    records: int

    @property
    def imported(self) -> bool:
        """Whether an import brought it (else it is the registry's own)."""
        return self.name != OWN

    @property
    def title(self) -> str:
        """Its name for people: ``claimgraph: import every-eval-ever``."""
        named = f"import {self.name}" if self.imported else "the registry's own statements"
        return f"claimgraph: {named}"

    @property
    def covers(self) -> str:
        """What the part holds, in words."""
        if self.imported:
            return (
                f"what import {self.name} brought: its kept upstream files and the "
                f"{self.records} records, evaluations and values read from them"
            )
        return (
            f"the registry's own statements: the {self.records} records people transcribe, "
            "the sources, agents, reviews, runs and standing, and the ids and mapping of "
            "every record"
        )

    @property
    def notice_name(self) -> str:
        """The notice's file name beside a dump or a release ("" when there is none)."""
        return f"{NOTICE_PREFIX}{self.name}" if self.notice else ""


def parts(store: GraphStore, operator: str) -> list[Part]:
    """The parts the store holds, the registry's own first (with the operator's licence,
    ``operator``: an IRI or "", even when it holds no record)."""
    counted = []
    for row in solutions(store.query(canned_query("record-licences").text)):
        iri, notice = row["licence"], row["notice"]
        counted.append(
            (
                row["part"].value,
                iri.value if isinstance(iri, ox.NamedNode) else "",
                notice.value if notice is not None else "",
                int(row["records"].value),
            )
        )
    return counted_parts(counted, operator)


def counted_parts(
    counted: Iterable[tuple[str, str | None, str | None, int]], operator: str
) -> list[Part]:
    """The parts of (name, licence IRI, notice, records) counts, the registry's own first
    (named :data:`OWN`, or "": the operator's licence, even when it holds no record):
    what :func:`parts` reads from the store and the index from its rows."""
    found = [Part(OWN, licence(operator), "", 0)]
    for name, iri, notice, records in counted:
        if name in (OWN, ""):
            found[0] = Part(OWN, licence(operator), "", found[0].records + records)
        else:
            found.append(Part(name, licence(iri or ""), notice or "", records))
    return found


def described(found: list[Part]) -> list[dict[str, Any]]:
    """The parts as a manifest lists them (JSON), and the quotations' rights statement."""
    listed: list[dict[str, Any]] = [
        {
            "part": part.name,
            "covers": part.covers,
            "records": part.records,
            "licence": part.licence.iri or None,
            "licence_name": part.licence.label,
            **({"notice": part.notice_name} if part.notice_name else {}),
        }
        for part in found
    ]
    listed.append({"part": "quotations", "covers": "quoted sentences", "rights": QUOTATIONS})
    return listed


def write_notices(found: list[Part], data: Path, out_dir: Path) -> dict[str, str]:
    """Copy each part's notice text from the data folder ``data`` into ``out_dir`` (as
    :attr:`Part.notice_name`): name -> SHA-256. A notice the data folder lacks is left out
    (a store loaded elsewhere); the manifest still names the licence."""
    written = {}
    for part in found:
        source = data / part.notice if part.notice else None
        if source is None or not source.is_file():
            continue
        text = source.read_bytes()
        target = out_dir / part.notice_name
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        temporary.write_bytes(text)
        os.replace(temporary, target)
        written[part.notice_name] = hashlib.sha256(text).hexdigest()
    return written


def licensing(licences: tuple[list[Part], Path], out_dir: Path) -> dict[str, Any]:
    """The notices of ``licences`` (the parts, the data folder) written into ``out_dir``,
    and what a manifest says of them: ``licences`` (:func:`described`) and ``notices``
    (each notice file's SHA-256)."""
    found, data = licences
    return {"licences": described(found), "notices": write_notices(found, data, out_dir)}
