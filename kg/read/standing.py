"""What a page shows of a claim's standing: the banner, the evidence as links, the changes.

The standing itself is the rule's (kg.model.standing), read by kg.store.standing; this
only turns it into links and words for the templates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model.standing import Standing
from .closure import Link, path_of

#: What a banner calls each standing.
LABELS = {
    "current": "Current",
    "corrected": "Corrected",
    "disputed": "Disputed",
    "superseded": "Superseded",
    "retracted": "Retracted",
    "withdrawn": "Withdrawn",
}


@dataclass
class ChangeView:
    at: str
    change: str
    reason: str
    agent: Link
    href: str
    evidence: list[Link] = field(default_factory=list)
    value: str | None = None
    superseded_by: Link | None = None
    notice: str | None = None


@dataclass
class StandingView:
    standing: str
    label: str
    reason: str
    since: str | None
    derived: bool
    is_current: bool
    evidence: list[Link]
    corrected_value: str | None
    superseded_by: Link | None
    runs: tuple[str, ...]
    changes: list[ChangeView]
    #: The retraction notice, when a retraction rules.
    notice: str | None = None

    @property
    def shows_banner(self) -> bool:
        """A banner for every standing but current, and for a claim a curator reinstated
        or corrected (the reader should know a curator ruled on it)."""
        return not self.is_current or bool(self.changes)


def standing_view(found: Standing, base: str, release: str | None = None) -> StandingView:
    """``found`` as links and words (a page of a release links within that release)."""

    def link(iri: str) -> Link:
        href = path_of(iri, base)
        if release and href.startswith("/"):
            href += f"?release={release}"
        return Link(iri.rsplit("/", 1)[-1] if iri.startswith(base) else iri, href)

    changes = [
        ChangeView(
            c.at,
            c.change,
            c.reason,
            link(c.agent),
            link(c.activity).href,
            [link(e) for e in c.evidence],
            c.value,
            link(c.superseded_by) if c.superseded_by else None,
            c.notice,
        )
        for c in found.changes
    ]
    return StandingView(
        found.standing,
        LABELS[found.standing],
        found.reason,
        found.since,
        found.derived,
        found.is_current,
        [link(e) for e in found.evidence],
        found.corrected_value,
        link(found.superseded_by) if found.superseded_by else None,
        found.runs,
        changes,
        found.change.notice if found.change is not None else None,
    )
