"""What the app keeps between requests: the read-only store handle and the catalogue."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from flask import Flask, current_app

from ..archive import Archive
from ..catalog import Catalog
from ..config import Settings
from ..history import HistoryEntry, graph_history
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
        #: Held while a bulk dump of the live version is written (kg.web.downloads).
        self.dump_lock = threading.Lock()
        self.archive = Archive(settings.archive_dir)
        self._histories: dict[tuple[Path | None, str], list[HistoryEntry]] = {}

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
    def version(self) -> str:
        """The name of the store version the app reads now ("" for a store without one)."""
        self.store  # noqa: B018 (follows the live version)
        with self._lock:
            return self._version.name if self._version is not None else ""

    @property
    def catalog(self) -> Catalog:
        store = self.store
        with self._lock:
            if self._catalog is None:
                self._catalog = Catalog.from_store(store)
            return self._catalog

    def history(self, graph: str) -> list[HistoryEntry]:
        """The releases that hold ``graph``, with what changed (kept until a new release)."""
        key = (live_version(self.settings.archive_dir / "index"), graph)
        with self._lock:
            found = self._histories.get(key)
        if found is None:
            found = graph_history(self.archive, graph, self.settings.base)
            with self._lock:
                if len(self._histories) > 4096:
                    self._histories.clear()
                self._histories[key] = found
        return found

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
    app_state.archive.close()
