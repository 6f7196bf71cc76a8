"""A leaderboard as a table: its columns, and its rows as CSV, JSON and JSON-LD read them.

The benchmark page offers these (``/benchmark/ID/leaderboard.csv``, ``.json``,
``.jsonld``) and ``kg board BENCHMARK --format csv|json`` prints the same.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from ..rdf.jsonld import context
from ..store.index.ranking import Ranked
from .boards import BoardView

#: The table's columns, in order.
TABLE_COLUMNS = (
    "rank",
    "tied",
    "model",
    "model_rows",
    "printed_value",
    "value",
    "value_note",
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


def table_row(entry: Ranked) -> dict[str, Any]:
    """One row of the table, by column."""
    row = entry.row
    return {
        "rank": entry.rank,
        "tied": entry.tied,
        "model": row.model,
        "model_rows": entry.model_rows,
        "printed_value": row.printed,
        "value": str(row.value) if row.value is not None else None,
        # a printed value that stands for none: "not computed (printed -1.0)", no rank
        "value_note": row.meant,
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


def table_csv(board: BoardView) -> str:
    """The board's shown rows as CSV, a header first."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=TABLE_COLUMNS)
    writer.writeheader()
    writer.writerows(table_row(r) for r in board.rows())
    return out.getvalue()


def table_json(board: BoardView, iri: str) -> str:
    """The board as JSON: the benchmark, its filter and its shown rows."""
    body = {
        "benchmark": iri,
        "label": board.label,
        "lower_is_better": board.lower_is_better,
        "filter": board.filter.args(),
        "total": board.total,
        "rows": [table_row(r) for r in board.rows()],
    }
    return json.dumps(body, ensure_ascii=False, indent=1)


def table_jsonld(board: BoardView, iri: str) -> str:
    """The table as a schema.org ``ItemList`` of the records, in our context's names."""
    items = []
    for entry in board.rows():
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
    document = {
        "@context": context(),
        "@type": "ItemList",
        "about": iri,
        "title": f"{board.label}: leaderboard",
        "numberOfItems": len(items),
        "itemListElement": items,
    }
    return json.dumps(document, ensure_ascii=False, indent=1)
