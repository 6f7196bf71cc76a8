"""Curation: changes of claims' standing, written as data files and loaded (docs/standing.md)."""

from .changes import CHANGES, Done, Request, change_standing, parse_time

__all__ = ["CHANGES", "Done", "Request", "change_standing", "parse_time"]
