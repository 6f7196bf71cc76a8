"""Whole responses kept in memory, for one store version at a time, within a byte budget.

A server process keeps the bodies it has sent (compressed when they were sent compressed)
so that the next request for the same representation is answered without reading the
store or rendering a template. Entries belong to one :class:`Basis` (code, store version,
archive head): the first request read from a new basis drops every older entry, so no page
of an older version is served after the app has switched (the rule that readers follow the
live version). Within the budget the least recently used entries go first.

>>> cache = ResponseCache(limit=10_000)
>>> basis = ("code", "v-1", "")
>>> cache.put(basis, "GET /", Stored(200, [("Content-Type", "text/plain")], b"hello"))
True
>>> cache.get(basis, "GET /").body
b'hello'
>>> cache.get(("code", "v-2", ""), "GET /") is None  # a new version: nothing older is kept
True
>>> cache.stats()["entries"]
0
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

#: What an entry costs besides its body and headers (the objects holding them), roughly.
OVERHEAD = 400
#: The largest share of the budget one body may take: a few huge answers (a /sparql result
#: of every row) must not push out the many pages readers ask for.
LARGEST_SHARE = 8


@dataclass(frozen=True)
class Stored:
    """One response as it was sent: status, headers (validators included) and body."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes
    #: The response's Last-Modified, for If-Modified-Since.
    modified: datetime | None = None
    #: Its class (kg.web.http.cache: live, dated, immutable), for the 304 that stands for it.
    kind: str = ""

    @property
    def size(self) -> int:
        return len(self.body) + sum(len(k) + len(v) for k, v in self.headers) + OVERHEAD


class ResponseCache:
    """A bounded, thread-safe map (request key -> :class:`Stored`) for one basis at a time.

    ``limit`` is in bytes; 0 keeps nothing (every ``put`` is refused)."""

    def __init__(self, limit: int):
        self.limit = limit
        self._lock = threading.Lock()
        self._basis: object = None
        self._entries: OrderedDict[str, Stored] = OrderedDict()
        self._bytes = 0
        self.hits = 0
        self.misses = 0
        self.dropped = 0

    def get(self, basis: object, key: str) -> Stored | None:
        """The entry for ``key`` under ``basis``, marked as just used (None: not kept)."""
        with self._lock:
            self._switch(basis)
            found = self._entries.get(key)
            if found is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return found

    def put(self, basis: object, key: str, stored: Stored) -> bool:
        """Keep ``stored`` for ``key`` under ``basis``; False when it is too large to keep."""
        size = stored.size
        if size * LARGEST_SHARE > self.limit:
            return False
        with self._lock:
            self._switch(basis)
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old.size
            self._entries[key] = stored
            self._bytes += size
            while self._bytes > self.limit:
                _, evicted = self._entries.popitem(last=False)
                self._bytes -= evicted.size
                self.dropped += 1
            return True

    def _switch(self, basis: object) -> None:
        if basis != self._basis:  # a newer version (or code, or release): start afresh
            self._entries.clear()
            self._bytes = 0
            self._basis = basis

    def stats(self) -> dict[str, int]:
        """Entries, bytes held, hits, misses and entries dropped for room, so far."""
        with self._lock:
            return {
                "entries": len(self._entries),
                "bytes": self._bytes,
                "limit": self.limit,
                "hits": self.hits,
                "misses": self.misses,
                "dropped": self.dropped,
            }
