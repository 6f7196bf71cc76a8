"""A misspelt search corrected: each word the index has no token of replaced by the most
frequent token within one edit of it (docs/index.md)."""

from __future__ import annotations

from .query import TOKEN
from .reader import Index

#: Tokens up to this long are corrected within one edit when nothing matches.
CORRECTED_UP_TO = 40


def corrected(index: Index, query: str) -> str | None:
    """The query with each word the index has no token of replaced by the most frequent
    token within one edit of it (None: every word is known, or none has a neighbour)."""
    changed, words = False, []
    for word in query.split():
        tokens = TOKEN.findall(word.casefold())
        if len(tokens) == 1 and not _known(index, tokens[0]) and len(tokens[0]) <= CORRECTED_UP_TO:
            better = _neighbour(index, tokens[0])
            if better is not None:
                words.append(better)
                changed = True
                continue
        words.append(word)
    return " ".join(words) if changed else None


def _known(index: Index, token: str) -> bool:
    return index.execute("SELECT 1 FROM words WHERE term = ?", (token,)).fetchone() is not None


def _neighbour(index: Index, token: str) -> str | None:
    size = len(token)
    candidates = index.execute(
        "SELECT term, cnt FROM words WHERE length(term) BETWEEN ? AND ?", (size - 1, size + 1)
    )
    near = [(n, term) for term, n in candidates if one_edit(token, term)]
    return max(near)[1] if near else None


def one_edit(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with one letter inserted, removed, changed, or two neighbours
    swapped.

    >>> [one_edit("ifeval", w) for w in ("ifevl", "ifevall", "ifexal", "iefval", "ifeval", "if")]
    [True, True, True, True, False, False]
    """
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    if len(a) == len(b):
        rest_a, rest_b = a[start + 1 :], b[start + 1 :]
        swapped = (
            a[start + 1 : start + 2] == b[start : start + 1]
            and a[start : start + 1] == b[start + 1 : start + 2]
        )
        return rest_a == rest_b or (swapped and a[start + 2 :] == b[start + 2 :])
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[start + 1 :] == shorter[start:]
