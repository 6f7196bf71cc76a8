"""``kind: record``: one reported result with its locator, evidence and upstream review."""

from __future__ import annotations

from collections import Counter

from rdflib import Literal, URIRef
from rdflib.term import Node as Term

from ...kinds import by_name
from ...rdf.namespaces import CITO, DCTERMS, KG, OA, PROV, QUDT, RDF, RDFS, XSD
from .context import Node
from .review import artifact_iri, build_review

PDF_FRAGMENT = URIRef("http://tools.ietf.org/rfc/rfc3778")
#: An upstream review is minted as a review file's activity is.
REVIEW_SEGMENT = by_name("review").segment


def map_record(node: Node) -> None:
    """Map a record file; ``node.subject`` is the claim, which is also the graph's name."""
    ctx = node.ctx
    claim = node.subject
    ident = node.data.get("id", "")
    node.type(PROV.Entity, KG.Claim)
    node.literal("title", DCTERMS.title)
    source = node.ref("source", PROV.wasQuotedFrom, "source")
    node.ref("evaluation", KG.evaluation, "evaluation")

    # The reported value: printed string, typed number and unit in one QUDT value node.
    value = node.facet(URIRef(f"{claim}#value"))
    ctx.add(claim, KG.reportedValue, value.subject)
    value.type(QUDT.QuantityValue, KG.ReportedValue)
    value.literal("printed_value", KG.printedValue)
    value.literal("numeric_value", QUDT.numericValue, XSD.decimal)
    value.literal("display_value", KG.displayValue)
    value.unit("unit", QUDT.unit)
    value.literal("unit_detail", KG.unitDetail)

    node.literal("metric", KG.metric)
    node.literal("metric_label", KG.metricLabel)
    node.concept("metric_direction", KG.metricDirection)
    node.literal("metric_qualifier", KG.metricQualifier)
    node.literal("scope_note", KG.scopeNote)
    node.literal("hardware", KG.hardwareAsReported)

    node.child("tested_configuration", KG.testedConfiguration, _tested_configuration)
    for key, predicate in (
        ("protocol", KG.protocol),
        ("dataset", KG.dataset),
        ("procedure", KG.procedure),
    ):
        node.child(key, predicate, _cited_text)
    node.child("coverage", KG.coverage, _coverage)
    node.value_or_missing("uncertainty", KG.uncertainty)
    node.children("missing_metadata", KG.missingMetadata, _missing_metadata(node))
    node.concept("evidence_kind", KG.evidenceKind)
    node.concept("review_status", KG.reviewStatus)

    locator = URIRef(f"{claim}#locator")
    quoted = (claim, PROV.wasQuotedFrom, source)  # where a default source was written
    node.child("locator", KG.locator, _locator(source, quoted), subject=locator)

    reviews = node.children(
        "reviews",
        None,
        lambda n, _: build_review(n, source, "upstream-registry"),
        subject=lambda i: ctx.iri(REVIEW_SEGMENT, f"{ident}-review-{i}"),
    )
    for review in reviews:
        ctx.add(review.subject, PROV.used, claim)
        ctx.add(review.subject, KG.reviewOf, claim)
    row_locators: dict[Term, Term] = {}
    node.children(
        "evidence",
        KG.evidenceRow,
        _evidence_row(source, quoted, locator, [r.subject for r in reviews], row_locators),
        subject=lambda i: URIRef(f"{claim}#evidence-{i}"),
    )
    _label_shared_locators(node, row_locators)

    node.child("reproduction", KG.reproduction, _reproduction)
    for path, release in node.scalars("upstream_releases", KG.upstreamRelease):
        node.emit("upstream_releases", KG.upstreamRelease, Literal(release), release, path)


def _tested_configuration(node: Node) -> None:
    node.type(KG.TestedConfiguration)
    node.literal("model", KG.model)
    node.literal("configuration", KG.configuration)
    _citation(node)


def _cited_text(node: Node) -> None:
    node.type(KG.CitedText)
    node.literal("text", RDF.value)
    _citation(node)


def _citation(node: Node) -> None:
    """Where a methods field says it comes from: a source, optionally a place in it."""
    node.ref("source", DCTERMS.source, "source")
    node.literal("at", KG.citedAt)


def _coverage(node: Node) -> None:
    node.type(KG.Coverage)
    node.value_or_missing("scored", KG.scored, _count)
    node.value_or_missing("eligible", KG.eligible, _count)


