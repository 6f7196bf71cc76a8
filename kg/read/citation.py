"""What citation tools and search engines read from a page: Highwire tags and schema.org."""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from .closure import SourceView
from .record import RecordView


def citation_meta(source: SourceView | None) -> list[tuple[str, str]]:
    """Highwire ``citation_*`` meta tags for a source: the tags Zotero reads."""
    if source is None:
        return []
    tags = [("citation_title", source.title)]
    tags += [("citation_author", author) for author in source.authors]
    if source.date:
        tags.append(("citation_publication_date", source.date.replace("-", "/")))
    if source.venue:
        tags.append(("citation_conference_title", source.venue))
    if source.pdf_url:
        tags.append(("citation_pdf_url", source.pdf_url))
    return tags


def schema_org(view: RecordView, root: str) -> Markup:
    """The record as schema.org JSON-LD for a ``<script type="application/ld+json">``."""
    data: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "Dataset",
        "@id": view.iri,
        "name": view.title,
        "identifier": view.id,
        "url": root.rstrip("/") + f"/record/{view.id}",
        "variableMeasured": {
            "@type": "PropertyValue",
            "name": view.metric_label,
            # a printed value that stands for none is no number: its words instead
            "value": view.meant or view.numeric,
            "unitText": view.unit_symbol or view.unit.text,
            "description": view.qualifier,
        },
    }
    source = view.quoted_from
    if source is not None:
        data["citation"] = {
            "@type": "ScholarlyArticle",
            "name": source.title,
            "author": [{"@type": "Person", "name": a} for a in source.authors],
            "datePublished": source.date,
            **({"url": source.pdf_url} if source.pdf_url else {}),
        }
    # Inside <script> the HTML parser looks for "</script" and treats "<!--" specially: with
    # "<", ">" and "&" written as JSON escapes no value can end or derail the element.
    text = json.dumps(data, ensure_ascii=False, indent=1)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escape)
    return Markup(text)
