"""Every record's row as the index, the leaderboards and the model pages list it: read from
the store with one query (``queries/internal/index-rows.rq``) plus one for the checks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

import pyoxigraph as ox

from ...model.fields import meant
from ...model.outcomes import worst_outcome
from ...model.standing import CURRENT, Standing
from ...rdf.namespaces import KGV, QUDT, RDFS, SKOS
from ...rdf.sparqltext import inside_where
from ...rdf.vocabulary import load_terms, statement_index
from ..base import GraphStore, solutions
from ..queries import internal_query
from ..standing import standings
from .field_scan import Fields

#: The fields (of queries/internal/index-rows.rq) a record has: nodes lacking one are not listed.
REQUIRED = ("id", "title", "metric", "evidenceKind", "status", "source", "printed")
PREF_LABEL, RDFS_LABEL, ALT_LABEL = str(SKOS.prefLabel), str(RDFS.label), str(SKOS.altLabel)
QUDT_SYMBOL = str(QUDT.symbol)
LOWER_IS_BETTER = str(KGV.lower)


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
    #: An imported result's benchmark, the evaluators' relationship to the model's
    #: developers, and the developer, as its upstream file says ("" for other records).
    benchmark: str = ""
    benchmark_label: str = ""
    evaluator: str = ""
    evaluator_label: str = ""
    developer: str = ""
    methods: list[str] = field(default_factory=list)
    method_labels: dict[str, str] = field(default_factory=dict)
    #: The worst check outcome of its latest review with checks: failed, not-checked or
    #: passed ("" when no review has checks)
    verification: str = ""
    verification_label: str = ""
    #: The value as a number (``qudt:numericValue``, exact), None where it has none or
    #: where what the source printed stands for no value (``meant`` says why).
    value: Decimal | None = None
    #: For a printed value that stands for no value: "not computed (printed -1.0)"
    #: (kg.model.fields.meant); such a row is never ranked, charted or averaged.
    meant: str = ""
    #: The metric's direction: True where lower is better.
    lower_is_better: bool = False
    #: The model node (``kg:evaluatedModel``), the file the result comes from
    #: (``kg:evaluation``), and what that file says of the model: parameters (billions,
    #: as written) and precision.
    model_node: str = ""
    evaluation: str = ""
    params: str = ""
    precision: str = ""
    #: Whether another node is quoted from one of its sources at one of its quotes' exact
    #: words: only then can it have claims of one sentence (a record page looks them up).
    shares_quote: bool = False
    #: Its standing by the rule (docs/standing.md): current, corrected, disputed, ...
    standing: str = "current"
    standing_label: str = "current"
    #: The import that brought it (``kg:importedBy``; "" for the registry's own records):
    #: the part of the registry, and the licence, it belongs to.
    imported_by: str = ""
    #: The unit's symbol (``qudt:symbol``: "GB", "%"), shown after the value; "" for a unit
    #: without one (unitless, a count), after whose value nothing is shown.
    unit_symbol: str = ""
    #: The scale its upstream declares for the metric (``min_score``, ``max_score``), as
    #: written; "" where none is declared (a disagreement's spread is read against it).
    min_score: str = ""
    max_score: str = ""
    #: (source, quote's exact words) of each of its sources and quotes: what sharing a
    #: sentence is decided on (kept in the index's ``quote_pairs``, not as a column)
    pairs: list[tuple[str, str]] = field(default_factory=list, compare=False, repr=False)

    @property
    def is_current(self) -> bool:
        """Whether it counts as current (current or corrected): what "current only" keeps."""
        return self.standing in CURRENT

    def as_dict(self) -> dict[str, object]:
        """The row for JSON and CSV listings (keys: :data:`LISTING_FIELDS`)."""
        return {
            "record": self.record,
            "id": self.id,
            "title": self.title,
            "metric": self.metric,
            "model": self.model,
            "printed_value": self.printed,
            "value_note": self.meant,
            "unit": self.unit,
            "evidence_kind": self.evidence_kind_label,
            "review_status": self.status_label,
            "source": self.source,
            "source_title": self.source_title,
            "benchmark": self.benchmark,
            "evaluator_relationship": self.evaluator_label,
            "developer": self.developer,
            "methods": sorted(self.method_labels.get(m, m) for m in self.methods),
            "verification": self.verification_label,
            "standing": self.standing,
        }

    @property
    def params_number(self) -> Decimal | None:
        return decimal_or_none(self.params)


#: The columns of the JSON and CSV listings.
LISTING_FIELDS = (
    "record",
    "id",
    "title",
    "metric",
    "model",
    "printed_value",
    "value_note",
    "unit",
    "evidence_kind",
    "review_status",
    "source",
    "source_title",
    "benchmark",
    "evaluator_relationship",
    "developer",
    "methods",
    "verification",
    "standing",
)


def claim_chunks(store: GraphStore, size: int) -> Iterator[list[str]]:
    """Every claim's IRI, ``size`` at a time (``queries/internal/claims.rq``): what a whole
    index is read in, so its memory does not grow with the store."""
    chunk: list[str] = []
    for row in solutions(store.query(internal_query("claims").text)):
        chunk.append(row["record"].value)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def read_rows(
    store: GraphStore,
    found: Mapping[str, Standing] | None = None,
    nodes: Collection[str] | None = None,
    scanned: Callable[[Collection[str]], Fields] | None = None,
) -> list[Row]:
    """Every record's row, in no particular order, or the rows of the records among
    ``nodes``; ``found``: the standings of the store's claims where the caller read them
    already (kg.store.standing.standings). Of rows read for ``nodes``, ``shares_quote``
    counts only the pairs among them (the index counts the rest: ``Row.pairs``).
    ``scanned``: the fields of some nodes, read before from the whole store
    (:class:`~kg.store.index.field_scan.FieldScan`), where not from the store."""

    def fields_of(some: Collection[str] | None) -> Fields:
        return _fields(store, some) if scanned is None or some is None else scanned(some)

    fields = fields_of(nodes)
    if nodes is not None:  # the titles of their sources, what their files say of models
        fields.update(
            fields_of(
                {
                    value
                    for got in fields.values()
                    for name in ("source", "evaluation")
                    for value in got.get(name, ())
                },
            )
        )
    label = _labeller()

    quoted = Counter(pair for got in fields.values() for pair in _quote_pairs(got))
    rows = []
    for record, got in fields.items():
        if not all(got.get(name) for name in REQUIRED):
            continue  # not a record (a source's title, a review's status)

        def first(name: str, got: dict[str, list[str]] = got) -> str:
            return got.get(name, [""])[0]

        source, unit, evaluation = first("source"), first("unit"), first("evaluation")
        reason = first("valueReason")  # the printed value stands for none: no number
        about = fields.get(evaluation, {})  # what the record's file says of its model
        row = Row(
            record=record,
            id=first("id"),
            title=first("title"),
            metric=first("metric"),
            metric_label=first("metricLabel") or first("metric"),
            model=first("model"),
            dataset=first("dataset"),
            quote=first("quote"),
            printed=first("printed"),
            unit=label(unit, RDFS_LABEL) if unit else "",
            unit_symbol=label(unit, QUDT_SYMBOL) if unit else "",
            evidence_kind=first("evidenceKind"),
            evidence_kind_label=label(first("evidenceKind")),
            status=first("status"),
            status_label=label(first("status")),
            source=source,
            source_title=fields.get(source, {}).get("title", [""])[0],
            methods=got.get("method", []),
            method_labels={m: label(m) or m for m in got.get("method", [])},
            benchmark=first("benchmark"),
            evaluator=first("evaluator"),
            evaluator_label=label(first("evaluator")),
            developer=first("developer"),
            value=None if reason else decimal_or_none(first("value")),
            meant=meant(label(reason, ALT_LABEL) or label(reason), first("printed"))
            if reason
            else "",
            lower_is_better=first("direction") == LOWER_IS_BETTER,
            model_node=first("modelNode"),
            evaluation=evaluation,
            params=about.get("params", [""])[0],
            precision=about.get("precision", [""])[0],
            imported_by=first("importedBy"),
            min_score=first("minScore"),
            max_score=first("maxScore"),
        )
        if row.benchmark:  # what the record says it measures: its own words, no lookup
            name, dataset = row.metric_label, row.dataset
            row.benchmark_label = (
                name if not dataset or dataset == name else (f"{name} ({dataset})")
            )
        row.pairs = sorted(_quote_pairs(got))
        row.shares_quote = any(quoted[pair] > 1 for pair in row.pairs)
        rows.append(row)
    by_record = {row.record: row for row in rows}
    _add_verification(by_record, store, nodes is not None)
    for record, standing in (standings(store) if found is None else found).items():
        if record in by_record:
            _stand(by_record[record], standing, label)
    return rows


def restated(rows: list[Row], store: GraphStore, found: Mapping[str, Standing]) -> list[Row]:
    """``rows``, whose records' own statements a write left as they were (read back from
    the index), with what they take from other nodes as ``store`` says now: their source's
    title and their standing (``found``). What their file says of the model comes from
    their evaluation's graph: a write of it reads their rows again."""
    titles = _fields(store, {row.source for row in rows if row.source})
    label = _labeller()
    for row in rows:
        row.source_title = titles.get(row.source, {}).get("title", [""])[0]
        _stand(row, found.get(row.record), label)
    return rows


