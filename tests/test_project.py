"""The project's own rules: ruff clean and formatted, types checked, the README's commands
are what CI runs, tests share through helpers."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys

import pytest

from helpers import ROOT


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is part of the check extra; install it with pip install -e '.[check]'")
    return found


def run_clean(*command: str) -> None:
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_clean() -> None:
    run_clean(tool("ruff"), "check", ".")


def test_ruff_formatted() -> None:
    """One style, applied by the formatter (recipes/ excluded: runs hash a recipe's bytes)."""
    run_clean(tool("ruff"), "format", "--check", ".")


@pytest.mark.slow
def test_types_check() -> None:
    """mypy over kg/ with the settings of pyproject.toml ([tool.mypy]): no error."""
    run_clean(sys.executable, "-m", "mypy")


def test_the_quality_gate_is_the_same_in_each_place() -> None:
    """scripts/check and the pre-commit hooks run the same checks as this module."""
    check = (ROOT / "scripts" / "check").read_text()
    hooks = (ROOT / ".pre-commit-config.yaml").read_text()
    for command in ("ruff check", "ruff format --check", "mypy"):
        assert command in check, f"scripts/check does not run {command}"
        assert command in hooks, f".pre-commit-config.yaml does not run {command}"


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^    (\S.*)$", quick, flags=re.M)
    assert len(commands) == 2, commands
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines()


def test_cli_help_lists_every_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "kg.cli", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^  (\w+)\s", result.stdout.split("Commands:", 1)[1], flags=re.M)
    assert commands
    for name in commands:
        assert f"kg {name}" in readme, f"README does not document kg {name}"


def test_no_test_imports_conftest_or_another_test_module() -> None:
    """pytest loads conftest.py itself, and a test module is a list of tests, not a library:
    what tests share is in tests/helpers/, and bench's generators are imported as a package,
    never loaded by path."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        where = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "spec_from_file_location":
                found.append(f"{where}:{node.lineno}: loads a module by its path")
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top == "conftest" or top.startswith("test_"):
                    found.append(f"{where}:{node.lineno}: imports {name}")
    assert not found, "\n".join(found)


def test_the_examples_in_docstrings_run() -> None:
    """A docstring's example (``>>>``) is documentation a reader runs: it must hold."""
    import doctest
    import importlib

    ran = 0
    for path in sorted((ROOT / "kg").rglob("*.py")):
        if ">>>" not in path.read_text():
            continue
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        failed, tried = doctest.testmod(importlib.import_module(name.removesuffix(".__init__")))
        assert failed == 0, f"{name}: {failed} of {tried} example(s) failed"
        ran += tried
    assert ran > 0
