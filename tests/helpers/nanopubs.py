"""What the nanopublication tests share: ``kg`` run in this process over a test folder's
store and data, and the signer they sign as."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from kg.cli import main

#: The signer the tests' signatures name (an ORCID iD of nobody).
SIGNER = "https://orcid.org/0000-0000-0000-0000"


def kg(root: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    """``kg --store ROOT/store --data ROOT/data ARGS``, in this process."""
    where = ["--store", str(root / "store"), "--data", str(root / "data")]
    return CliRunner(env=env).invoke(main, [*where, *args])
