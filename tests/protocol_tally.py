"""A pytest plugin: the W3C SPARQL 1.1 Protocol suite's tally per store backend.

`tests/test_protocol_suite.py` marks each manifest test ``w3c_protocol(kind)``, where kind
is ``query``, ``update`` (an update the manifest expects a 4xx for) or ``refused`` (an
update the manifest expects to succeed: a read-only endpoint refuses it by design). This
plugin counts how each one ended, per backend (the ``protocol_endpoint`` parameter), and
prints the counts at the end of the session, so they show in `./scripts/test` too.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

#: backend -> (kind, outcome) -> count; outcome: passed, failed or skipped
TALLY = pytest.StashKey[dict[str, Counter]]()
KINDS = ("query", "update", "refused")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "w3c_protocol(kind): a test of the W3C SPARQL 1.1 Protocol manifest "
        "(kind: query, update or refused), counted in the tally per backend",
    )
    config.stash[TALLY] = defaultdict(Counter)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    marker = item.get_closest_marker("w3c_protocol")
    callspec = getattr(item, "callspec", None)
    if marker is None or callspec is None:
        return report
    # one outcome per test: its call's, or its setup's when the call never ran (a failed
    # teardown belongs to the fixture, and pytest reports it as an error of its own)
    if report.when == "call" or (report.when == "setup" and not report.passed):
        outcome = "failed" if report.failed else "skipped" if report.skipped else "passed"
        item.config.stash[TALLY][callspec.params["protocol_endpoint"]][
            (marker.args[0], outcome)
        ] += 1
    return report


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    tallies = config.stash.get(TALLY, {})
    if not tallies:
        return
    terminalreporter.section("W3C SPARQL 1.1 Protocol suite, per store backend")
    for backend, tally in tallies.items():
        terminalreporter.write_line(f"{backend}: {summary(tally)}")


def summary(tally: Counter) -> str:
    """One backend's line: passed, refused by design, failed."""
    total = {kind: sum(n for (k, _), n in tally.items() if k == kind) for kind in KINDS}
    passed = {kind: tally[(kind, "passed")] for kind in KINDS}
    failed = sum(n for (_, outcome), n in tally.items() if outcome == "failed")
    skipped = sum(n for (_, outcome), n in tally.items() if outcome == "skipped")
    line = (
        f"{passed['query'] + passed['update']} passed "
        f"({passed['query']}/{total['query']} query tests, "
        f"{passed['update']}/{total['update']} update tests expecting 4xx), "
        f"{passed['refused']}/{total['refused']} refused by design (updates on a "
        f"read-only endpoint), {failed} failed"
    )
    return line + (f", {skipped} skipped" if skipped else "")