def _labeller() -> Callable[..., str]:
    """The ontology's label of a term: its preferred label, or the property asked for."""
    labels = statement_index(load_terms().graph)

    def label(iri: str, prop: str = PREF_LABEL) -> str:
        found = labels.get((iri, prop))
        return str(found[0]) if found else ""

    return label


def _stand(row: Row, standing: Standing | None, label: Callable[[str], str]) -> None:
    """Give ``row`` its standing (None: the rule found none, so it is current)."""
    if standing is None:
        row.standing, row.standing_label = "current", "current"
        return
    row.standing = standing.standing
    row.standing_label = label(str(KGV[standing.standing])) or standing.standing


def _fields(store: GraphStore, nodes: Collection[str] | None) -> Fields:
    """node -> field -> values, of every node or of ``nodes`` (a VALUES block first in the
    query: the store then reads those nodes' statements alone)."""
    text = internal_query("index-rows").text
    if nodes is not None:
        if not nodes:
            return {}
        listed = " ".join(str(ox.NamedNode(node)) for node in sorted(nodes))
        text = inside_where(text, f"VALUES ?node {{ {listed} }}")
    fields: Fields = {}
    for r in solutions(store.query(text)):
        values = fields.setdefault(r["node"].value, {}).setdefault(r["field"].value, [])
        value = r["value"].value
        if value not in values:
            values.append(value)
    return fields


