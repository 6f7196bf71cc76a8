"""The registry: one object for what a command or a request works on.

A registry is its settings, its base IRI, its live store and its archive of releases.
The CLI makes one per command and the web app one per request; services take it
instead of a store, a base IRI and an archive passed side by side. Stores open when
first used, so a command that only reads the archive never opens the store:

>>> from kg.config import load_settings
>>> registry = Registry(load_settings({"store": "/nonexistent/store"}))
>>> registry.iri("record", "x")
'https://claimgraph.example/record/x'
>>> registry.close()  # nothing was opened
"""

from __future__ import annotations

from types import TracebackType

from .config import Settings
from .kinds import minted_iri
from .store import GraphStore, open_store
from .store.archive import Archive, open_release_store
from .store.index import Index, usable
from .store.index.timeline_file import timeline_for


class Registry:
    """The settings, the store and the archive of one registry.

    ``read_only`` opens the live store as a read-only snapshot; ``release`` reads that
    release's copy from the archive instead of the live store. A store or an archive
    handed in (the web app keeps them between requests) is used as it is and never
    closed here; what the registry opens itself, :meth:`close` closes.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        read_only: bool = False,
        release: str | None = None,
        store: GraphStore | None = None,
        archive: Archive | None = None,
    ):
        self.settings = settings
        self.read_only = read_only or release is not None
        self.release = release
        self._store = store
        self._archive = archive
        self._owned: list[GraphStore | Archive] = []

    @property
    def base(self) -> str:
        """The base IRI every minted IRI starts with."""
        return self.settings.base

    @property
    def store(self) -> GraphStore:
        """The live store (or the release's copy), opened on first use.

        :raises StoreError: when it cannot be opened.
        :raises NotFoundError: for a release the archive does not hold.
        """
        if self._store is None:
            if self.release is not None:
                self._store = open_release_store(self.settings.archive_dir, self.release)
            else:
                self._store = open_store(self.settings, read_only=self.read_only)
            self._owned.append(self._store)
        return self._store

    @property
    def archive(self) -> Archive:
        """The archive of releases, read-only, opened on first use."""
        if self._archive is None:
            self._archive = Archive(self.settings.archive_dir)
            self._owned.append(self._archive)
        return self._archive

    def iri(self, segment: str, ident: str) -> str:
        """The minted IRI of ``ident`` under ``segment`` (``record``, ``activity``, ...: a
        segment of :mod:`kg.kinds`)."""
        return minted_iri(self.base, segment, ident)

    def write_timeline(self) -> None:
        """Write the timeline file of the store's version and the archive's now, where the
        store keeps its index (kg.store.index.timeline): the last step of a write or a
        release, so the first feed or sitemap after it reads a file instead of making one.
        A store that keeps no index (a remote one) leaves it to the server.

        :raises StoreError: when it cannot be written.
        """
        kept = self.store.kept_index()
        if kept is not None and usable(kept):
            with Archive(self.settings.archive_dir) as archive:  # as the release left it
                timeline_for(Index(kept), archive, self.base, self.settings.index_dir)

    def close(self) -> None:
        """Close what this registry opened itself."""
        while self._owned:
            self._owned.pop().close()

    def __enter__(self) -> Registry:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
