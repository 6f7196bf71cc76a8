"""The pages of what many records say together: a benchmark's leaderboard (with its table as
CSV, JSON and JSON-LD), a model's results, the comparison of records, the disagreements.

They read the live catalogue's rows (``kg/web/views/board.py``), not the store: a
leaderboard of thousands of rows is a filter and a slice of rows already in memory. A page
of a release (``?release=``), and any RDF of a benchmark or a model, is the node's own page
(``kg/web/browse.py``).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any
from urllib.parse import quote

from flask import Blueprint, Response, render_template, request, url_for

from ..errors import NotFoundError, UsageError
from ..kinds import minted_iri
from ..rdf.formats import RDF_SYNTAXES, media_type_of, media_types
from ..rdf.jsonld import context
from ..rdf.negotiation import negotiate, split_suffix
from .browse import resource, respond
from .request_rules import int_param, params, with_changes
from .state import state
from .views.base import path_of
from .views.board import BOARD_FACETS, BoardFilter, BoardView, Ranked
from .views.chart import ModelPoint, board_chart, model_chart
from .views.compare import compare_records

boards = Blueprint("boards", __name__)

HTML = media_type_of("html")
PAGE_OFFERED = media_types("html", *RDF_SYNTAXES)
#: Rows of a leaderboard's table per page (the chart shows them all).
BOARD_PAGE = 100
TABLE_FORMATS = dict(
    zip(("csv", "json", "jsonld"), media_types("csv", "json", "jsonld"), strict=True)
)
TABLE_COLUMNS = (
    "rank",
    "tied",
    "model",
    "model_rows",
    "printed_value",
    "value",
    "record",
    "id",
    "source",
    "source_title",
    "evaluation",
    "evaluator_relationship",
    "developer",
    "params_billions",
    "precision",
    "review_status",
    "verification",
    "standing",
)
#: How many records a comparison takes.
MOST_COMPARED = 12
DISAGREEMENTS_PAGE = 50


def record_href(row) -> str:
    return f"/record/{quote(row.id, safe='')}"


def node_path(iri: str) -> str:
    return path_of(iri, state().settings.base)


def _html_wanted(name: str) -> bool:
    """Whether ``/benchmark/NAME`` (or ``/model/NAME``) asks for the page, not the node's RDF."""
    if params().get("release"):
        return False
    suffix = split_suffix(name)[1]
    return (
        negotiate(request.headers.get("Accept"), PAGE_OFFERED, suffix or params().get("format"))
        == HTML
    )


@boards.get("/benchmark/<path:name>")
def benchmark(name: str) -> Response:
    if not _html_wanted(name):
        return resource("benchmark", name)
    board, _ = _board(name)
    args = board.filter.args()
    current = params().get("record", "")
    current_iri = minted_iri(state().settings.base, "record", current) if current else ""
    # A link to one record on the board opens the page of the table that holds it.
    place = next((i for i, r in enumerate(board.shown) if r.row.record == current_iri), 0)
    start = int_param("start", place - place % BOARD_PAGE, 0, max(len(board.shown), 0))
    page = board.shown[start : start + BOARD_PAGE]
    return respond(
        render_template(
            "benchmark.html",
            b=board,
            page=page,
            start=start,
            page_size=BOARD_PAGE,
            chart=board_chart(
                board.shown, board.label, board.lower_is_better, current_iri, record_href
            ),
            facet_titles={k: v[0] for k, v in BOARD_FACETS.items()},
            args=args,
            current=current,
            with_args=lambda **changes: with_changes(args, **changes),
            node_path=node_path,
            record_href=record_href,
            formats=TABLE_FORMATS,
        ),
        HTML,
    )


@boards.get("/benchmark/<ident>/leaderboard.<fmt>")
def benchmark_table(ident: str, fmt: str) -> Response:
    if fmt not in TABLE_FORMATS:
        raise NotFoundError(f"no leaderboard format {fmt!r} ({', '.join(TABLE_FORMATS)})")
    board, iri = _board(ident)
    rows = [_table_row(r) for r in board.shown]
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=TABLE_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
        return respond(out.getvalue(), TABLE_FORMATS[fmt])
    if fmt == "json":
        body = {
            "benchmark": iri,
            "label": board.label,
            "lower_is_better": board.lower_is_better,
            "filter": board.filter.args(),
            "total": len(board.shown),
            "rows": rows,
        }
        return respond(json.dumps(body, ensure_ascii=False, indent=1), TABLE_FORMATS[fmt])
    return respond(
        json.dumps(_jsonld(board, iri), ensure_ascii=False, indent=1), TABLE_FORMATS[fmt]
    )


def _board(name: str) -> tuple[BoardView, str]:
    ident = split_suffix(name)[0]
    iri = minted_iri(state().settings.base, "benchmark", ident)
    board = state().catalog.boards.board(iri, BoardFilter.from_args(params()))
    if board is None:
        raise NotFoundError(f"no benchmark {ident!r}")
    return board, iri


