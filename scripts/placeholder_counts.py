"""Count what the rules of "What a source meant" match in an Every Eval Ever snapshot, and
the evidence they rest on (docs/imports.md reports these figures).

    python scripts/placeholder_counts.py [SOURCE ...]

SOURCE is the snapshot archive, its folder or folders in it, as ``kg import`` reads them;
the default is the snapshot beside the checkout (../shared/datasets/every-eval-ever/). It
prints, as Markdown: the results each rule of
``kg/model/upstream/every_eval_ever/meanings.yaml`` matches, by source; the scores outside
their metric's declared range that no rule explains; and the survey the rules come from:
every negative score, every zero, the marker HELM writes beside a score it did not
compute ("No matching runs"), the null scores inside results' details, and how
RewardBench's Score treats a Prior Sets of 0, by source.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg.model.upstream.every_eval_ever import meanings  # noqa: E402
from kg.model.upstream.every_eval_ever.identity import RESULTS_ROOT  # noqa: E402
from kg.model.upstream.jsondoc import JsonNumber, loads  # noqa: E402
from kg.model.upstream.sources import read_sources  # noqa: E402

ARCHIVE = (
    ROOT.parent / "shared" / "datasets" / "every-eval-ever" / "every-eval-ever-d9be34d6.tar.gz"
)
#: What HELM writes in a result's details where it has no run to take a score from.
NO_RUNS = "No matching runs"


def survey(sources: list[Path]) -> dict[str, Counter]:
    """The counts, by table: rule matches, out of range, negatives, zeros, markers."""
    tables: dict[str, Counter] = {
        name: Counter()
        for name in ("results", "rules", "outside", "negative", "zero", "marker", "nested", "prior")
    }
    for item in read_sources(sources, RESULTS_ROOT).files.values():
        doc = loads(item.raw)
        if not isinstance(doc, dict):
            continue
        source = meanings.source_name(doc)
        for result in doc.get("evaluation_results") or []:
            _count(tables, source, result)
        if source == "RewardBench":
            _prior_sets(tables["prior"], doc)
    return tables


#: RewardBench's sections that its Score averages, and the one it weighs in at one half.
SECTIONS, PRIOR = ("Chat", "Chat Hard", "Safety", "Reasoning"), "Prior Sets (0.5 weight)"


def _prior_sets(table: Counter, doc: dict[str, Any]) -> None:
    """Whether a RewardBench file's Score is the plain mean of its four sections or weighs
    Prior Sets in at one half, by whether Prior Sets is printed as 0."""
    scores = {
        r.get("evaluation_name"): r["score_details"]["score"] for r in doc["evaluation_results"]
    }
    if PRIOR not in scores or not all(name in scores for name in (*SECTIONS, "Score")):
        return
    four = sum(scores[name] for name in SECTIONS)
    plain, weighted = four / 4, (four + scores[PRIOR] / 2) / Decimal("4.5")
    closer = abs(scores["Score"] - plain) <= abs(scores["Score"] - weighted)
    table[
        (
            f"Prior Sets {'0' if scores[PRIOR] == 0 else 'a number'}",
            "plain mean of four" if closer else "Prior Sets weighed in",
        )
    ] += 1


def _count(tables: dict[str, Counter], source: str, result: dict[str, Any]) -> None:
    metric = result.get("evaluation_name", "")
    details = result.get("score_details") or {}
    score = details.get("score")
    tables["results"][source] += 1
    rule = meanings.placeholder(source, result)
    if rule is not None:
        tables["rules"][(rule.id, source)] += 1
    elif meanings.outside_range(result) is not None:
        tables["outside"][(source, metric, getattr(score, "lexeme", str(score)))] += 1
    if isinstance(score, JsonNumber) and score < 0:
        tables["negative"][(source, metric, score.lexeme)] += 1
    if isinstance(score, JsonNumber) and score == 0:
        tables["zero"][(source, metric, score.lexeme)] += 1
    said = (details.get("details") or {}).get("description")
    if said == NO_RUNS:
        tables["marker"][(source, getattr(score, "lexeme", str(score)))] += 1
    for inner in (details.get("details") or {}).values():  # HELM's sub-metrics, as details
        if isinstance(inner, dict) and "score" in inner and inner["score"] is None:
            tables["nested"][(source,)] += 1


def report(tables: dict[str, Counter]) -> str:
    """The tables as Markdown."""
    out = [f"{sum(tables['results'].values()):,} results\n"]
    heads = {
        "rules": ("rule", "source"),
        "outside": ("source", "metric", "score"),
        "negative": ("source", "metric", "score"),
        "zero": ("source", "metric", "score"),
        "marker": ("source", "score"),
        "nested": ("source",),
        "prior": ("RewardBench file", "its Score is"),
    }
    for name, columns in heads.items():
        out.append(f"### {name}\n")
        counted = {"prior": "files", "nested": "detail entries"}.get(name, "results")
        out.append("| " + " | ".join((*columns, counted)) + " |")
        out.append("|" + "---|" * (len(columns) + 1))
        for key, count in sorted(tables[name].items()):
            out.append("| " + " | ".join((*key, f"{count:,}")) + " |")
        out.append(f"| total | {'| ' * (len(columns) - 1)}{sum(tables[name].values()):,} |\n")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", type=Path, default=[ARCHIVE])
    args = parser.parse_args(argv)
    print(report(survey(args.sources)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