def _count(value: str) -> Literal:
    return Literal(value, datatype=XSD.nonNegativeInteger, normalize=False)


def _missing_metadata(record: Node):
    def build(node: Node, _position: int) -> None:
        node.type(KG.MissingMetadata)
        field = node.scalar("field", KG.field)
        if field is not None:
            # The field is named as the record file names it; the graph holds its property.
            predicate = record.declared.get(field)
            node.emit("field", KG.field, predicate if predicate else Literal(field), field)
        node.concept("reason", KG.reason)
        node.literal("note", RDFS.comment)

    return build


def _locator(source: URIRef | None, stated: tuple):
    def build(node: Node) -> None:
        ctx = node.ctx
        node.type(KG.Locator, OA.SpecificResource)
        node.literal("text", RDFS.label)
        node.literal("section", KG.section)
        node.literal("paragraph", KG.paragraph)
        node.literal("figure", KG.figure)
        node.literal("figure_element", KG.figureElement)
        node.literal("table", KG.table)
        page = node.literal("page", KG.page, XSD.positiveInteger)
        quote = node.scalar("quote", OA.exact)
        if quote is not None:
            selector = ctx.bnode()
            ctx.add(node.subject, OA.hasSelector, selector)
            ctx.add(selector, RDF.type, OA.TextQuoteSelector)
            node.facet(selector).emit("quote", OA.exact, Literal(quote), quote)
            ctx.origins.fields[(selector, OA.exact)] = node._path("quote")
        if page is not None:
            # Paired with the quote: a PDF page fragment alone is fragile.
            selector = ctx.bnode()
            ctx.add(node.subject, OA.hasSelector, selector)
            ctx.add(selector, RDF.type, OA.FragmentSelector)
            ctx.add(selector, DCTERMS.conformsTo, PDF_FRAGMENT)
            node.facet(selector).emit("page", RDF.value, Literal(f"page={page}"), page)
        sha = node.scalar("artifact_sha256", OA.hasSource)
        if source is not None:
            if sha is not None:
                node.emit("artifact_sha256", OA.hasSource, artifact_iri(source, sha), sha)
            else:
                ctx.add_implied(node.subject, OA.hasSource, source, stated)

    return build


def _evidence_row(
    source: URIRef | None,
    quoted: tuple,
    locator: URIRef,
    reviews: list[Term],
    row_locators: dict[Term, Term],
):
    def build(node: Node, position: int) -> None:
        ctx = node.ctx
        node.type(KG.EvidenceRow)
        ctx.add(node.subject, KG.position, Literal(position))
        node.concept("property", KG.statementProperty)
        node.literal("statement", RDF.value)
        node.concept("citation", KG.citationType)
        node.concept("basis", KG.statementBasis)
        node.literal("note", RDFS.comment)
        cited = node.ref("source", CITO.citesAsEvidence, "source")
        if cited is None and source is not None:
            ctx.add_implied(node.subject, CITO.citesAsEvidence, source, quoted)
        stated = (node.subject, CITO.citesAsEvidence, cited) if cited is not None else quoted
        own = node.child(
            "locator",
            KG.locator,
            _locator(cited or source, stated),
            subject=URIRef(f"{node.subject}-locator"),
        )
        if own is None:
            ctx.add(node.subject, KG.locator, locator)
        row_locators[node.subject] = own.subject if own is not None else locator
        named = node.scalars("reviewed_by", KG.reviewedBy)
        for path, raw in named:
            node.emit("reviewed_by", KG.reviewedBy, ctx.iri(REVIEW_SEGMENT, raw), raw, path)
        if not named:
            for review in reviews:
                ctx.add(node.subject, KG.reviewedBy, review)

    return build


def _label_shared_locators(record: Node, row_locators: dict[Term, Term]) -> None:
    """A locator cited by several rows is labelled as shared on each of them."""
    uses = Counter(row_locators.values())
    for row, locator in row_locators.items():
        record.ctx.add(row, KG.sharedLocator, Literal(uses[locator] > 1))


def _reproduction(node: Node) -> None:
    """What the upstream registry says about reproducing the result, kept verbatim."""
    node.type(KG.ReproductionNotes)
    node.value_or_missing("split", KG["split"])
    node.value_or_missing("adaptation", KG.adaptation)
    node.value_or_missing("scoring_implementation", KG.scoringImplementation)
    node.literal("upstream_note", KG.upstreamRecipeNote)
