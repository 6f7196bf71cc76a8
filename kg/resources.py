"""Where the shapes, ontology and canned queries are, installed or in a checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The directory ``name`` (``ontology``, ``shapes``, ``queries``).

    A wheel carries them under ``kg/_resources``; a checkout (or an editable
    install) has them at the repository root.
    """
    for candidate in (_PACKAGE / "_resources" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"claimgraph resource directory '{name}' is missing")
