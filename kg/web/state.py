"""What the app keeps between requests: the read-only store handle and the catalogue."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from flask import Flask, current_app, g, has_request_context

from ..config import Settings
from ..errors import KgError
from ..kinds import iri_prefix, segments
from ..rdf.vocabulary import Vocabulary, load_terms
from ..read.catalog import Catalog
from ..registry import Registry
from ..release.history import HistoryEntry, graph_history
from ..store import GraphStore, open_store
from ..store.archive import Archive
from ..store.cached import SharedGraphCache
from ..store.index.timeline_file import TimelineFile, timeline_for
from ..store.licences import Part, counted_parts
from .http.response_cache import ResponseCache
from .workers.pool import QueryRunner

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class StoreVersion:
    """One version of the store as the app serves it: its handle and, once built, its index.
    Every answer comes from one store version, and the app moves to the next only when that one is
    ready, so no reader sees a mix of versions or sees the data go back."""

    store: GraphStore
    version: str | None
    catalog: Catalog | None = None
    #: The timeline of this version, with the archive index version it was read with.
    timeline: tuple[Path | None, TimelineFile] | None = None
    #: Figures read from this version once, by name (AppState.derived).
    derived: dict[str, object] = field(default_factory=dict)


class AppState:
    """Opened lazily, once per process: a read-only store is a snapshot safe to share
    between threads, and opening one per request would cost more than the request.

    Whichever the store, a request reads the current :class:`StoreVersion`. A new version (a
    ``kg load`` while serving) is noticed by comparing version tokens
    (:meth:`GraphStore.version`) at most once a second; its index is built in the
    background while the current version answers, and then the app switches to it, handle
    and index together."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._lock = threading.Lock()
        #: Guards what is started lazily outside this class (the query workers).
        self.lock = threading.Lock()
        self._serving: StoreVersion | None = None
        self._checked = 0.0
        #: The next version while its index is built (kg-catalog thread).
        self._preparing: threading.Thread | None = None
        self._first_catalog = threading.Lock()
        #: Held while a bulk dump of the live version is written (kg.web.pages.downloads).
        self.dump_lock = threading.Lock()
        #: What runs /sparql queries (kg.web.sparql.endpoint starts it).
        self.query_pool: QueryRunner | None = None
        #: Worker processes for /sparql?release= when the live store is remote.
        self.release_pool: QueryRunner | None = None
        #: Past releases (kg release), read-only.
        self.archive = Archive(settings.archive_dir)
        self._histories: dict[tuple[Path | None, str], list[HistoryEntry]] = {}
        #: Whole answers of the current version (kg.web.http.cache), within cache_mb.
        self.response_cache = ResponseCache(settings.cache_mb * 2**20)
        #: Reentrant: what is derived once per version may read the timeline.
        self._timeline_lock = threading.RLock()

    @property
    def current(self) -> StoreVersion:
        """The store version answers come from now, the same for the whole of one request; a newer
        published version is looked for at most once a second, and served once its index
        is ready."""
        return _once_a_request("kg_version", self._newest)

    @property
    def archive_head(self) -> Path | None:
        """The archive's index version (what its newest release makes it), the same for the
        whole of one request: its validators and its body name the same releases."""
        return _once_a_request("kg_archive_head", self.archive.index_version)

    def _newest(self) -> StoreVersion:
        with self._lock:
            now = time.monotonic()
            if self._serving is None:
                self._serving, self._checked = StoreVersion(*self._open()), now
            elif now - self._checked > 1.0 and self._preparing is None:
                self._checked = now
                try:
                    published = self._serving.store.published_version()
                except KgError:
                    # unconfirmed: the next request asks again rather than answering
                    # from what was read (kg.web.http.cache) for another second
                    self._checked = 0.0
                    raise
                if published != self._serving.version:
                    store, version = self._open()
                    if self._serving.catalog is None or store.kept_index() is not None:
                        # no index to keep in step, or one the version keeps: switch now
                        self._serving = StoreVersion(store, version)
                    else:
                        self._preparing = threading.Thread(
                            target=self._prepare,
                            args=(store, version),
                            daemon=True,
                            name="kg-catalog",
                        )
                        self._preparing.start()
            return self._serving

    def _open(self) -> tuple[GraphStore, str | None]:
        store = open_store(self.settings, read_only=True)
        version = store.version()
        if not self.settings.remote:  # a snapshot: what it read stays true while it lives
            base = self.settings.base
            # the kinds of node many records link to: their graphs are kept once read
            store = SharedGraphCache(
                store, [iri_prefix(base, segment) for segment in segments(shared=True)]
            )
        return store, version

    def _prepare(self, store: GraphStore, version: str | None) -> None:
        """Build the index of a new version that keeps none (a remote store's) and its
        timeline, then serve that version (off the request path)."""
        try:
            catalog = Catalog.from_store(store, self.settings.index_dir)
            # and its timeline, so the first feed of the new version reads a file
            timeline_for(catalog.index, self.archive, self.settings.base, self.settings.index_dir)
        except Exception:  # the current version stays; the next check tries again
            log.exception("building the index of a new store version failed")
            with self._lock:
                self._preparing = None
            return
        with self._lock:
            self._serving, self._preparing = StoreVersion(store, version, catalog), None

    @property
    def store(self) -> GraphStore:
        """The store handle of the current version."""
        return self.current.store

    @property
    def version(self) -> str:
        """The name of the store version the app reads now ("" for a store without one)."""
        return self.current.version or ""

    @property
    def catalog(self) -> Catalog:
        """The index of the current version: the one it keeps, else the one built for it
        into the index folder (by ``kg serve`` before it started, or now)."""
        served = self.current
        if served.catalog is not None:
            return served.catalog
        with self._first_catalog:  # one build at a time, the others wait for it
            if served.catalog is None:
                served.catalog = Catalog.from_store(served.store, self.settings.index_dir)
            return served.catalog

    def registry(self, release: str | None = None) -> Registry:
        """The registry a request reads: the live store (or ``release``'s copy from the
        archive) and the archive, both kept between requests (closing it closes neither)."""
        store = self.archive.release_store(release) if release else self.store
        return Registry(
            self.settings, read_only=True, release=release, store=store, archive=self.archive
        )

    def history(self, graph: str) -> list[HistoryEntry]:
        """The releases that hold ``graph``, with what changed (kept until a new release)."""
        key = (self.archive_head, graph)
        with self._lock:
            found = self._histories.get(key)
        if found is None:
            found = graph_history(self.registry(), graph)
            with self._lock:
                if len(self._histories) > 4096:
                    self._histories.clear()
                self._histories[key] = found
        return found

    def derived(self, name: str, read: Callable[[GraphStore], T]) -> T:
        """What ``read`` gives of the current version's store, read once per version."""
        served = self.current
        if name in served.derived:  # read once: no need to wait on a build of something else
            return served.derived[name]  # type: ignore[return-value]
        with self._timeline_lock:
            if name not in served.derived:
                served.derived[name] = read(served.store)
            return served.derived[name]  # type: ignore[return-value]

    @property
    def licence_parts(self) -> list[Part]:
        """The registry's parts with the licence of each (kg.store.licences), their records
        counted from the index's rows once per version: what the index's catalogue, VoID and
        the dumps' manifests state."""
        return self.derived(
            "licence-parts",
            lambda _store: counted_parts(self.catalog.index.parts(), self.settings.licence),
        )

    @property
    def timeline(self) -> TimelineFile:
        """The timeline of the current version and release (kg.store.index.timeline): its
        file, written into the index folder by whoever first needs it, and again after a
        release (which changes what entries are released, not the store)."""
        served = self.current
        catalog = self.catalog
        key = self.archive_head
        with self._timeline_lock:
            if served.timeline is None or served.timeline[0] != key:
                served.timeline = (
                    key,
                    timeline_for(
                        catalog.index, self.archive, self.settings.base, self.settings.index_dir
                    ),
                )
            return served.timeline[1]

    @property
    def terms(self) -> Vocabulary:
        return load_terms()


