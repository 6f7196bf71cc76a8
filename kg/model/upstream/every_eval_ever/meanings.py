"""What a source meant by a score it printed: the rules (``meanings.yaml``, data) that say
which printed values stand for no value (HELM's -1: not computed), and whether a score lies
outside the range its metric declares (``min_score``/``max_score``).

A rule matches a result by its source's name, its metric's name and its score compared as a
number; docs/imports.md ("What a source meant") lists the rules and what they match.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from ....errors import UsageError
from ...yamltext import parse_yaml
from ..jsondoc import JsonNumber

#: The rules, beside this module.
RULES_FILE = Path(__file__).with_name("meanings.yaml")
#: The reasons a rule may give: concepts of kgv:MissingValueReasons for a value a source
#: printed (the other reasons are for values a source does not give).
REASONS = ("not-computed", "not-applicable")


@dataclass(frozen=True)
class Rule:
    """One source's placeholder: which value, of which metrics (empty: every one), meaning what."""

    id: str
    sources: frozenset[str]
    value: Decimal
    reason: str
    metrics: frozenset[str] = frozenset()

    def matches(self, source: str, metric: str, score: Any) -> bool:
        """Whether ``score`` (a number as written) of ``metric`` by ``source`` is this one."""
        return (
            source in self.sources
            and (not self.metrics or metric in self.metrics)
            and isinstance(score, JsonNumber)
            and score == self.value
        )


@cache
def rules(path: Path = RULES_FILE) -> tuple[Rule, ...]:
    """The rules of ``path``, read once.

    :raises UsageError: for a rule without a source, a value that is no number, or a reason
        that is none of :data:`REASONS`.
    """
    found = []
    for entry in (parse_yaml(path.read_text(encoding="utf-8")) or {}).get("rules") or []:
        ident = entry.get("id", "?")
        if entry.get("reason") not in REASONS or not entry.get("sources"):
            raise UsageError(f"{path}: rule {ident}: needs sources and a reason of {REASONS}")
        try:
            value = Decimal(entry["value"])
        except (KeyError, ArithmeticError):
            raise UsageError(f"{path}: rule {ident}: value is not a number") from None
        found.append(
            Rule(
                ident,
                frozenset(entry["sources"]),
                value,
                entry["reason"],
                frozenset(entry.get("metrics") or ()),
            )
        )
    return tuple(found)


def placeholder(source: str, result: dict[str, Any]) -> Rule | None:
    """The rule that says ``result``'s score (of a file of ``source``) stands for no value."""
    metric = result.get("evaluation_name", "")
    score = (result.get("score_details") or {}).get("score")
    return next((r for r in rules() if r.matches(source, metric, score)), None)


def outside_range(result: dict[str, Any]) -> tuple[str, str] | None:
    """The declared (min, max) as written, where ``result``'s score lies outside them (a
    bound not given, or not a number, does not limit); None where it lies within."""
    metric = result.get("metric_config") or {}
    score = (result.get("score_details") or {}).get("score")
    low, high = metric.get("min_score"), metric.get("max_score")
    if not isinstance(score, JsonNumber):
        return None
    below = isinstance(low, JsonNumber) and score < low
    above = isinstance(high, JsonNumber) and score > high
    if not (below or above):
        return None
    return (getattr(low, "lexeme", ""), getattr(high, "lexeme", ""))


def source_name(doc: dict[str, Any]) -> str:
    """The name a file gives its source (its organization's, where it gives none)."""
    metadata = doc.get("source_metadata") or {}
    return str(metadata.get("source_name") or metadata.get("source_organization_name") or "")


def out_of_range(doc: dict[str, Any]) -> list[str]:
    """The JSON Pointers of the scores of ``doc`` outside their metric's declared range,
    leaving out the placeholders a rule names (their meaning is known)."""
    source = source_name(doc)
    return [
        f"/evaluation_results/{i}/score_details/score"
        for i, result in enumerate(doc.get("evaluation_results") or [])
        if isinstance(result, dict)
        and outside_range(result) is not None
        and placeholder(source, result) is None
    ]
