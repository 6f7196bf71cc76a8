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


_FORM = keywords("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")


def query_form(text: str) -> str | None:
    """The form of a query (SELECT, ASK, CONSTRUCT, DESCRIBE): its first form keyword;
    None when it has none (not a query).

    >>> query_form('PREFIX s: <urn:select> CONSTRUCT { ?s ?p "ASK" } WHERE { ?s ?p ?o }')
    'CONSTRUCT'
    >>> query_form("# SELECT in a comment\\nASK { ?select ?p ?o }")
    'ASK'
    """
    found = _FORM.search(tokens(text))
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
    return f"{text[:brace + 1]} {clause}{text[brace + 1:]}"


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


_STRINGS = re.compile(_BLANKED.pattern.replace(r'|<[^<>\"{}|^`\\\s]*>', ""))


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
    if query_form(text) != "SELECT":
        return None
    blanked, depth, outer = tokens(text), 0, []
    for char in blanked:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        outer.append(char if depth == 0 and char != "}" else " ")
    if _OUTER_CAP.search("".join(outer)):
        return None
    return f"{text}\nLIMIT {rows}"
