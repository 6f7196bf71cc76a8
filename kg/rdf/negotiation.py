"""Content negotiation: one pure function serves every route.

A route offers media types in its order of preference; the client's ``Accept``
header (q-values parsed by Werkzeug) picks one, unless a format name given as a
suffix (``/record/x.ttl``) or ``?format=`` overrides it (the names and their media
types: :mod:`kg.rdf.formats`). What cannot be given is :class:`NotAcceptable` (HTTP 406).

The parameters that choose how a formatted citation is written (``style`` and ``locale``
of ``text/x-bibliography; style=apa``, as DOI content negotiation takes them) choose no
media type: they are set aside before matching, and :func:`accept_parameter` reads them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from werkzeug.datastructures import MIMEAccept
from werkzeug.http import parse_accept_header

from ..errors import KgError
from .formats import MEDIA_TYPES, NAMES


class NotAcceptable(KgError):
    """The client accepts none of the representations a resource has."""

    http_status = 406

    def __init__(self, offered: Sequence[str]):
        self.offered = list(offered)
        super().__init__(
            "none of the requested media types is available; this resource "
            "offers: " + ", ".join(self.offered)
        )


def negotiate(accept: str | None, offered: Sequence[str], override: str | None = None) -> str:
    """The media type to answer with.

    ``accept`` is the request's ``Accept`` header (its answer is kept, for the few headers
    clients send). ``override`` is a format
    name (one of :data:`kg.rdf.formats.NAMES`) or a media type, from a suffix or
    ``?format=``; it wins over ``Accept``. Without an ``Accept`` header the first offered
    type is the answer.

    >>> negotiate("text/turtle;q=0.9, application/ld+json", ["text/turtle", "text/html"])
    'text/turtle'

    :raises NotAcceptable: when the override or the Accept header names nothing offered.
    """
    if override:
        media_type = named_media_type(override)
        if media_type in offered:
            return media_type
        raise NotAcceptable(offered)
    if not accept:
        return offered[0]
    best = _best_match(_without_rendering(accept), tuple(offered))
    if best is None:
        raise NotAcceptable(offered)
    return best


#: Parameters of an Accept entry that say how to write a representation, not which one.
RENDERING_PARAMETERS = ("style", "locale")
_RENDERING = re.compile(
    r"\s*;\s*(?:" + "|".join(RENDERING_PARAMETERS) + r')\s*=\s*(?:"[^"]*"|[^;,]*)', re.I
)


def _without_rendering(accept: str) -> str:
    return _RENDERING.sub("", accept) if ";" in accept else accept


def accept_parameter(accept: str | None, media_type: str, name: str) -> str | None:
    """The value of parameter ``name`` that ``accept`` gives ``media_type`` (its entry for
    that type, however it is spelt), or None.

    >>> accept_parameter("text/x-bibliography; style=apa", "text/x-bibliography", "style")
    'apa'
    """
    for entry in (accept or "").split(","):
        kind, *params = entry.split(";")
        if kind.strip().lower() != media_type:
            continue
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == name:
                return value.strip().strip('"')
    return None


def named_media_type(value: str) -> str:
    """The media type a ``?format=`` value names: a format name or a media type, or a
    list of them as an ``Accept`` header gives them, which names its first known one
    (SPARQLWrapper sends ``application/ld+json,application/x-json+ld`` beside
    ``json-ld``). A value that names no known type is returned as it is.

    >>> named_media_type("application/ld+json,application/x-json+ld")
    'application/ld+json'
    """
    for item in value.split(","):
        known = NAMES.get(item.strip()) or MEDIA_TYPES.get(item.strip())
        if known is not None:
            return known.media_type
    return value


@lru_cache(maxsize=256)
def _best_match(accept: str, offered: tuple[str, ...]) -> str | None:
    # Parsing the header and matching took a tenth of a fast query's answer; a server
    # sees a few distinct headers (a browser's, a client library's) again and again.
    return parse_accept_header(accept, MIMEAccept).best_match(offered)


def split_suffix(name: str) -> tuple[str, str | None]:
    """``x.ttl`` -> (``x``, ``ttl``), ``x.csl.json`` -> (``x``, ``csl.json``) when the
    suffix is a format name (the longest that is); else (name, None)."""
    parts = name.split(".")
    for cut in range(1, len(parts)):  # the longest suffix first
        stem, suffix = ".".join(parts[:cut]), ".".join(parts[cut:])
        if stem and suffix in NAMES:
            return stem, suffix
    return name, None