def _table_row(entry: Ranked) -> dict[str, Any]:
    row = entry.row
    return {
        "rank": entry.rank,
        "tied": entry.tied,
        "model": row.model,
        "model_rows": entry.model_rows,
        "printed_value": row.printed,
        "value": str(row.value) if row.value is not None else None,
        "record": row.record,
        "id": row.id,
        "source": row.source,
        "source_title": row.source_title,
        "evaluation": row.evaluation,
        "evaluator_relationship": row.evaluator_label,
        "developer": row.developer,
        "params_billions": row.params,
        "precision": row.precision,
        "review_status": row.status_label,
        "verification": row.verification_label,
        "standing": row.standing,
    }


def _jsonld(board: BoardView, iri: str) -> dict[str, Any]:
    """The table as a schema.org ``ItemList`` of the records, in our context's names."""
    items = []
    for entry in board.shown:
        row = entry.row
        item: dict[str, Any] = {
            "@id": row.record,
            "identifier": row.id,
            "title": row.title,
            "benchmark": iri,
            "quotedFrom": row.source,
            "reportedValue": {
                "printedValue": row.printed,
                **({"numericValue": str(row.value)} if row.value is not None else {}),
            },
        }
        if row.model_node:
            item["evaluatedModel"] = row.model_node
        if row.evaluation:
            item["evaluation"] = row.evaluation
        listed: dict[str, Any] = {"@type": "ListItem", "item": item}
        if entry.rank is not None:
            listed["rank"] = entry.rank
        items.append(listed)
    return {
        "@context": context(),
        "@type": "ItemList",
        "about": iri,
        "title": f"{board.label}: leaderboard",
        "numberOfItems": len(items),
        "itemListElement": items,
    }


@boards.get("/model/<path:name>")
def model(name: str) -> Response:
    if not _html_wanted(name):
        return resource("model", name)
    ident = split_suffix(name)[0]
    app = state()
    iri = minted_iri(app.settings.base, "model", ident)
    catalog_boards = app.catalog.boards
    rows = catalog_boards.by_model.get(iri)
    if not rows:
        return resource("model", name)  # a model no ranked result names: its node page
    groups: dict[str, list] = {}
    for row in sorted(rows, key=lambda r: (r.benchmark_label, r.source_title, r.id)):
        groups.setdefault(row.benchmark, []).append(row)
    sections, points = [], []
    for benchmark, members in groups.items():
        board = catalog_boards.ranked[benchmark]
        numbers = [r.row.value for r in board if r.row.value is not None]
        entries = [catalog_boards.entry[r.record] for r in members]
        sections.append(
            {
                "benchmark": benchmark,
                "label": members[0].benchmark_label,
                "size": len(board),
                "entries": entries,
            }
        )
        for entry in entries:
            if entry.row.value is not None and numbers:
                points.append(
                    ModelPoint(
                        label=f"{entry.row.benchmark_label} ({entry.row.source_title})",
                        href=record_href(entry.row),
                        value=entry.row.value,
                        printed=entry.row.printed,
                        low=min(numbers),
                        high=max(numbers),
                        rank=entry.rank,
                        of=len(board),
                        lower_is_better=entry.row.lower_is_better,
                    )
                )
    sources = sorted({r.source_title for r in rows})
    return respond(
        render_template(
            "model.html",
            ident=ident,
            iri=iri,
            sections=sections,
            sources=sources,
            rows=rows,
            chart=model_chart(points, ident),
            node_path=node_path,
            record_href=record_href,
            alternates={
                fmt: f"/model/{quote(ident, safe='')}.{fmt}" for fmt in ("ttl", "jsonld", "nt")
            },
        ),
        HTML,
    )


@boards.get("/compare")
@boards.get("/compare.<suffix>")
def compare(suffix: str | None = None) -> Response:
    if suffix not in (None, "csv"):
        raise NotFoundError(f"no comparison format {suffix!r} (csv)")
    ids = [i for i in dict.fromkeys(params().getlist("record")) if i]
    if not 2 <= len(ids) <= MOST_COMPARED:
        raise UsageError(
            f"a comparison takes 2 to {MOST_COMPARED} records "
            f"(?record=ID&record=ID...; got {len(ids)})"
        )
    app = state()
    view = compare_records(app.registry(), ids, app.terms.graph)
    if suffix == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["field", *ids, "differs"])
        for line in view.lines:
            writer.writerow([line.label, *line.values, "yes" if line.differs else ""])
        return respond(out.getvalue(), TABLE_FORMATS["csv"])
    return respond(
        render_template(
            "compare.html",
            c=view,
            ids=ids,
            csv_url=url_for("boards.compare", suffix="csv", record=ids),
        ),
        HTML,
    )


@boards.get("/disagreements")
def disagreements() -> Response:
    found = state().catalog.boards.disagreements
    start = int_param("start", 0, 0, max(len(found), 0))
    return respond(
        render_template(
            "disagreements.html",
            found=found[start : start + DISAGREEMENTS_PAGE],
            total=len(found),
            start=start,
            page_size=DISAGREEMENTS_PAGE,
            node_path=node_path,
            record_href=record_href,
        ),
        HTML,
    )


__all__ = ["boards"]
