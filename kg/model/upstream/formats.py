"""The upstream formats claimgraph reads, registered once: by name and by media type.

Every feature finds a format here (``get``, ``by_media_type``, ``every``) and calls its
operations (:class:`~.format.UpstreamFormat`); none names a format. Registering one also
makes its media type and suffix known to content negotiation and ``--format``
(:func:`kg.rdf.formats.add`). The built-in formats are registered when this module is
first imported; a test or an extension registers another with :func:`register` (and may
take it back with :func:`unregister`).

The data model reaches this module from inside its functions (a kept file's format is
known only once its import record is read): the format packages build on the data model
(:mod:`kg.model.mapping`), so the model may not import them when it is itself imported.
"""

from __future__ import annotations

from ...rdf import formats as table
from .every_eval_ever import EVERY_EVAL_EVER
from .format import UpstreamFormat

_BY_NAME: dict[str, UpstreamFormat] = {}


def register(fmt: UpstreamFormat) -> None:
    """Make ``fmt`` known to every feature, after those registered before it.

    :raises ValueError: when its name, or a name or media type of its row in the table of
        formats, is taken.
    """
    if fmt.name in _BY_NAME:
        raise ValueError(f"an upstream format {fmt.name!r} is registered already")
    table.add(fmt.media_type)
    _BY_NAME[fmt.name] = fmt


def unregister(name: str) -> None:
    """Forget the format ``name`` (its media type and names too)."""
    fmt = _BY_NAME.pop(name, None)
    if fmt is not None:
        table.remove(fmt.media_type)


def names() -> tuple[str, ...]:
    """The names of the registered formats, in the order they were registered."""
    return tuple(_BY_NAME)


def every() -> tuple[UpstreamFormat, ...]:
    """The registered formats, in the order they were registered."""
    return tuple(_BY_NAME.values())


def get(name: str) -> UpstreamFormat:
    """The format ``name``.

    :raises KeyError: for a name no format has.
    """
    return _BY_NAME[name]


def by_media_type(media_type: str) -> UpstreamFormat | None:
    """The format whose files have ``media_type``, if one has."""
    return next((f for f in _BY_NAME.values() if f.media_type.media_type == media_type), None)


#: The formats claimgraph brings, registered once.
BUILT_IN: tuple[UpstreamFormat, ...] = (EVERY_EVAL_EVER,)
for _fmt in BUILT_IN:
    register(_fmt)

__all__ = [
    "BUILT_IN",
    "by_media_type",
    "every",
    "get",
    "names",
    "register",
    "unregister",
]
