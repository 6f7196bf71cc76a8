"""A source's suite, ``/source/<id>/suite``: its submissions side by side, a column per
benchmark, any column sortable (``?sort=``), paged (``?page=``); as CSV and JSON
(``/source/<id>/suite.csv``, ``.json``) for the page shown."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from flask import Response, url_for

from ...errors import NotFoundError
from ...kinds import minted_iri
from ...rdf.formats import media_types
from ...read.suite import SUITE_PAGE, Suite, column_key, read_suite
from ..http.request_rules import params
from ..state import state
from .answers import node_path, page_count, paged_link, paging, render_page, respond

FORMATS = dict(zip(("csv", "json"), media_types("csv", "json"), strict=True))


@dataclass(frozen=True)
class SuitePage:
    """What ``suite.html`` shows."""

    suite: Suite
    page: int
    pages: int
    link: Any
    path: Any
    column_key: Any
    record_href: Any


def suite(ident: str, fmt: str | None = None) -> Response:
    if fmt is not None and fmt not in FORMATS:
        raise NotFoundError(f"no suite format {fmt!r} ({', '.join(FORMATS)})")
    app = state()
    source = minted_iri(app.settings.base, "source", ident)
    page, limit = paging(SUITE_PAGE)
    found = read_suite(
        app.catalog.index, source, params().get("sort", ""), (page - 1) * limit, limit
    )
    pages = page_count(found.total, limit, page, "this suite")

    def link(suffix: str | None = None, **changes: object) -> str:
        base = (
            url_for("suite", ident=ident, fmt=suffix) if suffix else url_for("suite", ident=ident)
        )
        args = {"sort": found.sort, "page": page, "limit": limit, **changes}
        return paged_link(base, args, SUITE_PAGE)

    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["model", "submission", *(c.heading for c in found.columns)])
        for s in found.submissions:
            cells = [
                s.cells[c.benchmark].printed if c.benchmark in s.cells else ""
                for c in found.columns
            ]
            writer.writerow([s.model, s.key, *cells])
        return respond(out.getvalue(), FORMATS["csv"])
    if fmt == "json":
        body = {
            "source": source,
            "title": found.title,
            "sort": found.sort,
            "total": found.total,
            "page": page,
            "pages": pages,
            "columns": [
                {
                    "benchmark": c.benchmark,
                    "heading": c.heading,
                    "key": column_key(c),
                    "rows": c.rows,
                }
                for c in found.columns
            ],
            "submissions": [
                {
                    "model": s.model,
                    "submission": s.key,
                    "results": {
                        column_key(c): {
                            "record": s.cells[c.benchmark].id,
                            "value": s.cells[c.benchmark].printed,
                            "value_note": s.cells[c.benchmark].meant,
                            "rank": s.cells[c.benchmark].rank,
                        }
                        for c in found.columns
                        if c.benchmark in s.cells
                    },
                }
                for s in found.submissions
            ],
            "next": link(page=page + 1, suffix="json") if page < pages else None,
        }
        return respond(json.dumps(body, ensure_ascii=False, indent=1), FORMATS["json"])
    context = SuitePage(
        found, page, pages, link, node_path, column_key, lambda i: f"/record/{quote(i, safe='')}"
    )
    return render_page("suite.html", context)
