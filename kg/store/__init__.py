"""Stores: one interface (:class:`GraphStore`), opened by :func:`open_store`."""

from __future__ import annotations

from ..config import Settings
from .base import GraphStore, QueryResult, Term
from .embedded import EmbeddedStore, live_version


def open_store(settings: Settings, *, read_only: bool = False) -> GraphStore:
    """The store the settings name: the embedded store in a directory, or a remote SPARQL
    store when ``settings.store`` is an http(s) URL.

    :raises StoreError: when it cannot be opened (missing for reading, locked for writing).
    """
    if settings.remote:
        from .remote import RemoteStore

        return RemoteStore(settings, read_only=read_only)
    return EmbeddedStore(settings.store, read_only=read_only)  # type: ignore[arg-type]


def published_version(settings: Settings) -> str | None:
    """The version the store publishes now; None for a store never written.

    :raises StoreError: when a remote store cannot be asked.
    """
    if not settings.remote:
        live = live_version(settings.store)  # type: ignore[arg-type]
        return live.name if live else None
    with open_store(settings, read_only=True) as store:
        return store.published_version()


__all__ = ["EmbeddedStore", "GraphStore", "QueryResult", "Term", "open_store", "published_version"]
