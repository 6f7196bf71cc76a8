"""What a read-only public endpoint refuses before running anything: updates and SERVICE.

The check works on the query's tokens with strings, IRIs and comments blanked out,
so a keyword inside a literal ("SERVICE" in a title) is not mistaken for one.
"""

from __future__ import annotations

import re

from ..errors import KgError

_BLANKED = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""'       # long double-quoted string
    r"|'''(?:[^'\\]|\\.|'(?!''))*'''"      # long single-quoted string
    r'|"(?:[^"\\\n]|\\.)*"'               # double-quoted string
    r"|'(?:[^'\\\n]|\\.)*'"               # single-quoted string
    r"|<[^<>\"{}|^`\\\s]*>"               # IRI
    r"|#[^\n]*",                          # comment
)
# A keyword, not a variable (?drop), a prefix (delete:) or part of a prefixed name (ex:copy).
_KEYWORD = r"(?<![?$:\w-])({})(?![\w:-])"
_UPDATE = re.compile(_KEYWORD.format("INSERT|DELETE|LOAD|CLEAR|DROP|CREATE|ADD|MOVE|COPY|WITH"),
                     re.IGNORECASE)
_QUERY_FORM = re.compile(_KEYWORD.format("SELECT|CONSTRUCT|DESCRIBE|ASK"), re.IGNORECASE)
_SERVICE = re.compile(_KEYWORD.format("SERVICE"), re.IGNORECASE)


class Refused(KgError):
    """A request the read-only endpoint will not carry out."""

    http_status = 403


def tokens(text: str) -> str:
    """The query with strings, IRIs and comments replaced by spaces."""
    return _BLANKED.sub(" ", text)


def check_query(text: str) -> None:
    """Refuse updates and federated queries.

    :raises Refused: naming the reason.
    """
    bare = tokens(text)
    update = _UPDATE.search(bare)
    form = _QUERY_FORM.search(bare)
    if update and (form is None or update.start() < form.start()):
        raise Refused(f"this endpoint is read-only: SPARQL updates ({update.group(1).upper()}) "
                      "are refused")
    if _SERVICE.search(bare):
        raise Refused("SERVICE is refused: this endpoint sends no request to other hosts")
