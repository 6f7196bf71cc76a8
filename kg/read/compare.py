"""Records side by side: the same fields of each on one line, the lines where they differ
marked. Each record is read as its own page reads it (its closure, a :class:`RecordView`),
so a comparison shows what the record pages show."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pyoxigraph as ox

from ..rdf.facts import Facts
from ..registry import Registry
from ..store.records import record_closure
from .record import RecordView


@dataclass
class Line:
    """One field of every compared record."""

    label: str
    values: list[str]
    #: the section of the comparison it belongs to (value, measurement, provenance)
    group: str

    @property
    def differs(self) -> bool:
        return len(set(self.values)) > 1


@dataclass
class Comparison:
    views: list[RecordView]
    lines: list[Line]

    @property
    def differing(self) -> int:
        return sum(line.differs for line in self.lines)


def _imported(attribute: str) -> Callable[[RecordView], str]:
    def read(view: RecordView) -> str:
        imported = view.imported
        if imported is None:
            return ""
        value = getattr(imported, attribute)
        return value.text if hasattr(value, "text") else str(value)

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


#: (group, label, how a record view gives the field's text): the fields compared, in order.
FIELDS: tuple[tuple[str, str, Callable[[RecordView], str]], ...] = (
    ("value", "Metric", lambda v: v.headline_label),
    ("value", "Value as printed", lambda v: v.meant or v.printed),
    ("value", "Unit", lambda v: v.unit.text),
    ("value", "Direction", lambda v: v.direction),
    ("measurement", "Benchmark", _imported("benchmark")),
    ("measurement", "Model", _imported("model")),
    ("measurement", "Model configuration", _cited("tested")),
    ("measurement", "Data set", _cited("dataset")),
    ("measurement", "Protocol", _cited("protocol")),
    ("measurement", "Hardware as reported", lambda v: v.hardware),
    ("provenance", "Source", lambda v: v.quoted_from.long if v.quoted_from else ""),
    ("provenance", "Evaluation", lambda v: v.evaluation.text if v.evaluation else ""),
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
    lines = [Line(label, [read(v) or "" for v in views], group) for group, label, read in FIELDS]
    # A field no compared record has is no line of the comparison.
    return Comparison(views, [line for line in lines if any(line.values)])
