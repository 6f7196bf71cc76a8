"""``/disagreements``: the quantities (a model on a benchmark) that records report more than
once with different values, paged."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Response

from ...read.boards import Disagreement
from ..http.request_rules import int_param
from ..state import state
from .answers import node_path, record_href, render_page

DISAGREEMENTS_PAGE = 50


@dataclass(frozen=True)
class DisagreementsPage:
    """What ``disagreements.html`` shows."""

    found: list[Disagreement]
    total: int
    start: int
    page_size: int
    node_path: Callable[[str], str]
    record_href: Callable[[Any], str]


def disagreements() -> Response:
    boards = state().catalog.boards
    total = boards.disagreement_count()
    start = int_param("start", 0, 0, max(total, 0))
    context = DisagreementsPage(
        found=boards.disagreements(start, DISAGREEMENTS_PAGE),
        total=total,
        start=start,
        page_size=DISAGREEMENTS_PAGE,
        node_path=node_path,
        record_href=record_href,
    )
    return render_page("disagreements.html", context)
