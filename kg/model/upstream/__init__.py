"""Files other registries publish, kept byte for byte as evidence, and read by their format.

Each format (today Every Eval Ever) has a subpackage: how its files are checked, how its
nodes are identified, and (in :mod:`kg.model.mapping`) how a file becomes graphs.
:mod:`.jsondoc` reads JSON with its numbers as written and names places by JSON Pointer.
"""

from __future__ import annotations

#: The upstream formats, by the name ``kg import`` and the import records use.
FORMATS: tuple[str, ...] = ("every-eval-ever",)

__all__ = ["FORMATS"]
