"""A claim's standing, derived by one rule from what the data files say (docs/standing.md).

The inputs are plain data: the curators' changes of standing (``kind: standing`` files),
the failed checks of reviews that read the pinned file, and the verdicts of reproduction
runs. Nothing else counts (not the store, not today's date), so a release gives the
standing it had.

The rule:

1. A curator's change rules until a later one: retracted, withdrawn and superseded stay
   so whatever evidence comes later; ``reinstated`` makes the claim current again.
2. The claim is **disputed** by evidence when a quote or value check failed on the pinned
   file, or when runs contradict it under every setting of the parameters the source
   leaves open that they tried (an inconsistent verdict, and no consistent one), unless a
   curator's change is later than the latest of that evidence.
3. Otherwise its standing is the latest curator's change (disputed, corrected, or current
   after a reinstatement), or current when there is none.

>>> run = Verdict("run/1", "2026-11-30T08:50:57Z", "inconsistent", (("precision", "fp32"),))
>>> standing_of([], [], [run]).standing
'disputed'
>>> ok = Verdict("run/2", "2026-11-30T08:52:00Z", "consistent", (("precision", "bf16"),))
>>> standing_of([], [], [run, ok]).standing
'current'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

#: Every standing, in the order lists show them ("current" first).
STANDINGS = ("current", "corrected", "disputed", "superseded", "retracted", "withdrawn")
#: The standings a claim still counts with ("current only" shows these).
CURRENT = ("current", "corrected")
#: A curator's changes that end a claim until a curator reinstates it: the mapping states
#: them as ending the records in PROV's sense (prov:wasInvalidatedBy).
INVALIDATING = ("retracted", "withdrawn", "superseded")


@dataclass(frozen=True)
class Change:
    """A curator's change of standing: one ``kind: standing`` file, for one record."""

    activity: str
    ident: str
    change: str
    at: str
    reason: str
    agent: str
    evidence: tuple[str, ...] = ()
    value: str | None = None
    superseded_by: str | None = None
    source: str | None = None
    notice: str | None = None


@dataclass(frozen=True)
class FailedCheck:
    """A quote or value check that failed in a review of the pinned file."""

    review: str
    at: str
    check: str
    detail: str = ""


@dataclass(frozen=True)
class Verdict:
    """A run's consistent or inconsistent verdict on the claim, with the settings of the
    parameters the source leaves open."""

    run: str
    at: str
    outcome: str
    setting: tuple[tuple[str, str], ...] = ()
    measured: str | None = None
    claimed: str | None = None


@dataclass(frozen=True)
class Standing:
    """What the rule gives one claim."""

    standing: str
    #: Why, in words: the curator's reason, or what the evidence shows.
    reason: str
    #: The activities and pages it rests on (a curator's change and its evidence, the
    #: reviews or runs that dispute it).
    evidence: tuple[str, ...] = ()
    #: When it took this standing (the change's or the latest evidence's time).
    since: str | None = None
    #: The curator's change that rules, if one does (None: derived from evidence, or none).
    change: Change | None = None
    #: The value of the latest correction, beside the printed one.
    corrected_value: str | None = None
    superseded_by: str | None = None
    #: What the runs say, whatever the standing: one line per setting tried.
    runs: tuple[str, ...] = ()
    #: Every curator's change, oldest first (nothing is lost).
    changes: tuple[Change, ...] = field(default_factory=tuple)

    @property
    def is_current(self) -> bool:
        return self.standing in CURRENT

    def summary(self) -> str:
        """The standing in words, as exports carry it:
        ``retracted since 2026-12-02T10:00:00Z: <reason>; corrected value 11.29``."""
        since = f" since {self.since}" if self.since else ""
        reason = f": {self.reason}" if self.reason else ""
        value = (
            f"; corrected value {self.corrected_value}" if self.corrected_value is not None else ""
        )
        return f"{self.standing}{since}{reason}{value}"

    @property
    def derived(self) -> bool:
        """Whether the evidence gives it, rather than a curator's change."""
        return self.change is None and self.standing != "current"


