"""The record and source that ``kg verify``'s tests check synthetic PDFs against."""

from __future__ import annotations

from pathlib import Path

import yaml

from bench.pdfgen import SENTENCE

RECORD = "test-nt-peak-memory"
SOURCE = "test-synthetic-paper"


def write_data(
    data: Path,
    pinned: str | None,
    *,
    record: str = RECORD,
    source: str = SOURCE,
    page: str | None = "6",
    quote: str | None = SENTENCE,
    printed: str = "11.49",
) -> Path:
    """A test record and its source, whose artifact pins ``pinned`` (no artifact: None)."""
    (data / "records").mkdir(parents=True, exist_ok=True)
    (data / "sources").mkdir(exist_ok=True)
    artifact = f'artifact:\n  sha256: {pinned}\n  page_count: "11"\n' if pinned else ""
    (data / "sources" / f"{source}.yaml").write_text(
        f"kind: source\nid: {source}\ndocument_type: paper\n"
        f"title: A synthetic test paper ({source})\n{artifact}"
    )
    (data / "records" / f"{record}.yaml").write_text(
        yaml.safe_dump(
            {
                "kind": "record",
                "id": record,
                "title": f"Peak memory of NT 2.5B (synthetic test record {record})",
                "source": source,
                "metric": "peak-memory",
                "metric_direction": "lower",
                "printed_value": printed,
                "numeric_value": printed,
                "unit": "gigabyte",
                "evidence_kind": "independent-external-evaluation",
                "review_status": "unreviewed",
                "tested_configuration": {"model": "NT 2.5B"},
                "locator": {
                    k: v
                    for k, v in (
                        ("text", f"page {page}: '{quote}'"),
                        ("page", page),
                        ("quote", quote),
                    )
                    if v is not None
                },
            },
            allow_unicode=True,
            sort_keys=False,
        )
    )
    return data