def _quote_pairs(got: dict[str, list[str]]) -> set[tuple[str, str]]:
    """(source, quote's exact words) of each source and quote of a node: what
    ``queries/internal/quote-siblings.rq`` matches on (words compared as text, so a pair
    counted twice may still name no sibling, never the other way)."""
    return {(source, quote) for source in got.get("source", ()) for quote in got.get("quote", ())}


def decimal_or_none(text: str) -> Decimal | None:
    """``text`` as an exact finite decimal, or None (empty, not a number, infinite)."""
    if not text:
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def params_between(text: str | None, low: str | None, high: str | None) -> bool:
    """Whether ``text`` is a number of parameters within ``low`` and ``high`` (either None:
    no bound), compared exactly: the SQL function ``params_between`` of an index
    connection (kg/store/index/board_reads.py).

    >>> [params_between(p, "7", "8") for p in ("7.24", "", "70", "7")]
    [True, False, False, True]
    """
    number = decimal_or_none(text or "")
    if number is None:  # a range asks for a known size
        return False
    if low is not None and number < Decimal(low):
        return False
    return high is None or number <= Decimal(high)


def _add_verification(rows: dict[str, Row], store: GraphStore, restrict: bool) -> None:
    """Each record's state of source verification: the worst outcome of the checks of its
    latest review that has checks (kg verify); read for ``rows`` alone where ``restrict``."""

    def text(row, name: str) -> str:
        term = row[name]
        return term.value if term is not None else ""

    latest: dict[str, tuple[str, str]] = {}  # record -> (end time, review)
    outcomes: dict[tuple[str, str], set[str]] = {}
    labels: dict[str, str] = {}
    query = internal_query("index-checks").text
    if restrict:
        if not rows:
            return
        listed = " ".join(str(ox.NamedNode(record)) for record in sorted(rows))
        query = inside_where(query, f"VALUES ?record {{ {listed} }}")
    for r in solutions(store.query(query)):
        record, review = text(r, "record"), text(r, "review")
        outcome = text(r, "outcome").rsplit("#")[-1]
        outcomes.setdefault((record, review), set()).add(outcome)
        labels[outcome] = text(r, "outcomeLabel") or outcome
        latest[record] = max(latest.get(record, ("", "")), (text(r, "ended"), review))
    for record, (_, review) in latest.items():
        if record in rows:
            state = worst_outcome(outcomes[(record, review)])
            rows[record].verification, rows[record].verification_label = state, labels[state]
