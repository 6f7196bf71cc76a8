"""Content negotiation: one pure function serves every route.

A route offers media types in its order of preference; the client's ``Accept``
header (q-values parsed by Werkzeug) picks one, unless a format name given as a
suffix (``/record/x.ttl``) or ``?format=`` overrides it (the names and their media
types: :mod:`kg.rdf.formats`). What cannot be given is :class:`NotAcceptable` (HTTP 406).
"""

from __future__ import annotations

from collections.abc import Sequence

from werkzeug.datastructures import MIMEAccept

from ..errors import KgError
from .formats import NAMES, media_type_of


class NotAcceptable(KgError):
    """The client accepts none of the representations a resource has."""

    http_status = 406

    def __init__(self, offered: Sequence[str]):
        self.offered = list(offered)
        super().__init__("none of the requested media types is available; this resource "
                         "offers: " + ", ".join(self.offered))


def negotiate(accept: MIMEAccept, offered: Sequence[str], override: str | None = None) -> str:
    """The media type to answer with.

    ``override`` is a format name (one of :data:`kg.rdf.formats.NAMES`) or a media type,
    from a suffix or ``?format=``; it wins over ``Accept``. Without an ``Accept`` header the
    first offered type is the answer.

    :raises NotAcceptable: when the override or the Accept header names nothing offered.
    """
    if override:
        media_type = media_type_of(override)
        if media_type in offered:
            return media_type
        raise NotAcceptable(offered)
    if not accept:
        return offered[0]
    best = accept.best_match(offered)
    if best is None:
        raise NotAcceptable(offered)
    return best


def split_suffix(name: str) -> tuple[str, str | None]:
    """``x.ttl`` -> (``x``, ``ttl``), ``x.csl.json`` -> (``x``, ``csl.json``) when the
    suffix is a format name (the longest that is); else (name, None)."""
    parts = name.split(".")
    for cut in range(1, len(parts)):  # the longest suffix first
        stem, suffix = ".".join(parts[:cut]), ".".join(parts[cut:])
        if stem and suffix in NAMES:
            return stem, suffix
    return name, None