def moment(text: str) -> datetime:
    """A date-time as data files write it (``2026-11-30T08:50:57Z``), for comparison."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def standing_of(
    changes: Iterable[Change], failed: Iterable[FailedCheck], verdicts: Iterable[Verdict]
) -> Standing:
    """The standing of one claim (the module's docstring has the rule)."""
    history = tuple(sorted(changes, key=lambda c: (moment(c.at), c.ident)))
    failed, verdicts = list(failed), list(verdicts)
    runs = _runs_summary(verdicts)
    corrections = [c for c in history if c.change == "corrected"]
    corrected = corrections[-1].value if corrections else None
    latest = history[-1] if history else None
    superseded_by = latest.superseded_by if latest and latest.change == "superseded" else None

    def made(
        standing: str,
        reason: str,
        evidence: Iterable[str],
        since: str | None,
        change: Change | None,
    ) -> Standing:
        return Standing(
            standing,
            reason,
            tuple(dict.fromkeys(evidence)),
            since,
            change,
            corrected,
            superseded_by,
            runs,
            history,
        )

    if latest is not None and latest.change in INVALIDATING:
        return made(
            latest.change, latest.reason, [latest.activity, *latest.evidence], latest.at, latest
        )
    disputed = _dispute(failed, verdicts)
    if disputed is not None and (latest is None or moment(disputed[2]) > moment(latest.at)):
        return made("disputed", *disputed, None)
    if latest is not None:
        standing = "current" if latest.change == "reinstated" else latest.change
        return made(standing, latest.reason, [latest.activity, *latest.evidence], latest.at, latest)
    return made("current", "", [], None, None)


def _dispute(
    failed: list[FailedCheck], verdicts: list[Verdict]
) -> tuple[str, list[str], str] | None:
    """(reason, evidence, time of the latest evidence) where the evidence disputes the
    claim, else None."""
    reasons, evidence, times = [], [], []
    if failed:
        kinds = ", ".join(dict.fromkeys(f.check for f in failed))
        reasons.append(f"a check of the pinned file failed ({kinds})")
        evidence += [f.review for f in failed]
        times += [f.at for f in failed]
    against = [v for v in verdicts if v.outcome == "inconsistent"]
    if against and not any(v.outcome == "consistent" for v in verdicts):
        names = _varying(verdicts)
        settings = sorted({_setting(v, names) for v in against})
        tried = "; ".join(s for s in settings if s) or "the one setting tried"
        reasons.append(f"reproduction runs contradict it under every setting tried ({tried})")
        evidence += [v.run for v in against]
        times += [v.at for v in against]
    if not reasons:
        return None
    return "; ".join(reasons), evidence, max(times, key=moment)


def _varying(verdicts: list[Verdict]) -> list[str]:
    """The open parameters whose settings differ among the runs: what tells them apart."""
    return [
        n
        for n in dict.fromkeys(n for v in verdicts for n, _ in v.setting)
        if len({dict(v.setting).get(n) for v in verdicts}) > 1
    ]


def _setting(verdict: Verdict, names: list[str]) -> str:
    values = dict(verdict.setting)
    return ", ".join(f"{n}={values.get(n, '(not given)')}" for n in names)


def _runs_summary(verdicts: list[Verdict]) -> tuple[str, ...]:
    """One line per setting of the open parameters that differ among the runs:
    ``precision=fp32: 1 inconsistent``."""
    if not verdicts:
        return ()
    names = _varying(verdicts)
    by_setting: dict[str, dict[str, int]] = {}
    for v in verdicts:
        key = _setting(v, names) or "every run"
        counts = by_setting.setdefault(key, {})
        counts[v.outcome] = counts.get(v.outcome, 0) + 1
    return tuple(
        f"{key}: " + ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
        for key, counts in sorted(by_setting.items())
    )
