"""Curation: changes of claims' standing, written as data files and loaded (docs/standing.md)."""

from .changes import CHANGES, Request, StandingChanged, change_standing, parse_time

__all__ = ["CHANGES", "Request", "StandingChanged", "change_standing", "parse_time"]
