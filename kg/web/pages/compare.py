"""Records side by side, ``/compare?record=ID&record=ID...``: field by field, the fields
that differ marked; ``/compare.csv`` the same as a table."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from flask import Response, url_for

from ...errors import NotFoundError, UsageError
from ...rdf.formats import media_type_of
from ...read.compare import Comparison, compare_records
from ..http.request_rules import params
from ..state import state
from .answers import MOST_COMPARED, render_page, respond


@dataclass(frozen=True)
class ComparePage:
    """What ``compare.html`` shows."""

    c: Comparison
    ids: list[str]
    csv_url: str


@dataclass(frozen=True)
class ComparePick:
    """What ``compare_pick.html`` shows: a selection compare cannot take."""

    ids: list[str]
    most: int


def compare(suffix: str | None = None) -> Response:
    if suffix not in (None, "csv"):
        raise NotFoundError(f"no comparison format {suffix!r} (csv)")
    ids = [i for i in dict.fromkeys(params().getlist("record")) if i]
    if not 2 <= len(ids) <= MOST_COMPARED and suffix is None:
        # a page that says how to pick, with what was picked, not a bare error
        answer = render_page("compare_pick.html", ComparePick(ids, MOST_COMPARED))
        answer.status_code = 400
        return answer
    if not 2 <= len(ids) <= MOST_COMPARED:
        raise UsageError(
            f"a comparison takes 2 to {MOST_COMPARED} records "
            f"(?record=ID&record=ID...; got {len(ids)})"
        )
    app = state()
    comparison = compare_records(app.registry(), ids, app.terms.graph)
    if suffix == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["field", *ids, "differs"])
        for line in comparison.lines:
            writer.writerow([line.label, *line.values, "yes" if line.differs else ""])
        return respond(out.getvalue(), media_type_of("csv"))
    csv_url = url_for("compare", suffix="csv", record=ids)
    return render_page("compare.html", ComparePage(comparison, ids, csv_url))
