"""What the app keeps between requests: the read-only store handle and the catalogue."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from flask import Flask, current_app

from ..catalog import Catalog
from ..config import Settings
from ..query_pool import QueryPool
from ..store import GraphStore, open_store
from ..store.embedded import live_version
from ..vocabulary import Terms, load_terms


class AppState:
    """Opened lazily, once per process: a read-only store is a snapshot safe to share
    between threads, and opening one per request would cost more than the request."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._lock = threading.Lock()
        #: Guards what is started lazily outside this class (the query workers).
        self.lock = threading.Lock()
        self._store: GraphStore | None = None
        self._version: Path | None = None
        self._checked = 0.0
        self._catalog: Catalog | None = None
        #: The SPARQL endpoint's worker processes (kg.web.sparql starts them).
        self.query_pool: QueryPool | None = None

    @property
    def store(self) -> GraphStore:
        """The live version of the store; a new one (after a ``kg load``) is picked up at
        most a second after it appears, with no restart."""
        with self._lock:
            now = time.monotonic()
            if self._store is None or now - self._checked > 1.0:
                self._checked = now
                live = live_version(self.settings.store)
                if self._store is None or live != self._version:
                    self._store = open_store(self.settings, read_only=True)
                    self._version = live
                    self._catalog = None
            return self._store

    @property
    def catalog(self) -> Catalog:
        while True:
            store = self.store
            with self._lock:
                # A newer version may have come in since ``store`` was taken: a catalogue
                # built from the older one would be kept as the newer one's.
                if store is not self._store:
                    continue
                if self._catalog is None:
                    self._catalog = Catalog.from_store(store)
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
