"""A benchmark's leaderboard, ``/benchmark/<id>``, and its table as CSV, JSON and JSON-LD
(``/benchmark/<id>/leaderboard.<fmt>``).

It reads the version's index (:mod:`kg.read.boards`), not the store: a page of a leaderboard
of 100,000 rows reads its counts and the rows it shows, never the whole board. A page of a release
(``?release=``), and any RDF of a benchmark, is the node's own page (:mod:`.node`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Response
from markupsafe import Markup

from ...errors import NotFoundError, UsageError
from ...kinds import minted_iri
from ...rdf.formats import media_types
from ...read.boards import BOARD_FACETS, BoardFilter, BoardView
from ...read.chart import board_chart, ranks_per_bar
from ...read.leaderboard import table_csv, table_json, table_jsonld
from ...store.index.board_reads import BOARD_ORDERS
from ...store.index.ranking import Ranked
from ..http.documents import as_document, node_stem
from ..http.request_rules import int_param, params, with_changes
from ..state import state
from .answers import (
    HTML,
    MOST_COMPARED,
    html_wanted,
    node_name,
    node_path,
    record_href,
    render_page,
    respond,
)
from .node import node

#: Rows of a leaderboard's table per page (the chart shows them all).
BOARD_PAGE = 100
TABLE_FORMATS = dict(
    zip(("csv", "json", "jsonld"), media_types("csv", "json", "jsonld"), strict=True)
)


@dataclass(frozen=True)
class BenchmarkPage:
    """What ``benchmark.html`` shows."""

    b: BoardView
    page: list[Ranked]
    start: int
    page_size: int
    chart: Markup | str
    #: how many neighbouring ranks one bar of the chart stands for (1: a bar a row)
    per_bar: int
    facet_titles: dict[str, str]
    args: dict[str, str]
    current: str
    with_args: Callable[..., dict[str, str]]
    node_path: Callable[[str], str]
    record_href: Callable[[Any], str]
    formats: dict[str, str]
    #: the jump asked for: a model's name (or part of it) and a rank (0: none)
    find: str
    #: the model asked for that no admitted row has ("" when found or not asked)
    missing: str
    rank: int
    #: the table's order (``?sort=``: a column of :data:`COLUMNS`, ``-`` for the other way)
    sort: str
    columns: tuple[tuple[str, str], ...]
    #: what the caption says of a sort other than by rank
    sort_heading: str
    #: the records ticked for comparison on earlier pages (``?keep=N&record=...``: the page
    #: from place N, the ``record`` values ticked rather than marked)
    ticked: list[str]


#: The table's sortable columns: (``?sort=`` name, heading), in the table's order.
COLUMNS = (
    ("rank", "Rank"),
    ("model", "Model"),
    ("rank", "Value"),
    ("source", "Source"),
    ("evaluator", "Evaluator"),
    ("params", "Parameters (B)"),
    ("precision", "Precision"),
    ("review", "Review / check"),
    ("standing", "Standing"),
)


def _sort() -> str:
    sort = params().get("sort", "") or "rank"
    if sort.removeprefix("-") not in BOARD_ORDERS:
        names = ", ".join(BOARD_ORDERS)
        raise UsageError(f"?sort= takes one of {names}, or one of them after - (got {sort!r})")
    return sort


def _sort_heading(sort: str) -> str:
    name = sort.removeprefix("-")
    if name == "rank":
        return "rank, worst first"
    heading = next(h for key, h in COLUMNS if key == name)
    return f"{heading}, descending" if sort.startswith("-") else heading


def benchmark(name: str) -> Response:
    ident, suffix = node_name("benchmark", name)
    if not html_wanted(suffix):
        return node("benchmark", name)
    board, _ = _board(ident)
    sort = _sort()
    args = board.filter.args()
    # the page's links keep its order; the filters, the jumps and the formats do not need it
    kept = {**args, **({"sort": sort} if sort != "rank" else {})}
    # "Next ranks, keeping the ticked records": the compare form sent to the board itself
    keeping = params().get("keep", "") != ""
    ticked = [i for i in dict.fromkeys(params().getlist("record")) if i] if keeping else []
    ticked = ticked[:MOST_COMPARED]
    current = "" if keeping else params().get("record", "")
    current_iri = minted_iri(state().settings.base, "record", current) if current else ""
    # a jump: to a model's best row (?find=), or to a rank (?rank=)
    find = params().get("find", "").strip()
    missing = ""
    if sort != "rank":
        find = ""  # a jump is to a place in rank order (its form drops the sort)
    if find and not current:
        found = board.find_model(find)
        if found is None:
            missing = find
        else:
            current_iri, current = found
    # A link to one record on the board opens the page of the table that holds it.
    place = board.place(current_iri) if current_iri else None
    rank = int_param("rank", 0, 1, max(board.size, 1)) if params().get("rank") else 0
    at = place or (board.place_of_rank(rank) if rank else 0)
    if sort != "rank":
        at = 0
    start = int_param("keep" if keeping else "start", at - at % BOARD_PAGE, 0, max(board.total, 0))
    bars = board.bars(place)
    context = BenchmarkPage(
        b=board,
        page=board.page(start, BOARD_PAGE, sort),
        start=start,
        page_size=BOARD_PAGE,
        chart=board_chart(bars, board.label, board.lower_is_better, record_href),
        per_bar=ranks_per_bar(len(bars.values)),
        facet_titles={k: v[0] for k, v in BOARD_FACETS.items()},
        args=args,
        current=current,
        with_args=lambda **changes: with_changes(kept, **changes),
        node_path=node_path,
        record_href=record_href,
        formats=TABLE_FORMATS,
        find=find,
        missing=missing,
        rank=rank,
        sort=sort,
        columns=COLUMNS,
        sort_heading=_sort_heading(sort),
        ticked=ticked,
    )
    return as_document(
        render_page("benchmark.html", context),
        node_stem("benchmark", ident),
        HTML,
    )


def benchmark_table(ident: str, fmt: str) -> Response:
    if fmt not in TABLE_FORMATS:
        raise NotFoundError(f"no leaderboard format {fmt!r} ({', '.join(TABLE_FORMATS)})")
    board, iri = _board(ident)
    if fmt == "csv":
        return respond(table_csv(board), TABLE_FORMATS[fmt])
    if fmt == "json":
        return respond(table_json(board, iri), TABLE_FORMATS[fmt])
    return respond(table_jsonld(board, iri), TABLE_FORMATS[fmt])


def _board(ident: str) -> tuple[BoardView, str]:
    iri = minted_iri(state().settings.base, "benchmark", ident)
    board = state().catalog.boards.board(iri, BoardFilter.from_args(params()))
    if board is None:
        raise NotFoundError(f"no benchmark {ident!r}")
    return board, iri
