"""Reading SPARQL text without parsing it: its keywords, with strings, IRIs and comments
blanked out, so a keyword inside a literal ("SERVICE" in a title) is not mistaken for one.

pyoxigraph parses a query only to run it, and a remote store parses it on its side; what
the code must know beforehand (is it an update, does it name its own dataset) is read here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

_BLANKED = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""'  # long double-quoted string
    r"|'''(?:[^'\\]|\\.|'(?!''))*'''"  # long single-quoted string
    r'|"(?:[^"\\\n]|\\.)*"'  # double-quoted string
    r"|'(?:[^'\\\n]|\\.)*'"  # single-quoted string
    r"|<[^<>\"{}|^`\\\s]*>"  # IRI
    r"|#[^\n]*",  # comment
)
# A keyword, not a variable (?drop), a prefix (delete:) or part of a prefixed name (ex:copy).
_KEYWORD = r"(?<![?$:\w-])({})(?![\w:-])"


@lru_cache(maxsize=32)  # a request asks it of one text several times (guard, form, dataset)
def tokens(text: str) -> str:
    """The query with strings, IRIs and comments replaced by spaces."""
    return _BLANKED.sub(" ", text)


class Keywords:
    """Finds any of some keywords (any case) in :func:`tokens`' text.

    The pattern alone tries a look-behind at every character: tens of microseconds for a
    query of a few kilobytes, and several are asked of each query. In an ASCII text it is
    tried only where one of the words occurs (any case), which ``str.find`` finds.

    >>> finds = keywords("LIMIT", "OFFSET")
    >>> [m.group(1) for m in finds.finditer("SELECT ?limit { ?s ?p ?o } limit 3 OFFSET 1")]
    ['limit', 'OFFSET']
    >>> finds.search("ASK { ?limit ex:offset ?o }") is None
    True
    """

    def __init__(self, words: tuple[str, ...]):
        self.words = tuple(word.lower() for word in words)
        self.pattern = re.compile(_KEYWORD.format("|".join(words)), re.IGNORECASE)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if not text.isascii():  # other letters may match under IGNORECASE: every position
            yield from self.pattern.finditer(text)
            return
        lowered = text.lower()  # ASCII: the same positions
        starts = set()
        for word in self.words:
            at = lowered.find(word)
            while at >= 0:
                starts.add(at)
                at = lowered.find(word, at + 1)
        done = 0
        for at in sorted(starts):
            found = self.pattern.match(text, at) if at >= done else None  # sees what precedes
            if found:
                done = found.end()
                yield found

    def search(self, text: str) -> re.Match[str] | None:
        return _first(self, text)


@lru_cache(maxsize=256)  # the guard, the form and the dataset ask it of one text each
def _first(finds: Keywords, text: str) -> re.Match[str] | None:
    return next(finds.finditer(text), None)


def keywords(*words: str) -> Keywords:
    """What finds any of ``words`` as a keyword (any case) in :func:`tokens`' text."""
    return Keywords(words)


_FROM = keywords("FROM")


def names_dataset(text: str) -> bool:
    """Whether a query names its own dataset (``FROM``, ``FROM NAMED``): FROM is a keyword
    of dataset clauses only."""
    return _FROM.search(tokens(text)) is not None


_FORM = keywords("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")


def query_form(text: str) -> str | None:
    """The form of a query (SELECT, ASK, CONSTRUCT, DESCRIBE): its first form keyword;
    None when it has none (not a query).

    >>> query_form('PREFIX s: <urn:select> CONSTRUCT { ?s ?p "ASK" } WHERE { ?s ?p ?o }')
    'CONSTRUCT'
    >>> query_form("# SELECT in a comment\\nASK { ?select ?p ?o }")
    'ASK'
    """
    return _form_of(tokens(text))


def _form_of(blanked: str) -> str | None:
    """:func:`query_form` of a text :func:`tokens` already blanked."""
    found = _FORM.search(blanked)
    return found.group(1).upper() if found else None


_WHERE = keywords("WHERE")


