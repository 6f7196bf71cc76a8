"""What the app keeps between requests: the read-only store handle and the catalogue."""

from __future__ import annotations

import threading
import time

from flask import Flask, current_app

from ..catalog import Catalog
from ..config import Settings
from ..query_pool import QueryRunner
from ..store import GraphStore, open_store
from ..vocabulary import Terms, load_terms


class AppState:
    """Opened lazily, once per process: a read-only store is a snapshot safe to share
    between threads, and opening one per request would cost more than the request.

    Whichever the store, a request reads one handle; a new version (a ``kg load``
    while serving) is noticed by comparing version tokens (:meth:`GraphStore.version`)
    at most once a second, and requests after that read a new handle."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._lock = threading.Lock()
        self._catalog_lock = threading.Lock()
        #: Guards what is started lazily outside this class (the query workers).
        self.lock = threading.Lock()
        self._store: GraphStore | None = None
        self._version: str | None = None
        self._checked = 0.0
        self._catalog: Catalog | None = None
        self._catalog_store: GraphStore | None = None
        #: What runs /sparql queries (kg.web.sparql starts it).
        self.query_pool: QueryRunner | None = None

    @property
    def store(self) -> GraphStore:
        """The newest published version of the store; a new one (after a ``kg load``) is
        picked up at most a second after it appears, with no restart."""
        with self._lock:
            now = time.monotonic()
            if self._store is None:
                self._open(now)
            elif now - self._checked > 1.0:
                self._checked = now
                if self._store.published_version() != self._version:
                    self._open(now)
            assert self._store is not None
            return self._store

    def _open(self, now: float) -> None:
        store = open_store(self.settings, read_only=True)
        self._version = store.version()
        self._store, self._checked = store, now

    @property
    def catalog(self) -> Catalog:
        """The index of the store's current handle, built once per version (under its own
        lock, so record pages are served while a new version's index is being built)."""
        store = self.store
        with self._catalog_lock:
            if self._catalog is None or self._catalog_store is not store:
                self._catalog = Catalog.from_store(store)
                self._catalog_store = store
            return self._catalog

    @property
    def terms(self) -> Terms:
        return load_terms()


def state(app: Flask | None = None) -> AppState:
    return (app or current_app).extensions["kg"]


def close(app: Flask) -> None:
    """Stop what the app started (query workers)."""
    app_state = state(app)
    if app_state.query_pool is not None:
        app_state.query_pool.close()
