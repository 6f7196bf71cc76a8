"""The project's own rules: ruff clean, the README's commands are what CI runs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT


def test_ruff_clean() -> None:
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is part of the test extra; install it with pip install -e '.[test]'")
    result = subprocess.run([ruff, "check", "kg", "tests", "recipes", "bench"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^    (\S.*)$", quick, flags=re.M)
    assert len(commands) == 2, commands
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines()


def test_cli_help_lists_every_command() -> None:
    result = subprocess.run([sys.executable, "-m", "kg.cli", "--help"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^  (\w+)\s", result.stdout.split("Commands:", 1)[1], flags=re.M)
    assert commands
    for name in commands:
        assert f"kg {name}" in readme, f"README does not document kg {name}"
