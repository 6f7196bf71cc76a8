"""What the app keeps between requests: the read-only store handle and the catalogue."""

from __future__ import annotations

import gc
import logging
import threading
import time
from pathlib import Path

from flask import Flask, current_app

from ..config import Settings
from ..kinds import iri_prefix, segments
from ..rdf.vocabulary import Terms, load_terms
from ..registry import Registry
from ..release.history import HistoryEntry, graph_history
from ..store import GraphStore, open_store
from ..store.archive import Archive
from ..store.cached import SharedGraphCache
from ..store.embedded import live_version
from .catalog import Catalog
from .query_pool import QueryRunner

log = logging.getLogger(__name__)


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
        #: Held while a bulk dump of the live version is written (kg.web.downloads).
        self.dump_lock = threading.Lock()
        self._catalog_store: GraphStore | None = None
        self._building: threading.Thread | None = None
        self._first_catalog = threading.Lock()
        self._prebuilt: tuple[str | None, Catalog] | None = None
        #: What runs /sparql queries (kg.web.sparql starts it).
        self.query_pool: QueryRunner | None = None
        #: Worker processes for /sparql?release= when the live store is remote.
        self.release_pool: QueryRunner | None = None
        #: Past releases (kg release), read-only.
        self.archive = Archive(settings.archive_dir)
        self._histories: dict[tuple[Path | None, str], list[HistoryEntry]] = {}

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
        if not self.settings.remote:  # a snapshot: what it read stays true while it lives
            base = self.settings.base
            # the kinds of node many records link to: their graphs are kept once read
            store = SharedGraphCache(
                store, [iri_prefix(base, segment) for segment in segments(shared=True)])
        self._store, self._checked = store, now

    @property
    def version(self) -> str:
        """The name of the store version the app reads now ("" for a store without one)."""
        self.store  # noqa: B018 (follows the live version)
        with self._lock:
            return self._version or ""

    @property
    def catalog(self) -> Catalog:
        """The index of the store's current handle. The first one is built on first use;
        after a new version is published the previous index is served until the new
        one has been built in the background (seconds to minutes at 100k records), so
        the index never holds the server up: every answer still comes from one version."""
        store = self.store
        with self._catalog_lock:
            if self._catalog is not None:
                if self._catalog_store is not store and self._building is None:
                    self._building = threading.Thread(
                        target=self._build, args=(store,), daemon=True, name="kg-catalog")
                    self._building.start()
                return self._catalog
        with self._first_catalog:  # one build at a time, the others wait for it
            if self._catalog is None:
                prebuilt = self._prebuilt
                self._prebuilt = None
                if prebuilt is not None and prebuilt[0] == store.version():
                    self._set_catalog(prebuilt[1], store)
                else:
                    self._set_catalog(Catalog.from_store(store), store)
            return self._catalog  # type: ignore[return-value]

    def use_index(self, version: str | None, catalog: Catalog) -> None:
        """Start with an index already built for ``version`` (used if the store still is
        at that version when the index is first needed)."""
        self._prebuilt = (version, catalog)

    def _build(self, store: GraphStore) -> None:
        try:
            catalog = Catalog.from_store(store)
        except Exception:  # the old index stays; the next request tries again
            log.exception("building the index of a new store version failed")
            with self._catalog_lock:
                self._building = None
            return
        self._set_catalog(catalog, store)

    def _set_catalog(self, catalog: Catalog, store: GraphStore) -> None:
        with self._catalog_lock:
            self._catalog, self._catalog_store, self._building = catalog, store, None
        # The index is hundreds of thousands of long-lived objects: out of the cyclic
        # collector's way, or each full collection stalls every request (refcounting
        # still frees them once a newer index replaces this one).
        gc.freeze()

    def registry(self, release: str | None = None) -> Registry:
        """The registry a request reads: the live store (or ``release``'s copy from the
        archive) and the archive, both kept between requests (closing it closes neither)."""
        store = self.archive.release_store(release) if release else self.store
        return Registry(self.settings, read_only=True, release=release, store=store,
                        archive=self.archive)

    def history(self, graph: str) -> list[HistoryEntry]:
        """The releases that hold ``graph``, with what changed (kept until a new release)."""
        key = (live_version(self.settings.archive_dir / "index"), graph)
        with self._lock:
            found = self._histories.get(key)
        if found is None:
            found = graph_history(self.registry(), graph)
            with self._lock:
                if len(self._histories) > 4096:
                    self._histories.clear()
                self._histories[key] = found
        return found

    @property
    def terms(self) -> Terms:
        return load_terms()


def build_index(settings: Settings) -> tuple[str | None, Catalog]:
    """The index of the store's version now: ``kg serve`` builds it once, before it starts
    its worker processes, which then share it instead of each building its own.

    :raises StoreError: when the store cannot be read.
    """
    with open_store(settings, read_only=True) as store:
        return store.version(), Catalog.from_store(store)


def state(app: Flask | None = None) -> AppState:
    return (app or current_app).extensions["kg"]


def close(app: Flask) -> None:
    """Stop what the app started (query workers)."""
    app_state = state(app)
    for runner in (app_state.query_pool, app_state.release_pool):
        if runner is not None:
            runner.close()
    app_state.archive.close()
