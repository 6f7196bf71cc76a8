"""Reading SPARQL text without parsing it: its keywords, with strings, IRIs and comments
blanked out, so a keyword inside a literal ("SERVICE" in a title) is not mistaken for one.

pyoxigraph parses a query only to run it, and a remote store parses it on its side; what
the code must know beforehand (is it an update, does it name its own dataset) is read here.
"""

from __future__ import annotations

import re

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


def tokens(text: str) -> str:
    """The query with strings, IRIs and comments replaced by spaces."""
    return _BLANKED.sub(" ", text)


def keywords(*words: str) -> re.Pattern[str]:
    """A pattern finding any of ``words`` as a keyword (any case) in :func:`tokens`' text."""
    return re.compile(_KEYWORD.format("|".join(words)), re.IGNORECASE)


_FROM = keywords("FROM")


def names_dataset(text: str) -> bool:
    """Whether a query names its own dataset (``FROM``, ``FROM NAMED``): FROM is a keyword
    of dataset clauses only."""
    return _FROM.search(tokens(text)) is not None
