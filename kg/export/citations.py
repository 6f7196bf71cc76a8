"""Citations of a record or a source as CSL-JSON items (what citation tools import).

Citing a claim means citing the paper at its place and the registry entry, so a record's
citation is two items:

- the source document, with the place: CSL ``locator`` (the page, else the section,
  paragraph or figure) and its kind. The CSL data schema (1.0) has no ``label`` on an
  item, since the label belongs to a cite; it rides in ``custom.label`` for a citation
  processor to put on the cite. ``note`` carries the locator in words.
- the record itself, CSL type ``dataset``: its IRI, the claimgraph release it is cited
  in as ``version`` (the newest release that holds it, or the release being browsed;
  none before a first release), the date it was accessed; a record that is not current
  (docs/standing.md) has its standing as CSL ``status`` and in words in ``note``.

A record an import brought cites, in place of a source document, the result as its
upstream publishes it (:func:`upstream_item`): the source's organisation as author and
publisher, a title naming the metric, the model and the leaderboard, the URL of the
leaderboard (else of the kept file in the origin repository), and the date the upstream
retrieved it as ``accessed``.

Each item carries the licence that applies to it in ``custom.license`` (an IRI, or none)
and ``custom.license-name`` (:mod:`kg.model.licences`): a record's and an imported result's
are derived from the import and the operator's setting, never stored; a source document's
is its own (not stated: the registry does not relicense what it quotes).

A source's citation is the source alone. BibTeX, RIS and formatted references
(:mod:`kg.export.citeformats`, :mod:`kg.export.bibliography`) are written from these items,
so the formats say the same.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pyoxigraph as ox

from ..model.fields import field_text, field_value, meant_text
from ..model.licences import Licence, record_licence
from ..rdf.facts import Facts, Term
from ..rdf.namespaces import DCTERMS, KG, RDFS, SCHEMA
from ..registry import Registry
from ..store.archive import ReleaseInfo
from ..store.queries import to_term
from ..store.records import citable

#: Who publishes a record: the registry (a record has no personal author).
PUBLISHER = "claimgraph"
#: The CSL variable a source's venue goes into, by CSL type.
VENUE_VARIABLE = {
    "paper-conference": "container-title",
    "article-journal": "container-title",
    "article": "publisher",
    "report": "publisher",
}
#: The locator fields of a record's locator, most precise first, with their CSL labels.
LOCATOR_LABELS = (
    ("page", "page"),
    ("section", "section"),
    ("paragraph", "paragraph"),
    ("figure", "figure"),
    ("table", "table"),
)

CslItem = dict[str, Any]


def csl_items(
    registry: Registry,
    ident: str,
    accessed: dt.date | None = None,
    found: tuple[str, list[ox.Quad]] | None = None,
    release: ReleaseInfo | None = None,
) -> list[CslItem]:
    """The CSL-JSON items citing record or source ``ident``; ``found`` is what
    :func:`kg.store.records.citable` gives for it, when the caller has it already; ``release``
    is the claimgraph release a record is cited in (its ``version``), if any.

    :raises NotFoundError: when no record or source has the id.
    """
    base = registry.base
    kind, quads = found or citable(registry.store, base, ident)
    facts = Facts(quads)
    if kind == "source":
        return [source_item(facts, to_term("source", ident, base))]
    record = to_term("record", ident, base)
    return citation_items(
        facts,
        record,
        registry.settings.licence,
        accessed or dt.datetime.now(dt.UTC).date(),
        release,
    )


def citation_items(
    facts: Facts, record: Term, operator: str, accessed: dt.date, release: ReleaseInfo | None
) -> list[CslItem]:
    """The CSL-JSON items citing ``record`` from its closure ``facts``: what it quotes (its
    source at the place, or the upstream's result), then the registry entry; ``operator``
    is the operator's licence setting (an IRI or "")."""
    items = []
    licence = record_licence(facts, record, operator)
    source = field_value(facts, record, "source")
    locator = field_value(facts, record, "locator")
    if source is not None and field_value(facts, record, "importedBy") is not None:
        items.append(upstream_item(facts, record, source, locator, licence))
    elif source is not None:
        items.append(source_item(facts, source, locator))
    item = record_item(facts, record, release, accessed)
    item["custom"] = licence_fields(licence)
    # The derived standing the closure holds (none for a current claim): CSL's "status"
    # (as "retracted" or "in press"); the words go in the note, which BibTeX and RIS carry.
    standing = facts.one(record, KG.standing)
    if standing is not None:
        item["status"] = standing.value.rsplit("#", 1)[-1]
        item["note"] = f"Standing in claimgraph: {facts.text(record, KG.standingSummary)}"
    meaning = meant_text(facts, record)  # a printed value that stands for no value
    if meaning:
        item["note"] = "; ".join(filter(None, [item.get("note"), f"Value: {meaning}"]))
    items.append(item)
    return items


def source_item(facts: Facts, node: Term, locator: Term | None = None) -> CslItem:
    """A source document as a CSL item; with ``locator``, the place cited in it."""
    f = facts
    csl_type = f.concept(field_value(f, node, "documentType"), KG.cslType) or "document"
    item: CslItem = {
        "id": f.text(node, DCTERMS.identifier) or _local(node),
        "type": csl_type,
        "title": f.text(node, DCTERMS.title),
    }
    authors = [
        {k: v for k, v in (("family", family), ("given", given)) if v}
        for family, given in creators(f, node)
    ]
    if authors:
        item["author"] = authors
    issued = field_text(f, node, "issued")
    if issued:
        item["issued"] = {"date-parts": [[int(p) for p in issued.split("-")]]}
    venue = field_text(f, node, "venue")
    if venue:
        item[VENUE_VARIABLE.get(csl_type, "publisher")] = venue
    doi = field_text(f, node, "doi")
    if doi:
        item["DOI"] = doi
    url = field_text(f, node, "landingPage") or field_text(f, node, "pdfUrl")
    if url:
        item["URL"] = url
    if locator is not None:
        for key, label in LOCATOR_LABELS:
            value = f.text(locator, KG[key])
            if value:
                item["locator"] = value
                item["custom"] = {"label": label}
                break
        wording = f.text(locator, RDFS.label)
        if wording:
            item["note"] = f"Cited at: {wording}"
    return item


def upstream_item(
    facts: Facts, record: Term, source: Term, locator: Term | None, licence: Licence
) -> CslItem:
    """The result an import brought, as its upstream publishes it: a CSL ``dataset`` by the
    source's organisation, titled by the metric, the model and the leaderboard."""
    f = facts
    board = field_text(f, source, "title")
    organisation = field_text(f, source, "publisher") or board
    model = field_text(f, record, "model")
    metric = field_text(f, record, "metricLabel") or field_text(f, record, "metric")
    item: CslItem = {
        "id": f"{field_text(f, source, 'id') or _local(source)}-{_local(record)}",
        "type": "dataset",
        "title": f"{metric} score of {model} on {board}",
        "author": [{"literal": organisation}],
        "publisher": organisation,
    }
    url = field_text(f, source, "landingPage") or upstream_file_url(f, record)
    if url:
        item["URL"] = url
    retrieved = field_text(f, record, "retrievedAt")
    if retrieved:
        item["accessed"] = {"date-parts": [[int(p) for p in retrieved[:10].split("-")]]}
    wording = f.text(locator, RDFS.label) if locator is not None else ""
    if wording:
        item["note"] = f"Cited at: {wording}"
    item["custom"] = licence_fields(licence)
    return item


def upstream_file_url(facts: Facts, record: Term) -> str:
    """The web page of the kept file a record was read from, in its origin repository at
    the imported commit (GitHub's), or "" where the origin is not on GitHub."""
    repository = field_text(facts, record, "originRepository")
    commit = field_text(facts, record, "originCommit")
    path = field_text(facts, record, "upstreamPath")
    if repository and commit and path and repository.startswith("https://github.com/"):
        return f"{repository}/blob/{commit}/{path}"
    return ""


def licence_fields(licence: Licence) -> dict[str, str]:
    """An item's ``custom`` keys for its licence: its IRI (when one is stated), its name."""
    return {**({"license": licence.iri} if licence.stated else {}), "license-name": licence.label}


def record_item(
    facts: Facts, record: Term, release: ReleaseInfo | None, accessed: dt.date
) -> CslItem:
    """The registry entry of a record as a CSL ``dataset`` item, in ``release`` if any."""
    item: CslItem = {
        "id": facts.text(record, DCTERMS.identifier) or _local(record),
        "type": "dataset",
        "title": facts.text(record, DCTERMS.title),
        # the registry as the entry's group author and publisher, as data sets are cited
        "author": [{"literal": PUBLISHER}],
        "publisher": PUBLISHER,
        "URL": record.value if isinstance(record, ox.NamedNode) else "",
        "accessed": {"date-parts": [[accessed.year, accessed.month, accessed.day]]},
    }
    if release is not None:
        item["version"] = release.id
        item["issued"] = {"date-parts": [[int(p) for p in release.issued[:10].split("-")]]}
    return item


def creators(facts: Facts, node: Term) -> list[tuple[str, str]]:
    """A source's authors in order, as (family name, given names)."""
    people = sorted(
        facts.all(node, DCTERMS.creator), key=lambda a: int(facts.text(a, KG.position) or 0)
    )
    return [(facts.text(a, SCHEMA.familyName), facts.text(a, SCHEMA.givenName)) for a in people]


def _local(node: Term) -> str:
    return node.value.rsplit("/", 1)[-1]
