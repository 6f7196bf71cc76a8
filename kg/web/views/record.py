"""What a record page shows, read from the record's closure: the seed page's sections, in order."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox
from rdflib.namespace import RDFS as _RDFS
from rdflib.namespace import SKOS as _SKOS

from ...export.citations import creators
from ...rdf import namespaces as _ns
from ...rdf.facts import Facts, Term
from ...verify.checks import worst_outcome

# Namespace IRIs as strings: pages look terms up by the predicates' string values.
KG, PROV, DCT, QUDT, OA, SPDX, DCAT, CITO, RDF, RDFS = (
    str(ns) for ns in (_ns.KG, _ns.PROV, _ns.DCTERMS, _ns.QUDT, _ns.OA, _ns.SPDX, _ns.DCAT,
                       _ns.CITO, _ns.RDF, _ns.RDFS))


@dataclass
class Link:
    """A value that names a node: its text and where the browser shows the node."""

    text: str
    href: str = ""


@dataclass
class SourceView:
    node: str
    href: str
    title: str
    short: str  # "Saadat and Fellay 2026"
    long: str  # "Title (Saadat and Fellay, ICLR 2026 workshop)"
    authors: list[str]
    date: str
    venue: str
    document_type: str
    version: str  # "OpenReview PDF ... (11 pages; PDF CreationDate 2026-03-09)"
    sha256: str
    hash_scope: str
    pdf_url: str
    artifact_href: str


@dataclass
class CheckView:
    """One check of a review, as the page shows it."""

    anchor: str
    check: str  # "quote"
    method: str
    outcome: str  # "could not be checked"
    outcome_id: str  # "not-checked"
    detail: str
    expected: str
    found: str
    page: str
    found_on_page: str


@dataclass
class ReviewView:
    node: str
    href: str
    agent: Link
    role: str
    reviewer_note: str
    reviewed_at: str
    status: str
    methods: list[str]
    method_note: str
    note: str
    sha256: str
    retrieval_url: str
    hash_scope: str
    origin: str
    checks: list[CheckView] = field(default_factory=list)
    file_name: str = ""
    file_sha256: str = ""

    @property
    def outcome(self) -> str:
        """The worst outcome of its checks ("" without checks)."""
        return worst_outcome(c.outcome_id for c in self.checks) if self.checks else ""

    @property
    def flagged(self) -> list[CheckView]:
        """Its failed checks."""
        return [c for c in self.checks if c.outcome_id == "failed"]

    @property
    def methods_json(self) -> str:
        """The methods as the registry prints them: a compact JSON list."""
        return json.dumps(self.methods, separators=(",", ":"))


@dataclass
class RowView:
    anchor: str
    position: int
    property: str
    property_id: str
    statement: str
    citation: str
    citation_id: str
    shared: bool
    source: SourceView | None
    locator: str
    reviews: list[ReviewView]


def local_name(term: Term | None) -> str:
    return term.value.rsplit("#", 1)[-1].rsplit("/", 1)[-1] if term is not None else ""


class ViewBase:
    """Readers every page shares: links, values that may be missing, sources."""

    def __init__(self, facts: Facts, base: str, release: str | None = None):
        self.f = facts
        self.base = base
        #: A page of a past release links to the other nodes as that release holds them.
        self.release = release
        self._sources: dict[Term, SourceView] = {}

    def href(self, term: Term | None) -> str:
        """Where the browser shows a node: our path for our IRIs, the IRI itself otherwise."""
        if not isinstance(term, ox.NamedNode):
            return ""
        if term.value.startswith(self.base):
            path, hash_, fragment = term.value[len(self.base):].partition("#")
            at = f"?release={self.release}" if self.release else ""
            return f"/{path}{at}{hash_}{fragment}"
        return term.value

    def _link(self, node: Term | None, label_predicate: str) -> Link | None:
        if node is None:
            return None
        return Link(self.f.text(node, label_predicate) or local_name(node), self.href(node))

    def _value(self, term: Term | None, said: bool = False) -> str:
        """A value, or the words for why it is missing ("Not reported")."""
        if term is None:
            return ""
        if isinstance(term, ox.Literal):
            return term.value
        wording = self.f.text(term, RDFS + "comment")
        if wording:  # the upstream registry's own words for the gap
            return wording
        reason = self.f.one(term, KG + "reason")
        if said:  # "Not reported by the source"
            return self.f.concept(reason, _SKOS.definition).rstrip(".")
        return self.f.concept(reason)

    def source(self, node: Term | None) -> SourceView | None:
        """A source document with its checked artifact, as pages and citation tags need it."""
        if node is None:
            return None
        if node not in self._sources:  # a page names its source in many places
            self._sources[node] = self._source(node)
        return self._sources[node]

    def _source(self, node: Term) -> SourceView:
        f = self.f
        people = creators(f, node)
        authors = [" ".join(p for p in (given, family) if p) for family, given in people]
        names = _author_list([family for family, _ in people])
        date = f.text(node, DCT + "issued")
        venue = f.text(node, KG + "venue")
        title = f.text(node, DCT + "title")
        artifact = f.one(node, KG + "artifact")
        version = f.text(artifact, KG + "versionStatement")
        pages = f.text(artifact, KG + "pageCount")
        created = f.text(artifact, KG + "pdfCreationDate")
        details = "; ".join(p for p in (f"{pages} pages" if pages else "",
                                        f"PDF CreationDate {created}" if created else "") if p)
        checksum = f.one(artifact, SPDX + "checksum")
        return SourceView(
            node=node.value, href=self.href(node), title=title,
            short=" ".join(p for p in (names, date[:4]) if p),
            long=f"{title} ({', '.join(p for p in (names, venue) if p)})" if names or venue
            else title,
            authors=authors, date=date, venue=venue,
            document_type=self.f.concept(f.one(node, DCT + "type")),
            version=f"{version} ({details})" if details else version,
            sha256=f.text(checksum, SPDX + "checksumValue"),
            hash_scope=self._value(f.one(artifact, KG + "hashScope")) if artifact else "",
            pdf_url=f.text(artifact, DCAT + "downloadURL"),
            artifact_href=self.href(artifact),
        )


class RecordView(ViewBase):
    """Every section of the record page, as plain values for the template."""

    def __init__(self, facts: Facts, record: ox.NamedNode, base: str, release: str | None = None):
        super().__init__(facts, base, release)
        self.record = record
        f = facts
        self.iri = record.value
        self.id = f.text(record, DCT + "identifier")
        self.title = f.text(record, DCT + "title")
        value = f.one(record, KG + "reportedValue")
        self.printed = f.text(value, KG + "printedValue")
        self.numeric = f.text(value, QUDT + "numericValue")
        self.display = f.text(value, KG + "displayValue") or self.printed
        unit = f.one(value, QUDT + "unit")
        self.unit = Link(f.concept(unit, _RDFS.label) or local_name(unit),
                         unit.value if isinstance(unit, ox.NamedNode) else "")
        self.unit_symbol = f.concept(unit, _ns.QUDT.symbol)
        self.unit_detail = f.text(value, KG + "unitDetail")
        self.metric = f.text(record, KG + "metric")
        self.metric_label = f.text(record, KG + "metricLabel") or self.metric
        direction = f.one(record, KG + "metricDirection")
        self.direction = f.concept(direction)
        self.qualifier = f.text(record, KG + "metricQualifier")
        self.scope_note = f.text(record, KG + "scopeNote")
        self.hardware = f.text(record, KG + "hardwareAsReported")
        self.headline_label = (f"{self.metric_label} ({self.qualifier})" if self.qualifier
                               else self.metric_label)

        self.quoted_from = self.source(f.one(record, PROV + "wasQuotedFrom"))
        self.evaluation = self._link(f.one(record, KG + "evaluation"), DCT + "title")
        self.tested = self._cited(f.one(record, KG + "testedConfiguration"), model=True)
        self.protocol = self._cited(f.one(record, KG + "protocol"))
        self.dataset = self._cited(f.one(record, KG + "dataset"))
        self.procedure = self._cited(f.one(record, KG + "procedure"))
        coverage = f.one(record, KG + "coverage")
        self.coverage = (f"{self._value(f.one(coverage, KG + 'scored'))} scored / "
                         f"{self._value(f.one(coverage, KG + 'eligible'))} eligible"
                         if coverage is not None else "")
        self.uncertainty = self._value(f.one(record, KG + "uncertainty"), said=True)

        kind = f.one(record, KG + "evidenceKind")
        status = f.one(record, KG + "reviewStatus")
        self.evidence_kind = f.concept(kind)
        self.evidence_kind_short = f.concept(kind, _SKOS.altLabel) or self.evidence_kind
        self.status = f.concept(status)
        self.status_id = local_name(status)
        self.status_scope = f.concept(status, _SKOS.scopeNote)
        self.status_note = f.concept(status, _SKOS.note)
        self.status_comment = f.concept(status, _RDFS.comment)

        locator = f.one(record, KG + "locator")
        self.locator = f.text(locator, RDFS + "label")
        self.locator_anchor = _fragment(locator)
        self.locator_parts = self._locator_parts(locator)

        repro = f.one(record, KG + "reproduction")
        self.split = self._value(f.one(repro, KG + "split"))
        self.adaptation = self._value(f.one(repro, KG + "adaptation"))
        self.scoring = self._value(f.one(repro, KG + "scoringImplementation"))
        self.upstream_recipe_note = f.text(repro, KG + "upstreamRecipeNote")

        self.reviews = [self._review(r) for r in self._reviews()]
        checked = [r for r in self.reviews if r.checks]
        #: The latest review with checks decides the flag; earlier ones stay as provenance.
        self.verification = checked[-1] if checked else None
        self.runs = sorted((self._run(r) for r in f.subjects(KG + "reproduces", record)),
                           key=lambda run: (run["ended_at"], run["id"]))
        self.rows = sorted((self._row(r) for r in f.all(record, KG + "evidenceRow")),
                           key=lambda r: r.position)
        self.missing = [
            (f.concept(f.one(m, KG + "field"), _RDFS.label) or local_name(f.one(m, KG + "field")),
             local_name(f.one(m, KG + "reason")), f.text(m, RDFS + "comment"))
            for m in f.all(record, KG + "missingMetadata")
        ]
        self.upstream_releases = [t.value for t in f.all(record, KG + "upstreamRelease")]

    @property
    def all_sources(self) -> list[SourceView]:
        """The source the value is quoted from first, then any other source a row cites."""
        seen: dict[str, SourceView] = {}
        for source in [self.quoted_from, *(row.source for row in self.rows)]:
            if source is not None:
                seen.setdefault(source.node, source)
        return list(seen.values())

    # -- pieces -------------------------------------------------------------------------
    def _cited(self, node: Term | None, model: bool = False) -> dict[str, Any] | None:
        if node is None:
            return None
        f = self.f
        if model:
            parts = [f.text(node, KG + "model"), f.text(node, KG + "configuration")]
            text = ", ".join(p for p in parts if p)
        else:
            text = f.text(node, RDF + "value")
        source = self.source(f.one(node, DCT + "source"))
        at = f.text(node, KG + "citedAt")
        cite = " ".join(p for p in (source.short if source else "", at) if p)
        return {"text": text, "cite": cite, "href": source.href if source else ""}

    def _locator_parts(self, locator: Term | None) -> list[tuple[str, str]]:
        f = self.f
        parts = [(label, f.text(locator, KG + key)) for label, key in (
            ("section", "section"), ("paragraph", "paragraph"), ("page", "page"),
            ("figure", "figure"), ("figure element", "figureElement"), ("table", "table"))]
        for selector in f.all(locator, OA + "hasSelector"):
            if f.has_type(selector, OA + "TextQuoteSelector"):
                parts.append(("quote", f.text(selector, OA + "exact")))
        return [(k, v) for k, v in parts if v]

    def _reviews(self) -> list[Term]:
        found = set(self.f.subjects(KG + "reviewOf", self.record))
        return sorted(found, key=lambda r: (self.f.text(r, PROV + "endedAtTime"), str(r)))

    def _review(self, node: Term) -> ReviewView:
        f = self.f
        association = f.one(node, PROV + "qualifiedAssociation")
        agent = f.one(node, PROV + "wasAssociatedWith")
        artifact = f.one(node, KG + "usedArtifact")
        checksum = f.one(artifact, SPDX + "checksum")
        methods = sorted(f.all(node, KG + "method"), key=f.order)
        checks = sorted(f.all(node, KG + "check"),
                        key=lambda c: int(f.text(c, KG + "position") or 0))
        file = f.one(node, KG + "checkedFile")
        return ReviewView(
            node=node.value, href=self.href(node),
            agent=self._link(agent, RDFS + "label") or Link(""),
            role=f.concept(f.one(association, PROV + "hadRole")),
            reviewer_note=f.text(association, RDFS + "comment"),
            reviewed_at=f.text(node, PROV + "endedAtTime"),
            status=f.concept(f.one(node, KG + "reviewStatus")),
            methods=[local_name(m) for m in methods],
            method_note=f.text(node, KG + "methodNote"),
            note=f.text(node, KG + "outcomeNote"),
            sha256=f.text(checksum, SPDX + "checksumValue"),
            retrieval_url=f.text(artifact, DCAT + "downloadURL"),
            hash_scope=self._value(f.one(artifact, KG + "hashScope")) if artifact else "",
            origin=f.concept(f.one(node, KG + "origin")),
            checks=[self._check(c) for c in checks],
            file_name=f.text(file, KG + "fileName"),
            file_sha256=f.text(f.one(file, SPDX + "checksum"), SPDX + "checksumValue"),
        )

    def _check(self, node: Term) -> CheckView:
        f = self.f
        outcome = f.one(node, KG + "outcome")
        kind = f.one(node, DCT + "type")
        return CheckView(
            anchor=_fragment(node), check=f.concept(kind) or "check",
            method=f.concept(f.one(node, KG + "method")),
            outcome=f.concept(outcome), outcome_id=local_name(outcome),
            detail=f.text(node, RDFS + "comment"), expected=f.text(node, KG + "expected"),
            found=f.text(node, KG + "found"), page=f.text(node, KG + "page"),
            found_on_page=f.text(node, KG + "foundOnPage"),
        )

    def _run(self, node: Term) -> dict[str, Any]:
        """A run as the Reproduction section shows it: hardware, the claim's quantity at each
        stage, and the verdict."""
        f = self.f
        env = f.one(node, KG + "environment")
        verdict = f.one(node, KG + "verdict")
        quantity = f.text(verdict, KG + "quantity")
        unit = f.one(verdict, QUDT + "unit")
        measured = {}
        for m in f.all(node, PROV + "generated"):
            if f.text(m, KG + "quantity") == quantity and f.one(m, QUDT + "unit") == unit:
                measured[f.text(m, KG + "stage")] = f.text(m, QUDT + "numericValue")
        stages = []
        for s_ in sorted(f.all(node, KG + "stageResult"),
                         key=lambda x: int(f.text(x, KG + "position") or 0)):
            name = f.text(s_, KG + "stage")
            stages.append({"stage": name, "status": f.concept(f.one(s_, KG + "runStatus")),
                           "value": measured.get(name, ""),
                           "claim": name == f.text(verdict, KG + "stage")})
        params = {f.text(p, RDFS + "label"): f.text(p, RDF + "value")
                  for p in f.all(node, KG + "parameter")}
        difference = f.text(verdict, KG + "relativeDifference")
        return {
            "href": self.href(node), "id": local_name(node),
            "ended_at": f.text(node, PROV + "endedAtTime"),
            "status": f.concept(f.one(node, KG + "runStatus")),
            "gpu": " x ".join(p for p in (f.text(env, KG + "gpuCount"),
                                          f.text(env, KG + "gpuModel")) if p),
            "gpu_memory": f.text(env, KG + "gpuMemory"),
            "precision": params.get("precision", ""),
            "quantity": quantity, "unit": self.f.concept(unit, _RDFS.label),
            "stages": stages,
            "verdict": f.concept(f.one(verdict, KG + "outcome")),
            "claimed": f.text(verdict, KG + "claimedValue"),
            "measured": f.text(verdict, KG + "measuredValue"),
            "difference": f"{float(difference) * 100:+.1f} %" if difference else "",
            "tolerance": f"{float(f.text(verdict, KG + 'tolerance') or 0) * 100:.0f} %",
            "note": f.text(verdict, RDFS + "comment"),
        }

    def _row(self, node: Term) -> RowView:
        f = self.f
        prop = f.one(node, KG + "statementProperty")
        citation = f.one(node, KG + "citationType")
        locator = f.one(node, KG + "locator")
        reviews = [r for r in self.reviews
                   if ox.NamedNode(r.node) in f.all(node, KG + "reviewedBy")]
        return RowView(
            anchor=_fragment(node), position=int(f.text(node, KG + "position") or 0),
            property=f.concept(prop), property_id=local_name(prop),
            statement=f.text(node, RDF + "value"),
            citation=f.concept(citation), citation_id=local_name(citation),
            shared=f.text(node, KG + "sharedLocator") == "true",
            source=self.source(f.one(node, CITO + "citesAsEvidence")),
            locator=f.text(locator, RDFS + "label"),
            reviews=reviews,
        )


def _author_list(families: list[str]) -> str:
    """How the registry cites authors: "A", "A and B", "A et al."."""
    if len(families) > 2:
        return f"{families[0]} et al."
    return " and ".join(families)


def _fragment(term: Term | None) -> str:
    if isinstance(term, ox.NamedNode) and "#" in term.value:
        return term.value.rsplit("#", 1)[1]
    return ""
