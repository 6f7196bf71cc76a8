"""Finding a quoted sentence, and the value inside it, in the text a PDF page gives.

The text an extractor gets from a PDF is not the sentence a curator copied: ligatures
come through as one character ("ﬁ"), soft hyphens stay in, words are hyphenated across
line ends, justified lines have runs of spaces (or none), the sentence breaks over lines,
and an arrow may be "→" in one and "->" or "-->" in the other. Page text and quote are
normalized alike (:func:`normalize`), and the quote becomes a pattern in which white
space may vary and a word may break across a line end, with or without a hyphen.

Pure functions over strings: nothing here reads a file.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Characters that print alike and mean the same in a sentence: hyphens and minus signs,
# typographic quotes. NFKC has already turned ligatures, non-breaking spaces and
# full-width forms into their plain letters.
_SAME = str.maketrans(
    {
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2212": "-",
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
    }
)
_ARROW = re.compile(r"-{1,2}>|\u27f6")
#: Between two letters of a word: nothing, or a line end (hyphenated or not).
_BREAK = r"(?:-?[ \t]*\n\s*)?"
#: Between two words: any white space, or none (extractors drop spaces around symbols).
_SPACE = r"\s*"
#: A number where the quote has the printed value, to say what the page prints instead.
_NUMBER = r"[-+]?\d[\d,]*(?:\.\d+)?"


def normalize(text: str) -> str:
    """Text as it is compared: NFKC (ligatures, non-breaking spaces), soft hyphens
    removed, dashes and quotes unified, arrows as "→"; line breaks are kept."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00ad", "")
    return _ARROW.sub("→", text.translate(_SAME))


def collapse(text: str) -> str:
    """White space runs and line breaks as single spaces (for messages)."""
    return " ".join(text.split())


def number_spans(text: str, value: str) -> list[tuple[int, int]]:
    """Where ``value`` stands in ``text`` as a whole number (not inside 111.49 or 11.495)."""
    if not value:
        return []
    pattern = rf"(?<![\d.,]){re.escape(value)}(?!\d|[.,]\d)"
    return [m.span() for m in re.finditer(pattern, text)]


def _pattern(quote: str, holes: list[tuple[int, int]]) -> str:
    """The normalized ``quote`` as a regular expression; each span of ``holes`` matches
    any number (a named group ``v0``, ``v1``, ...)."""
    starts = dict(holes)
    out: list[str] = []
    i, in_word = 0, False
    while i < len(quote):
        if quote[i].isspace():
            while i < len(quote) and quote[i].isspace():
                i += 1
            out.append(_SPACE)
            in_word = False
            continue
        if in_word:
            out.append(_BREAK)
        if i in starts:
            out.append(f"(?P<v{len(out)}>{_NUMBER})")
            i = starts[i]
        else:
            out.append(re.escape(quote[i]))
            i += 1
        in_word = True
    return "".join(out)


@dataclass(frozen=True)
class Hit:
    """Where the quote was found on a page."""

    page: int
    exact: bool  # the whole quote, value included; else the sentence with other numbers
    text: str  # the matched text, white space collapsed
    values: tuple[str, ...] = ()  # for a sentence with other numbers: what it prints


class QuoteFinder:
    """The quote and the printed value, compiled once; searched page by page."""

    def __init__(self, quote: str, value: str):
        self.quote = normalize(quote).strip()
        self.value = normalize(value).strip()
        holes = number_spans(self.quote, self.value)
        #: The value must stand inside the quote: elsewhere on the page it does not count.
        self.value_in_quote = bool(holes)
        self._exact = re.compile(_pattern(self.quote, []))
        self._loose = re.compile(_pattern(self.quote, holes)) if holes else None

    def find(self, text: str, page: int) -> Hit | None:
        """The quote on a page's (raw) text: exactly, or as the same sentence whose number
        differs from the printed value; None when neither is there."""
        text = normalize(text)
        match = self._exact.search(text)
        if match:
            return Hit(page, True, collapse(match.group(0)))
        if self._loose is not None:
            match = self._loose.search(text)
            if match:
                return Hit(
                    page,
                    False,
                    collapse(match.group(0)),
                    tuple(v for v in match.groups() if v is not None),
                )
        return None

    def value_on(self, text: str) -> bool:
        """Whether the page prints the value anywhere (outside the quote, when it is not found)."""
        return bool(number_spans(normalize(text), self.value))
