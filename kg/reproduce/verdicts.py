"""A claim measurement against a claim: the record's value, the recipe's tolerance, the
metric's direction."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from pathlib import Path

import yaml

from .recipes import Recipe, ReproduceError


def read_claim(data: Path, record: str) -> dict[str, str]:
    """The record's value, unit and direction, read from its file (as strings).

    :raises ReproduceError: when ``data`` has no file of the record.
    """
    path = data / "records" / f"{record}.yaml"
    if not path.is_file():
        raise ReproduceError(f"no record file {path}")
    doc = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    return {key: doc.get(key, "") for key in ("numeric_value", "unit", "metric_direction")}


def judged_records(recipe: Recipe, record: str, stages: list[str]) -> list[str]:
    """The records a run for ``record`` gives verdicts on: ``record`` first, then each
    other claim of the recipe whose stage the run measures."""
    others = [r for r, claim in recipe.claims.items() if r != record and claim["stage"] in stages]
    return [record, *others]


def verdict(
    recipe: Recipe, record: str, claim: dict[str, str], measurements: list[dict]
) -> dict[str, str]:
    """The verdict on ``record``'s claim: its measurement against the record's value, with
    the recipe's tolerance and the metric's direction."""
    target = recipe.claims[record]
    tolerance = Decimal(recipe.module.TOLERANCE)
    out = {
        "record": record,
        "stage": target["stage"],
        "quantity": target["quantity"],
        "unit": target["unit"],
        "claimed": claim["numeric_value"],
        "tolerance": str(tolerance),
    }
    found = [
        m
        for m in measurements
        if m["stage"] == target["stage"]
        and m["quantity"] == target["quantity"]
        and m["unit"] == target["unit"]
    ]
    if claim["unit"] != target["unit"]:
        return {
            **out,
            "outcome": "not-comparable",
            "note": f"the record's unit ({claim['unit']}) is not the recipe's ({target['unit']})",
        }
    if not found:
        return {
            **out,
            "outcome": "not-comparable",
            "note": f"no {target['quantity']} was measured at stage {target['stage']}",
        }
    try:
        claimed, measured = Decimal(claim["numeric_value"]), Decimal(found[0]["value"])
        difference = (measured - claimed) / claimed
    except (InvalidOperation, ZeroDivisionError):
        return {**out, "outcome": "not-comparable", "note": "the values cannot be compared"}
    outcome = "consistent" if abs(difference) <= tolerance else "inconsistent"
    better = (difference < 0) == (claim["metric_direction"] == "lower")
    side = "better" if better else "worse"
    note = (
        f"measured {measured} vs claimed {claimed} {target['unit']}: "
        f"{difference * 100:+.1f} % ({side} than claimed; {claim['metric_direction']} is "
        f"better), tolerance {tolerance * 100:.0f} %"
    )
    return {
        **out,
        "measured": str(measured),
        "relative_difference": f"{difference:.4f}",
        "outcome": outcome,
        "note": note,
    }


__all__ = ["judged_records", "read_claim", "verdict"]
