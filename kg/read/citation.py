"""What citation tools and search engines read from a page: Highwire tags and schema.org.

Both are written from what the citation exports say (:mod:`kg.export.citations`: the CSL
items of a record or source), so a page, its BibTeX and its schema.org block name the same
authors, title, dates and licence. The licence is derived (:mod:`kg.model.licences`).
"""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from ..export.citations import CslItem
from ..model.licences import Licence
from ..rdf.formats import media_type_of
from ..store.licences import Part
from .record import RecordView

#: The registry, as it publishes its records (schema.org's publisher and catalogue).
REGISTRY = "claimgraph"


def citation_meta(
    item: CslItem | None, licence: Licence | None = None, pdf_url: str = ""
) -> list[tuple[str, str]]:
    """Highwire ``citation_*`` meta tags (the tags Zotero and Google Scholar read) of the
    work a page cites, a CSL item: a source document, or the upstream's result of an
    imported record; ``licence`` adds ``DC.rights``."""
    if item is None:
        return []
    tags = [("citation_title", item.get("title", ""))]
    tags += [("citation_author", _name(a)) for a in item.get("author", [])]
    issued = _date(item, "issued")
    if issued:
        tags.append(("citation_publication_date", issued))
    accessed = _date(item, "accessed")
    if accessed:  # an upstream's result: the day it was seen published
        tags.append(("citation_online_date", accessed))
    venue = item.get("container-title")
    if venue:
        kind = "journal" if item.get("type") == "article-journal" else "conference"
        tags.append((f"citation_{kind}_title", venue))
    for key, tag in (("publisher", "citation_publisher"), ("DOI", "citation_doi")):
        if item.get(key):
            tags.append((tag, item[key]))
    if item.get("URL"):
        tags.append(("citation_public_url", item["URL"]))
    if pdf_url:
        tags.append(("citation_pdf_url", pdf_url))
    if licence is not None:
        tags.append(("DC.rights", licence.iri or licence.label))
    return tags


def schema_org(
    view: RecordView,
    root: str,
    items: list[CslItem],
    licence: Licence,
    downloads: dict[str, str],
) -> Markup:
    """The record as a schema.org ``Dataset`` in JSON-LD, for a ``<script
    type="application/ld+json">``: its name, description, creator (the cited work's
    authors), licence (derived), its downloads (``downloads``: format name -> path) and the
    registry's catalogue it is part of."""
    site = root.rstrip("/")
    cited = items[0] if len(items) > 1 else None
    data: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "Dataset",
        "@id": view.iri,
        "name": view.title,
        "description": _description(view, cited),
        "identifier": view.id,
        "url": f"{site}/record/{view.id}",
        "creator": [_agent(a) for a in (cited or items[-1]).get("author", [])],
        "publisher": {"@type": "Organization", "name": REGISTRY, "url": f"{site}/"},
        "isAccessibleForFree": True,
        "isPartOf": catalog_ref(root),
        "includedInDataCatalog": catalog_ref(root),
        "distribution": [
            {
                "@type": "DataDownload",
                "encodingFormat": media_type_of(name),
                "contentUrl": f"{site}{path}",
            }
            for name, path in downloads.items()
        ],
        "variableMeasured": {
            "@type": "PropertyValue",
            "name": view.metric_label,
            # a printed value that stands for none is no number: its words instead
            "value": view.meant or view.numeric,
            "unitText": view.unit_symbol or view.unit.text,
            "description": view.qualifier,
        },
    }
    if licence.stated:
        data["license"] = licence.iri
    else:  # no licence to name: say so rather than leave a reader guessing
        data["copyrightNotice"] = licence.label
    if cited is not None:
        data["citation"] = {
            "@type": "Dataset" if cited.get("type") == "dataset" else "ScholarlyArticle",
            "name": cited.get("title", ""),
            "author": [_agent(a) for a in cited.get("author", [])],
            **({"datePublished": _date(cited, "issued", "-")} if "issued" in cited else {}),
            **({"url": cited["URL"]} if cited.get("URL") else {}),
        }
    return json_script(data)


def catalog(root: str, found: list[Part]) -> Markup:
    """The registry as a schema.org ``DataCatalog``, for the index page: its parts
    (:func:`kg.store.licences.parts`) are its datasets, each with its licence."""
    site = root.rstrip("/")
    records = sum(part.records for part in found)
    data = {
        "@context": "https://schema.org",
        **catalog_ref(root),
        "description": (
            "Published research results as records: each claim with its source document and "
            "the place in it, the reviews that checked it, reproduction runs and its standing, "
            f"as PROV-O; {records} records, each a Dataset of this catalogue."
        ),
        "publisher": {"@type": "Organization", "name": REGISTRY, "url": f"{site}/"},
        "dataset": [
            {
                "@type": "Dataset",
                "name": part.title,
                "description": part.covers,
                **({"license": part.licence.iri} if part.licence.stated else {}),
                **({"copyrightNotice": part.licence.label} if not part.licence.stated else {}),
            }
            for part in found
        ],
    }
    return json_script(data)


def catalog_ref(root: str) -> dict[str, str]:
    """The registry's ``DataCatalog`` node (its name and URL), as records refer to it."""
    site = root.rstrip("/")
    return {"@type": "DataCatalog", "@id": f"{site}/", "name": REGISTRY, "url": f"{site}/"}


def json_script(data: dict[str, Any]) -> Markup:
    """``data`` as JSON that can stand inside ``<script>``."""
    # Inside <script> the HTML parser looks for "</script" and treats "<!--" specially: with
    # "<", ">" and "&" written as JSON escapes no value can end or derail the element.
    text = json.dumps(data, ensure_ascii=False, indent=1)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escape)
    return Markup(text)


def _description(view: RecordView, cited: CslItem | None) -> str:
    value = " ".join(p for p in (view.display, view.unit_symbol or view.unit.text) if p)
    told = f" Cited from: {cited.get('title', '')}." if cited else ""
    return (
        f"{view.title}: {value}.{told} A record of the claimgraph registry: the claim as "
        "published, its source and the place in it, the reviews that checked it and its "
        "reproduction runs, as PROV-O."
    )


def _name(name: dict[str, str]) -> str:
    return name.get("literal") or " ".join(p for p in (name.get("given"), name.get("family")) if p)


def _agent(name: dict[str, str]) -> dict[str, str]:
    kind = "Organization" if "literal" in name else "Person"
    return {"@type": kind, "name": _name(name)}


def _date(item: CslItem, key: str, sep: str = "/") -> str:
    parts = item.get(key, {}).get("date-parts", [[]])[0]
    return sep.join(f"{p:02d}" if i else str(p) for i, p in enumerate(parts))
