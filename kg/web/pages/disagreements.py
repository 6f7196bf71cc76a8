"""``/disagreements``: the quantities (a model on a benchmark) that records report more than
once with different values, paged."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from flask import Response

from ...read.boards import Disagreement
from ...store.index.board_reads import DISAGREEMENT_FILTERS
from ..http.request_rules import int_param, params, with_changes
from ..state import state
from .answers import node_path, record_href, render_page

DISAGREEMENTS_PAGE = 50
#: How many values a filter offers (the most frequent; the chosen one too).
CHOICES_SHOWN = 100


@dataclass(frozen=True)
class DisagreementsPage:
    """What ``disagreements.html`` shows."""

    found: list[Disagreement]
    total: int
    start: int
    page_size: int
    node_path: Callable[[str], str]
    record_href: Callable[[Any], str]
    #: the filters chosen, what each offers (value, label, quantities) and how many it has
    filters: dict[str, str]
    offered: dict[str, list[tuple[str, str, int]]]
    sizes: dict[str, int]
    link: Callable[..., str]


def disagreements() -> Response:
    catalog = state().catalog
    boards = catalog.boards
    filters = {name: params().get(name, "") for name in DISAGREEMENT_FILTERS}
    filters = {name: value for name, value in filters.items() if value}
    total = boards.disagreement_count(filters)
    start = int_param("start", 0, 0, max(total, 0))
    choices = boards.disagreement_choices()
    offered = {}
    for name, values in choices.items():
        shown = values[:CHOICES_SHOWN]
        chosen = filters.get(name)
        if chosen and all(v != chosen for v, _ in shown):
            shown += [(v, n) for v, n in values if v == chosen] or [(chosen, 0)]
        labels = catalog.index.labels(name, [v for v, _ in shown]) if name != "developer" else {}
        offered[name] = [(v, labels.get(v) or v, n) for v, n in shown]
    context = DisagreementsPage(
        found=boards.disagreements(start, DISAGREEMENTS_PAGE, filters),
        total=total,
        start=start,
        page_size=DISAGREEMENTS_PAGE,
        node_path=node_path,
        record_href=record_href,
        filters=filters,
        offered=offered,
        sizes={name: len(values) for name, values in choices.items()},
        link=lambda **changes: "?" + urlencode(with_changes(filters, **changes)),
    )
    return render_page("disagreements.html", context)
