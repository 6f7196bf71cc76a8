"""Mark as ``slow`` the tests that took more than a few seconds, by measurement.

The quick loop (``scripts/check``) leaves out the tests marked ``slow``. Which ones those
are is measured, not guessed: run the whole suite with a JUnit report, then write the list
from it (``tests/slow.json``, read by ``tests/conftest.py``)::

    ./scripts/test --junitxml=/tmp/suite.xml
    python scripts/slow_tests.py /tmp/suite.xml

A test's time is its setup, call and teardown together, as JUnit reports it; a fixture
shared by a file's tests is paid by the first test that asks for it, so run it again after
a change to see where such a cost moved. Tests marked ``slow`` in their code stay so.
"""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "tests" / "slow.json"
#: Seconds: a test over this, measured on the two-core machines CI runs on, is slow (1.0:
#: the quick loop within 3 minutes there, its type check included).
THRESHOLD = 1.0


def node_id(classname: str, name: str) -> str:
    """pytest's node id of a JUnit test case (``tests.test_x[.Class]`` and a name)."""
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):
        path = Path(*parts[:cut]).with_suffix(".py")
        if (ROOT / path).is_file():
            return "::".join([path.as_posix(), *parts[cut:], name])
    raise SystemExit(f"slow_tests: no test file for {classname!r}")


def measured(report: Path) -> dict[str, float]:
    """Each test case's seconds in a JUnit report; skipped ones left out."""
    times: dict[str, float] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        if case.find("skipped") is not None:
            continue
        nodeid = node_id(case.get("classname", ""), case.get("name", ""))
        times[nodeid] = times.get(nodeid, 0.0) + float(case.get("time", "0"))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", type=Path, help="a JUnit XML report of the whole suite")
    parser.add_argument("--threshold", type=float, default=THRESHOLD, metavar="SECONDS")
    parser.add_argument(
        "--keep", action="store_true", help="add to the list instead of replacing it"
    )
    args = parser.parse_args()
    if not args.report.is_file():
        raise SystemExit(f"slow_tests: {args.report}: no such file")
    times = measured(args.report)
    if not times:
        raise SystemExit(f"slow_tests: {args.report} holds no test that ran")
    slow = {k: round(v, 1) for k, v in times.items() if v > args.threshold}
    if args.keep and LIST.is_file():
        slow = {**json.loads(LIST.read_text())["tests"], **slow}
    LIST.write_text(
        json.dumps(
            {
                "threshold_seconds": args.threshold,
                "made_by": "python scripts/slow_tests.py REPORT.xml (see its docstring)",
                "tests": dict(sorted(slow.items())),
            },
            indent=1,
        )
        + "\n"
    )
    print(f"slow_tests: {len(slow)} of {len(times)} tests over {args.threshold:g} s -> {LIST}")


if __name__ == "__main__":
    main()