def inside_where(text: str, clause: str) -> str:
    """The query with ``clause`` (a ``VALUES`` block) placed first in its ``WHERE`` group,
    for a server that applies a trailing ``VALUES`` wrongly (Virtuoso 7 joins it with part
    of a ``UNION`` only); the query as it is when it has no group.

    >>> inside_where('SELECT ?s WHERE { ?s ?p "WHERE {" }', "VALUES ?s { <urn:a> }")
    'SELECT ?s WHERE { VALUES ?s { <urn:a> } ?s ?p "WHERE {" }'
    >>> inside_where("ASK { ?s ?p ?o }", "VALUES ?s { <urn:a> }")
    'ASK { VALUES ?s { <urn:a> } ?s ?p ?o }'
    """
    # blanked to the same length, so positions in it are positions in the text
    blank = _BLANKED.sub(lambda found: " " * len(found.group()), text)
    where = _WHERE.search(blank)
    brace = blank.find("{", where.end() if where else 0)
    if brace < 0:
        return text
    return f"{text[: brace + 1]} {clause}{text[brace + 1 :]}"


_DATASET_CLAUSE = re.compile(r"\s+(?:NAMED\s+)?(?:<[^<>\s]*>|[\w.-]*:[\w.-]*)", re.IGNORECASE)


def without_dataset(text: str) -> str:
    """The query without its ``FROM`` and ``FROM NAMED`` clauses: for a server that adds a
    request's dataset to the query's own where the protocol says the request's replaces
    it (SPARQL 1.1 Protocol 2.1.4; Virtuoso 7 adds them).

    >>> without_dataset("SELECT * FROM <urn:a> FROM NAMED ex:b WHERE { ?s ?p '<x> FROM' }")
    "SELECT * WHERE { ?s ?p '<x> FROM' }"
    """
    blank = _BLANKED.sub(lambda found: " " * len(found.group()), text)
    cuts = []
    for found in _FROM.finditer(blank):
        clause = _DATASET_CLAUSE.match(text, found.end())
        if clause:
            cuts.append((found.start(), clause.end()))
    for start, end in reversed(cuts):
        text = text[:start].rstrip() + text[end:]
    return text


_GRAPH_CONSTANT = re.compile(r"(?<![?$:\w-])GRAPH\s+(?:<|[A-Za-z][\w.-]*:|:)", re.IGNORECASE)


def names_a_graph(text: str) -> bool:
    """Whether a query has a ``GRAPH`` pattern on a named graph (an IRI, not a variable).

    >>> names_a_graph("ASK { GRAPH <urn:g> { ?s ?p ?o } }"), names_a_graph("ASK { GRAPH ?g {} }")
    (True, False)
    """
    # on the text with strings and comments blanked but IRIs kept
    return _GRAPH_CONSTANT.search(_STRINGS.sub(" ", text)) is not None


_STRINGS = re.compile(_BLANKED.pattern.replace(r"|<[^<>\"{}|^`\\\s]*>", ""))


_OUTER_CAP = keywords("LIMIT", "OFFSET", "VALUES")


def with_row_limit(text: str, rows: int) -> str | None:
    """A ``SELECT`` query with ``LIMIT rows`` added to its outermost query (what a row cap
    keeps of its answer, the same rows in the same order); None where none can be added:
    another form, or one with its own ``LIMIT``, ``OFFSET`` or trailing ``VALUES`` (at
    brace depth 0, outside every group).

    >>> with_row_limit("SELECT * WHERE { { SELECT ?s WHERE { ?s ?p ?o } LIMIT 5 } }", 11)
    'SELECT * WHERE { { SELECT ?s WHERE { ?s ?p ?o } LIMIT 5 } }\\nLIMIT 11'
    >>> with_row_limit("SELECT * { ?s ?p ?o } ORDER BY ?s LIMIT 3", 11) is None
    True
    >>> with_row_limit('SELECT * { ?s ?p "}" } VALUES ?s { <urn:a> }', 11) is None
    True
    """
    blanked = tokens(text)
    if _form_of(blanked) != "SELECT":
        return None
    for found in _OUTER_CAP.finditer(blanked):
        at = found.start()
        if blanked.count("{", 0, at) == blanked.count("}", 0, at):  # outside every group
            return None
    return f"{text}\nLIMIT {rows}"
