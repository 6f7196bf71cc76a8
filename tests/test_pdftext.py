"""The normalization and matching real PDF text needs (kg.verify.pdftext), on strings."""

from __future__ import annotations

import pytest

from kg.verify.pdftext import QuoteFinder, normalize, number_spans

QUOTE = "the NT 2.5B checkpoint (33.88 → 11.49 GB)"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("e\ufb03cient \ufb01ts \ufb02ows", "efficient fits flows"),  # ligatures (NFKC)
        ("check\u00adpoint", "checkpoint"),  # soft hyphen
        ("33.88 -> 11.49", "33.88 → 11.49"),
        ("33.88 --> 11.49", "33.88 → 11.49"),
        ("33.88 \u27f6 11.49", "33.88 → 11.49"),
        ("ZeRO\u20112 and \u22120.5", "ZeRO-2 and -0.5"),  # non-breaking hyphen, minus sign
        ("\u201cquoted\u201d and \u2018single\u2019", "\"quoted\" and 'single'"),
        ("a\u00a0b\r\nc", "a b\nc"),  # non-breaking space, Windows line ends
    ],
)
def test_normalize(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


@pytest.mark.parametrize(
    "page",
    [
        f"We report {QUOTE} in Figure 3.",
        "the  NT  2.5B\ncheckpoint  (33.88  →  11.49  GB)",  # justified, broken over lines
        "the NT 2.5B check-\npoint (33.88 →\n11.49 GB)",  # hyphenated across a line end
        "the NT 2.5B check\u00ad\npoint (33.88 → 11.49 GB)",  # a soft hyphen at the line end
        "the NT 2.5B checkpoint (33.88->11.49GB)",  # ASCII arrow, spaces dropped
        "the NT 2.5B checkpoint (33.88 --> 11.49 GB)",
    ],
)
def test_the_quote_is_found_as_pdfs_print_it(page: str) -> None:
    hit = QuoteFinder(QUOTE, "11.49").find(page, 6)
    assert hit is not None and hit.exact and hit.page == 6


def test_a_hyphen_of_the_quote_may_end_a_line() -> None:
    finder = QuoteFinder("ZeRO-2 offload of the 11.49 GB model", "11.49")
    assert finder.find("with ZeRO-\n2 offload of the 11.49 GB model", 1).exact


@pytest.mark.parametrize(
    ("page", "printed"),
    [
        ("the NT 2.5B checkpoint (33.88 → 11.94 GB)", ("11.94",)),
        ("the NT 2.5B checkpoint (33.88 → 111.49 GB)", ("111.49",)),
        ("the NT 2.5B checkpoint (33.88 → 11.495 GB)", ("11.495",)),
    ],
)
def test_the_sentence_with_another_number_is_not_the_quote(page: str, printed) -> None:
    hit = QuoteFinder(QUOTE, "11.49").find(page, 6)
    assert hit is not None and not hit.exact and hit.values == printed


def test_absent_quote_and_the_value_elsewhere() -> None:
    finder = QuoteFinder(QUOTE, "11.49")
    page = "Table 2 lists 11.49 GB for another model."
    assert finder.find(page, 6) is None
    assert finder.value_on(page)
    assert not finder.value_on("Table 2 lists 111.49 GB.")


def test_value_must_stand_inside_the_quote() -> None:
    assert QuoteFinder(QUOTE, "11.49").value_in_quote
    assert not QuoteFinder("the NT 2.5B checkpoint", "11.49").value_in_quote
    assert not QuoteFinder("(33.88 → 111.49 GB)", "11.49").value_in_quote


def test_number_spans_are_whole_numbers() -> None:
    text = "11.49, 111.49, 11.495, 11.49."
    assert [text[a:b] for a, b in number_spans(text, "11.49")] == ["11.49", "11.49"]
    assert number_spans(text, "11.49")[1][0] == len("11.49, 111.49, 11.495, ")
