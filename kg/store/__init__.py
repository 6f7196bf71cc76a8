"""Stores: one interface (:class:`GraphStore`), opened by :func:`open_store`."""

from __future__ import annotations

from ..config import Settings
from .base import GraphStore, QueryResult, Term
from .embedded import EmbeddedStore


def open_store(settings: Settings, *, read_only: bool = False) -> GraphStore:
    """The store the settings name.

    :raises StoreError: when it cannot be opened (missing for reading, locked for writing).
    """
    return EmbeddedStore(settings.store, read_only=read_only)


__all__ = ["EmbeddedStore", "GraphStore", "QueryResult", "Term", "open_store"]
