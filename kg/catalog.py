"""The record catalogue behind the index page: full-text search, facets with counts, keyset paging.

It is read from the store with one query (plus one for review methods) and kept in
memory: filtering and counting ~100k small rows in Python takes milliseconds, where
the same GROUP BY per facet in SPARQL takes a second.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .checks import worst_outcome
from .sparql import internal_query
from .store import GraphStore

#: Facet name -> (the row key holding the value, the row key holding its label).
FACETS: dict[str, tuple[str, str]] = {
    "metric": ("metric", "metric_label"),
    "model": ("model", "model"),
    "evidence_kind": ("evidence_kind", "evidence_kind_label"),
    "review_status": ("status", "status_label"),
    "source": ("source", "source_title"),
    "method": ("methods", "method_labels"),
    "verification": ("verification", "verification_label"),
}
SEARCHED = ("title", "model", "dataset", "quote", "id")
#: The columns of the JSON and CSV listings.
LISTING_FIELDS = ("record", "id", "title", "metric", "model", "printed_value", "unit",
                  "evidence_kind", "review_status", "source", "source_title", "methods",
                  "verification")



@dataclass
class Row:
    """One record as the index lists it."""

    record: str
    id: str
    title: str
    metric: str
    metric_label: str
    model: str
    dataset: str
    quote: str
    printed: str
    unit: str
    evidence_kind: str
    evidence_kind_label: str
    status: str
    status_label: str
    source: str
    source_title: str
    methods: list[str] = field(default_factory=list)
    method_labels: dict[str, str] = field(default_factory=dict)
    #: The worst check outcome of its latest review with checks: failed, not-checked or
    #: passed ("" when no review has checks)
    verification: str = ""
    verification_label: str = ""
    text: str = ""

    def as_dict(self) -> dict[str, object]:
        """The row for JSON and CSV listings (keys: :data:`LISTING_FIELDS`)."""
        return {
            "record": self.record, "id": self.id, "title": self.title, "metric": self.metric,
            "model": self.model, "printed_value": self.printed, "unit": self.unit,
            "evidence_kind": self.evidence_kind_label, "review_status": self.status_label,
            "source": self.source, "source_title": self.source_title,
            "methods": sorted(self.method_labels.get(m, m) for m in self.methods),
            "verification": self.verification_label,
        }


@dataclass
class Page:
    rows: list[Row]
    total: int
    next_after: str | None


class Catalog:
    """Every record's index row, sorted by id."""

    def __init__(self, rows: Iterable[Row]):
        self.rows = sorted(rows, key=lambda r: r.id)

    @classmethod
    def from_store(cls, store: GraphStore) -> Catalog:
        def text(row, name: str) -> str:
            term = row[name]
            return term.value if term is not None else ""

        rows: dict[str, Row] = {}
        for r in store.query(internal_query("index-rows").text):
            record = text(r, "record")
            if record in rows:
                continue  # a second model or quote adds nothing to the listing
            rows[record] = Row(
                record=record, id=text(r, "id"), title=text(r, "title"),
                metric=text(r, "metric"), metric_label=text(r, "metricLabel") or text(r, "metric"),
                model=text(r, "model"), dataset=text(r, "dataset"), quote=text(r, "quote"),
                printed=text(r, "printed"), unit=text(r, "unit"),
                evidence_kind=text(r, "evidenceKind"),
                evidence_kind_label=text(r, "evidenceKindLabel"),
                status=text(r, "status"), status_label=text(r, "statusLabel"),
                source=text(r, "source"), source_title=text(r, "sourceTitle"),
            )
        for r in store.query(internal_query("index-methods").text):
            row = rows.get(text(r, "record"))
            if row is not None:
                method = text(r, "method")
                row.methods.append(method)
                row.method_labels[method] = text(r, "methodLabel") or method
        latest: dict[str, tuple[str, str]] = {}  # record -> (end time, review)
        outcomes: dict[tuple[str, str], set[str]] = {}
        labels: dict[str, str] = {}
        for r in store.query(internal_query("index-checks").text):
            record, review = text(r, "record"), text(r, "review")
            outcome = text(r, "outcome").rsplit("#")[-1]
            outcomes.setdefault((record, review), set()).add(outcome)
            labels[outcome] = text(r, "outcomeLabel") or outcome
            latest[record] = max(latest.get(record, ("", "")), (text(r, "ended"), review))
        for record, (_, review) in latest.items():
            if record in rows:
                state = worst_outcome(outcomes[(record, review)])
                rows[record].verification, rows[record].verification_label = state, labels[state]
        for row in rows.values():
            row.text = " ".join(getattr(row, name) for name in SEARCHED).casefold()
        return cls(rows.values())

    def matching(self, query: str = "", filters: Mapping[str, str] | None = None) -> list[Row]:
        """Rows containing every word of ``query`` and having every facet value of ``filters``."""
        words = query.casefold().split()
        selected = {name: value for name, value in (filters or {}).items()
                    if name in FACETS and value}
        out = []
        for row in self.rows:
            if words and not all(w in row.text for w in words):
                continue
            if all(_has(row, name, value) for name, value in selected.items()):
                out.append(row)
        return out

    def page(
        self, query: str = "", filters: Mapping[str, str] | None = None,
        after: str | None = None, limit: int = 50,
    ) -> Page:
        """One page of matching rows after the id ``after`` (keyset paging by id)."""
        rows = self.matching(query, filters)
        start = 0
        if after:
            start = next((i for i, r in enumerate(rows) if r.id > after), len(rows))
        chunk = rows[start:start + limit]
        more = start + limit < len(rows)
        return Page(rows=chunk, total=len(rows), next_after=chunk[-1].id if more else None)

    def facets(
        self, query: str = "", filters: Mapping[str, str] | None = None,
    ) -> dict[str, list[tuple[str, str, int]]]:
        """For each facet, (value, label, count) over the rows matching the query and the
        other facets' filters, most frequent first."""
        filters = dict(filters or {})
        out: dict[str, list[tuple[str, str, int]]] = {}
        for name, (key, label_key) in FACETS.items():
            others = {k: v for k, v in filters.items() if k != name}
            counts: Counter[str] = Counter()
            labels: dict[str, str] = {}
            for row in self.matching(query, others):
                for value in _values(row, key):
                    counts[value] += 1
                    labels[value] = _label(row, label_key, value)
            out[name] = [(v, labels[v], n) for v, n in
                         sorted(counts.items(), key=lambda item: (-item[1], labels[item[0]]))]
        return out


def _values(row: Row, key: str) -> list[str]:
    value = getattr(row, key)
    if isinstance(value, list):
        return value
    return [value] if value else []


def _label(row: Row, key: str, value: str) -> str:
    label = getattr(row, key)
    if isinstance(label, dict):
        return label.get(value, value)
    return label or value


def _has(row: Row, facet: str, value: str) -> bool:
    return value in _values(row, FACETS[facet][0])