def _once_a_request(name: str, read: Callable[[], T]) -> T:
    """What ``read`` gives, read once a request (kept on ``flask.g`` as ``name``), so
    that every part of one answer sees the same; outside a request, read each time."""
    if not has_request_context():
        return read()
    if name not in g:
        setattr(g, name, read())
    return getattr(g, name)


def build_index(settings: Settings) -> Catalog:
    """The index of the store's version now, opened, or built first where the version keeps
    none (a remote store's), and its timeline file: ``kg serve`` makes sure of them once,
    before it starts its worker processes, which then open the same files instead of each
    building them.

    :raises StoreError: when the store cannot be read.
    """
    with open_store(settings, read_only=True) as store, Archive(settings.archive_dir) as archive:
        catalog = Catalog.from_store(store, settings.index_dir)
        # the feeds' and the sitemap's file too, where no write made it (a remote store's)
        timeline_for(catalog.index, archive, settings.base, settings.index_dir)
        return catalog


def state(app: Flask | None = None) -> AppState:
    return (app or current_app).extensions["kg"]


def close(app: Flask) -> None:
    """Stop what the app started (query workers)."""
    app_state = state(app)
    for runner in (app_state.query_pool, app_state.release_pool):
        if runner is not None:
            runner.close()
    app_state.archive.close()
