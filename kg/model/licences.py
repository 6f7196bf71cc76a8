"""Which licence applies to which part of the registry, derived when read, never stored.

Three parts, three answers (docs/linked-data.md, "Licences"):

- what an import brought (its kept upstream files, and the records, evaluations and values
  read from them) is under the licence its import record states (``licence:``, an SPDX id,
  ``dcterms:license`` on the import's graph), whose notice text is kept beside the files;
- the registry's own statements (the records people transcribe, the sources, the reviews,
  the runs, the mapping and the ids) are under the operator's setting (``KG_LICENCE``), or
  under none stated when it is unset;
- quoted sentences are quotations from their sources, under the sources' own terms: no
  setting relicenses them (:data:`QUOTATIONS`).

A record's licence is read from its closure (its import's statement) and the setting, so
no record graph holds it and no record's hash depends on a setting.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox

from ..rdf.facts import Facts, Term
from .fields import field_value
from .mapping.imports import SPDX_LICENSES

#: What a part without a licence says instead (an operator who set no ``KG_LICENCE``).
NO_LICENCE = "no licence stated"
#: The rights statement of the quoted sentences (VoID's ``dcterms:rights``, the pages, the
#: dumps' manifest).
QUOTATIONS = (
    "Quoted sentences are quotations from their sources, under the sources' own terms; "
    "claimgraph quotes them and does not relicense them."
)
#: The name of the registry's own part.
OWN = "claimgraph"
#: Creative Commons' licences, named from their IRIs' paths.
_CC = "https://creativecommons.org/"


@dataclass(frozen=True)
class Licence:
    """A licence as a reader sees it: its IRI ("" when none is stated) and a short name."""

    iri: str
    label: str

    @property
    def stated(self) -> bool:
        """Whether a licence is stated at all."""
        return bool(self.iri)


def licence(iri: str) -> Licence:
    """The licence of ``iri`` ("" for none stated), named for people.

    >>> licence("http://spdx.org/licenses/MIT").label
    'MIT'
    >>> licence("https://creativecommons.org/publicdomain/zero/1.0/").label
    'CC0 1.0'
    >>> licence("https://creativecommons.org/licenses/by/4.0/").label
    'CC BY 4.0'
    >>> licence("").label
    'no licence stated'
    """
    if not iri:
        return Licence("", NO_LICENCE)
    if iri.startswith(SPDX_LICENSES):
        return Licence(iri, iri.removeprefix(SPDX_LICENSES).removesuffix(".html"))
    if iri.startswith(_CC):
        parts = iri.removeprefix(_CC).strip("/").split("/")
        if parts[:2] == ["publicdomain", "zero"]:
            return Licence(iri, f"CC0 {parts[2] if len(parts) > 2 else ''}".strip())
        if parts[0] == "licenses" and len(parts) > 1:
            version = parts[2] if len(parts) > 2 else ""
            return Licence(iri, f"CC {parts[1].upper()} {version}".strip())
    return Licence(iri, iri)


def record_licence(facts: Facts, record: Term, operator: str) -> Licence:
    """The licence that applies to ``record``: its import's, for a record an import
    brought; the operator's setting (``operator``, an IRI or ""), for the registry's own."""
    upstream = field_value(facts, record, "upstreamLicence")
    if field_value(facts, record, "importedBy") is not None:
        return licence(upstream.value if isinstance(upstream, ox.NamedNode) else "")
    return licence(operator)
