"""HTTP caching for every response that comes from data: strong validators, 304 answers,
gzip, ``Cache-Control``, and the per-version response cache (:mod:`kg.web.http.response_cache`).

A page's bytes are a function of the request (host, path, query string, ``Accept``, whether
gzip is accepted) and of its *basis*: the code and settings serving it, the store version
read and the archive's newest release (pages and citations list releases). The ``ETag`` is
a hash of exactly that, so it is known before the view runs: a conditional request whose
tag still holds is answered 304 without reading the store. The tag ends in the response's
class, which says what else it depends on:

- ``l`` live: the basis above; ``Cache-Control: public, max-age=<max_age>``;
- ``d`` dated: a citation (CSL-JSON, BibTeX, RIS), which carries the access date: the UTC
  date joins the hash, so the tag expires at midnight, and so does ``max-age``;
- ``i`` immutable: an answer read from one release alone (``?release=`` on a node's RDF or
  a ``/sparql`` result): the live version and archive head leave the hash, and the answer
  is ``immutable`` for a year.

Files (dumps, release files, the JSON-LD context, static files) are sent by ``send_file``,
which gives them their own validators and ``Range``; they pass through here untouched.
See docs/deployment.md for the policy and how to put a shared cache in front.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import os
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from pathlib import Path
from typing import Protocol, cast

from flask import Flask, Response, current_app, g, request

from ... import __version__
from ...config import Settings
from ...errors import NotFoundError
from ...rdf.formats import FORMATS
from ...resources import resource_dir
from ...store.archive import Archive
from ...store.versions import version_time
from .request_rules import rules_for
from .response_cache import ResponseCache, Stored

LIVE, DATED, IMMUTABLE = "l", "d", "i"
CLASSES = frozenset({LIVE, DATED, IMMUTABLE})
YEAR = 365 * 24 * 3600
CITATION_TYPES = frozenset(fmt.media_type for fmt in FORMATS if fmt.citation)
#: Bodies shorter than this are sent as they are: gzip would add more than it saves.
GZIP_FROM = 256
COMPRESSED_SUFFIXES = ("+json", "+xml")
COMPRESSED_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/n-triples",
        "application/n-quads",
        "application/trig",
        "application/x-bibtex",
        "application/x-research-info-systems",
        "application/sparql-results+json",
    }
)


class Served(Protocol):
    """What the cache reads of the app it serves (kg.web.state's ``AppState``)."""

    settings: Settings
    archive: Archive
    response_cache: ResponseCache

    @property
    def version(self) -> str: ...

    @property
    def archive_head(self) -> Path | None: ...


def served() -> Served:
    """What the current app serves."""
    found: Served = current_app.extensions["kg"]
    return found


@dataclass(frozen=True)
class CachedRequest:
    """One GET or HEAD as the cache sees it: what its answer's bytes depend on."""

    #: (code and settings, store version, archive head): a new one empties the cache.
    basis: tuple[str, str, str]
    #: The representation asked for, within the basis.
    key: str
    #: When the basis last changed (the store version's or newest release's write).
    modified: datetime | None
    gzip: bool
    today: date
    #: When the release a ``?release=`` request reads was written (None: no such release).
    released: datetime | None = None

    def tag(self, kind: str) -> str:
        """The strong entity tag of an answer of class ``kind`` (without quotes)."""
        code, version, archive = self.basis
        parts = [self.key, kind, code]
        if kind != IMMUTABLE:  # the release read is in the key (its query string) already
            parts += [version, archive]
        if kind == DATED:
            parts.append(self.today.isoformat())
        digest = hashlib.sha256("\n".join(parts).encode()).digest()[:18]
        return f"{base64.urlsafe_b64encode(digest).decode()}-{kind}"

    def last_modified(self, kind: str) -> datetime | None:
        if kind == DATED:  # the access date it prints changed at midnight
            midnight = datetime.combine(self.today, time(), UTC)
            return max(self.modified, midnight) if self.modified else midnight
        if kind == IMMUTABLE:
            return self.released
        return self.modified


def register_http_cache(app: Flask) -> None:
    """Answer from the cache or with 304 before a view runs; validate, compress and keep
    every answer from data after it ran."""
    app.before_request(answer_early)
    app.after_request(finish)


def answer_early() -> Response | None:
    """A 304 when the client's tag still holds, the kept answer when there is one, else
    None (the view runs)."""
    if (
        request.method not in ("GET", "HEAD")
        or request.endpoint is None
        or rules_for(request.endpoint).sends_file
    ):
        return None
    app = served()
    asked = _asked(app)
    g.kg_asked = asked
    tags = request.if_none_match
    for sent in tags.as_set(include_weak=True):
        kind = sent.rpartition("-")[2]  # a tag says its class: check it as that one
        if kind in CLASSES and sent == asked.tag(kind):
            g.kg_answered = True
            return _not_modified(asked, kind, app.settings)
    if app.response_cache.limit == 0:
        return None
    stored = app.response_cache.get(asked.basis, cache_key(asked))
    if stored is None:
        return None
    g.kg_answered = True
    since = request.if_modified_since
    if not tags and since and stored.modified and stored.modified <= since:
        return _not_modified(asked, stored.kind, app.settings)
    response = Response(stored.body, status=stored.status, headers=stored.headers)
    response.headers["X-Cache"] = "hit"
    return response


def finish(response: Response) -> Response:
    """Give a fresh answer from data its validators, class and encoding, keep it, and
    answer 304 instead when the request's If-Modified-Since still holds."""
    asked: CachedRequest | None = g.get("kg_asked")
    if asked is not None and request.if_none_match.star_tag and response.status_code == 200:
        return _not_modified(asked, _kind_of(response), served().settings)  # "*": it exists
    if (
        asked is None
        or g.get("kg_answered")
        or response.status_code != 200
        or response.direct_passthrough
        or response.is_streamed
        or "ETag" in response.headers
    ):
        return response
    app = served()
    kind = _kind_of(response)
    body = response.get_data()
    if (
        asked.gzip
        and len(body) >= GZIP_FROM
        # a response made here always has a media type (Flask's default: text/html)
        and _compressible(cast(str, response.mimetype))
        and "Content-Encoding" not in response.headers
    ):
        # level 1 (nginx's default): a quarter of level 6's CPU for 15 % more bytes on a
        # record page; mtime 0: the same bytes each time
        body = gzip.compress(body, compresslevel=1, mtime=0)
        response.set_data(body)
        response.headers["Content-Encoding"] = "gzip"
    _validators(response, asked, kind, app.settings)
    modified = asked.last_modified(kind)
    if app.response_cache.limit:
        headers = [(k, v) for k, v in response.headers.items() if k != "Content-Length"]
        app.response_cache.put(
            asked.basis,
            cache_key(asked),
            Stored(response.status_code, headers, body, modified, kind),
        )
    response.headers["X-Cache"] = "miss"
    since = request.if_modified_since
    if not request.if_none_match and since and modified and modified <= since:
        return _not_modified(asked, kind, app.settings)
    return response


def _validators(response: Response, asked: CachedRequest, kind: str, settings: Settings) -> None:
    response.set_etag(asked.tag(kind))
    modified = asked.last_modified(kind)
    if modified is not None:
        response.last_modified = modified
    if "Cache-Control" not in response.headers:
        response.headers["Cache-Control"] = _cache_control(asked, kind, settings)
    response.vary.update(("Accept", "Accept-Encoding"))


def _not_modified(asked: CachedRequest, kind: str, settings: Settings) -> Response:
    response = Response(status=304)
    _validators(response, asked, kind, settings)
    return response


def _cache_control(asked: CachedRequest, kind: str, settings: Settings) -> str:
    if kind == IMMUTABLE:
        return f"public, max-age={YEAR}, immutable"
    age = settings.max_age
    if kind == DATED:
        midnight = datetime.combine(asked.today + timedelta(days=1), time(), UTC)
        age = min(age, int((midnight - datetime.now(UTC)).total_seconds()))
    return f"public, max-age={max(age, 0)}"


def _kind_of(response: Response) -> str:
    if response.mimetype in CITATION_TYPES:
        return DATED
    if (
        request.args.get("release")
        and rules_for(request.endpoint).reads_release
        and response.mimetype != "text/html"
    ):
        return IMMUTABLE
    return LIVE


def _compressible(media_type: str) -> bool:
    return (
        media_type.startswith("text/")
        or media_type in COMPRESSED_TYPES
        or media_type.endswith(COMPRESSED_SUFFIXES)
    )


def _asked(app: Served) -> CachedRequest:
    version = app.version
    head = app.archive_head
    archive = head.name if head is not None else ""
    # whole seconds: what Last-Modified can say, so If-Modified-Since compares equal
    times = [t.replace(microsecond=0) for t in (version_time(version), version_time(archive)) if t]
    gzip_ok = request.accept_encodings["gzip"] > 0
    accept = "".join(request.headers.get("Accept", "").split()).lower()
    origin = f"{request.scheme}://{request.host}{request.script_root}"  # what url_root says
    key = "\n".join(
        [origin, request.path, request.query_string.decode("latin-1"), accept, "gzip" * gzip_ok]
    )
    return CachedRequest(
        (code_identity(app.settings), version, archive),
        key,
        max(times) if times else None,
        gzip_ok,
        datetime.now(UTC).date(),
        _released(app, request.args.get("release")),
    )


def _released(app: Served, release: str | None) -> datetime | None:
    if not release:
        return None
    try:
        written = app.archive.release_dir(release).stat().st_mtime
    except (NotFoundError, OSError):  # not a release: the view answers 404
        return None
    return datetime.fromtimestamp(int(written), UTC)


def cache_key(asked: CachedRequest) -> str:
    """What the response cache keeps ``asked``'s answer under, within its basis: the
    request and the day (a citation kept yesterday must not answer today: it prints the
    access date)."""
    return f"{asked.key}\n{asked.today.isoformat()}"


def code_identity(settings: Settings) -> str:
    """What identifies the code and settings serving: the version, every file of the
    package and its resources (by size and modification time), and the settings. Two
    processes of one deployment agree on it; a code change or a restart with other
    settings changes every tag."""
    return _identity(settings)


@cache  # once a process: Settings is frozen, so the request path only looks it up
def _identity(settings: Settings) -> str:
    digest = hashlib.sha256(f"{__version__}\n{settings!r}".encode())
    package = str(Path(__file__).resolve().parents[2])  # kg/
    roots = [package] + [str(resource_dir(name)) for name in ("ontology", "queries", "shapes")]
    found = []
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                stat = os.stat(os.path.join(folder, name))
                found.append(f"{folder}/{name} {stat.st_size} {stat.st_mtime_ns}\n")
    digest.update("".join(sorted(found)).encode())
    return digest.hexdigest()[:16]
