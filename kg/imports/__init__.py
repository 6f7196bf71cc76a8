"""Importing the results other registries publish (``kg import``): the files kept byte for
byte as evidence, an import record, and the results loaded as records (docs/imports.md)."""

from .service import ImportReport, import_files

__all__ = ["ImportReport", "import_files"]
