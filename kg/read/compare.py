"""Records side by side: the same fields of each on one line, the lines where they differ
marked. Each record is read as its own page reads it (its closure, a :class:`RecordView`),
so a comparison shows what the record pages show."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

import pyoxigraph as ox

from ..rdf.facts import Facts
from ..registry import Registry
from ..store.records import record_closure
from .closure import Link
from .record import RecordView


@dataclass
class Line:
    """One field of every compared record."""

    label: str
    values: list[str]
    #: the section of the comparison it belongs to (value, measurement, provenance)
    group: str
    #: where each value links ("" for none): its record, source, file, model, benchmark
    hrefs: list[str] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        return len(set(self.values)) > 1


#: Fields that name what was measured or said, never what tells two submissions apart.
NOT_TELLING = {"Value as printed", "Reproduction runs", "Locator", "Check against the source"}


@dataclass
class Comparison:
    views: list[RecordView]
    lines: list[Line]

    @property
    def differing(self) -> int:
        return sum(line.differs for line in self.lines)

    @property
    def headings(self) -> list[tuple[str, str]]:
        """Each record's column heading: its title, and where another compared record has
        the same title, the first two fields that differ between them ("Evaluation: ...")."""
        titles = [v.title for v in self.views]
        telling = [line for line in self.lines if line.differs and line.label not in NOT_TELLING]
        out = []
        for place, title in enumerate(titles):
            if titles.count(title) == 1:
                out.append((title, ""))
                continue
            shared = [i for i, t in enumerate(titles) if t == title]
            apart = [line for line in telling if len({line.values[i] for i in shared}) > 1][:2]
            out.append(
                (
                    title,
                    " · ".join(f"{line.label}: {line.values[place] or 'none'}" for line in apart),
                )
            )
        return out


def _imported(attribute: str) -> Callable[[RecordView], Link | str]:
    def read(view: RecordView) -> Link | str:
        imported = view.imported
        if imported is None:
            return ""
        value = getattr(imported, attribute)
        return value if isinstance(value, Link) else str(value)

    return read


def _cited(attribute: str) -> Callable[[RecordView], str]:
    def read(view: RecordView) -> str:
        cited = getattr(view, attribute)
        return cited["text"] if cited else ""

    return read


def _check(view: RecordView) -> str:
    review = view.verification
    if review is None:
        return "not checked by machine"
    outcomes = sorted({check.outcome for check in review.checks})
    return ", ".join(outcomes)


def _record_href(view: RecordView) -> str:
    return f"/record/{quote(view.id, safe='')}"


def _source(view: RecordView) -> Link | str:
    source = view.quoted_from
    return Link(source.long, source.href) if source else ""


#: (group, label, how a record view gives the field's text): the fields compared, in order.
FIELDS: tuple[tuple[str, str, Callable[[RecordView], Link | str]], ...] = (
    ("value", "Metric", lambda v: v.headline_label),
    ("value", "Value as printed", lambda v: Link(v.meant or v.printed, _record_href(v))),
    ("value", "Unit", lambda v: v.unit.text),
    ("value", "Direction", lambda v: v.direction),
    ("measurement", "Benchmark", _imported("benchmark")),
    ("measurement", "Model", _imported("model")),
    ("measurement", "Model configuration", _cited("tested")),
    ("measurement", "Data set", _cited("dataset")),
    ("measurement", "Protocol", _cited("protocol")),
    ("measurement", "Hardware as reported", lambda v: v.hardware),
    ("provenance", "Source", _source),
    ("provenance", "Evaluation", lambda v: v.evaluation or ""),
    ("provenance", "Locator", lambda v: v.locator),
    ("provenance", "Evidence kind", lambda v: v.evidence_kind),
    ("provenance", "Review status", lambda v: v.status),
    ("provenance", "Check against the source", _check),
    ("provenance", "Reproduction runs", lambda v: str(len(v.runs))),
)


def compare_records(registry: Registry, ids: Sequence[str], terms) -> Comparison:
    """The records ``ids`` side by side.

    :raises NotFoundError: for an id the store holds no record of.
    """
    views = []
    for ident in ids:
        quads = record_closure(registry.store, registry.base, ident)
        views.append(
            RecordView(
                Facts(quads, terms), ox.NamedNode(registry.iri("record", ident)), registry.base
            )
        )
    lines = []
    for group, label, read in FIELDS:
        found = [read(v) or "" for v in views]
        lines.append(
            Line(
                label,
                [f.text if isinstance(f, Link) else f for f in found],
                group,
                [f.href if isinstance(f, Link) else "" for f in found],
            )
        )
    # A field no compared record has is no line of the comparison.
    return Comparison(views, [line for line in lines if any(line.values)])
