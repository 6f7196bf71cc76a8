"""The checks of a source verification: one PDF against one record's pinned source.

- ``hash-check`` (a part of the method source-hash-verification): the file's SHA-256
  against the hash the source pins for its artifact;
- ``page-check`` (pdf-text-parse, like the next two): the page the locator names exists
  and has text, and the quote is not on another page instead (if it is, that page is
  named);
- ``quote-check``: the quoted sentence is in the PDF's text, after the normalization of
  :mod:`kg.verify.pdftext`;
- ``value-check``: the printed value stands inside the quote as the PDF prints it; the
  value elsewhere on the page does not count.

Each check is passed, failed or not-checked (with the reason). The text checks are made
on the pinned file only: a file with another hash is another artifact, and what its text
says is no evidence about the source as it was pinned.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import UsageError
from ..model.outcomes import FAILED, NOT_CHECKED, PASSED, worst_outcome
from ..rdf.vocabulary import load_terms
from .pdfread import PdfText, open_pdf
from .pdftext import Hit, QuoteFinder

#: The checks: concepts of kgv:Checks (ontology/vocabularies.ttl).
HASH, PAGE, QUOTE, VALUE = "hash-check", "page-check", "quote-check", "value-check"


@dataclass(frozen=True)
class Target:
    """What a record says can be checked in its source's file."""

    record: str  # the record's id
    source: str  # the source's id
    printed: str  # the value exactly as printed
    page: int | None  # the page the locator names
    quote: str  # the quoted sentence ("" when the locator gives none)
    sha256: str  # the hash the source pins for its artifact ("" when none)


@dataclass(frozen=True)
class Check:
    """One check's outcome, with what it looked for and what it found."""

    check: str
    outcome: str
    detail: str
    expected: str = ""
    found: str = ""
    page: int | None = None  # the page looked at
    found_on_page: int | None = None
    #: The record it is about, when a review checks several (a JSON file's records).
    record: str = ""

    @property
    def method(self) -> str:
        """The review method the check belongs to, as the vocabulary says."""
        return load_terms().broader(self.check)


@dataclass
class FileInfo:
    """The file read: its name, size and SHA-256 as computed here, and its page count."""

    path: Path
    sha256: str
    size: int
    page_count: int = 0

    @classmethod
    def of(cls, path: Path) -> FileInfo:
        """Hash the file, reading it in blocks.

        :raises UsageError: when it cannot be read at all.
        """
        digest = hashlib.sha256()
        try:
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            size = path.stat().st_size
        except OSError as exc:
            raise UsageError(f"{path}: cannot read the file ({exc.strerror})") from None
        return cls(path, digest.hexdigest(), size)


@dataclass
class Outcome:
    """Every check of one verification."""

    target: Target
    file: FileInfo
    checks: list[Check] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        """The verification's outcome: its worst check's."""
        return worst_outcome(c.outcome for c in self.checks)


def run_checks(target: Target, path: Path, file: FileInfo | None = None) -> Outcome:
    """Check ``target`` against the file at ``path`` (``file``: its hash, when known): the
    hash, then the text checks."""
    file = file if file is not None else FileInfo.of(path)
    result = Outcome(target, file, [_hash(target, file)])
    if not target.sha256:
        reason = "the source pins no artifact SHA-256, so the file cannot be tied to it"
    elif file.sha256 != target.sha256:
        reason = (
            "the file is not the pinned artifact (its SHA-256 differs); the text checks "
            "are made on the pinned file only"
        )
    else:
        pdf = open_pdf(path)
        file.page_count = pdf.page_count
        reason = pdf.error
        if not reason:
            result.checks += _text_checks(target, pdf)
            return result
    looked_for = {PAGE: str(target.page or ""), QUOTE: target.quote, VALUE: target.printed}
    result.checks += [
        Check(kind, NOT_CHECKED, reason, expected=looked_for[kind], page=target.page)
        for kind in (PAGE, QUOTE, VALUE)
    ]
    return result


def _hash(target: Target, file: FileInfo) -> Check:
    check = Check(
        HASH,
        PASSED,
        "the file's SHA-256 is the one the source pins for its artifact",
        expected=target.sha256,
        found=file.sha256,
    )
    if not target.sha256:
        return replace(
            check, outcome=NOT_CHECKED, detail="the source pins no artifact SHA-256 to compare with"
        )
    if file.sha256 != target.sha256:
        return replace(
            check,
            outcome=FAILED,
            detail=f"the file's SHA-256 {file.sha256[:12]}... is not the pinned "
            f"{target.sha256[:12]}...: a different file",
        )
    return check


def _text_checks(target: Target, pdf: PdfText) -> list[Check]:
    finder = QuoteFinder(target.quote, target.printed) if target.quote.strip() else None
    hit = _search(finder, pdf, target.page) if finder is not None else None
    return [
        _page(target, pdf, hit),
        _quote(target, pdf, finder, hit),
        _value(target, pdf, finder, hit),
    ]


def _search(finder: QuoteFinder, pdf: PdfText, page: int | None) -> Hit | None:
    """The locator's page first, then every other page: the exact quote wins over the
    sentence with another number, wherever that is."""
    pages = list(range(1, pdf.page_count + 1))
    if page in pages:
        pages.remove(page)
        pages.insert(0, page)
    nearest = None
    for number in pages:
        hit = finder.find(pdf.text(number), number)
        if hit is not None and hit.exact:
            return hit
        nearest = nearest or hit
    return nearest


def _blank(pdf: PdfText, page: int | None) -> str:
    """Why ``page`` has no text to search ("" when it has some)."""
    if page is None or not 1 <= page <= pdf.page_count:
        return ""
    if pdf.text(page).strip():
        return ""
    if page in pdf.page_errors:
        return f"the text of page {page} cannot be extracted ({pdf.page_errors[page]})"
    return f"page {page} has no text layer (an image-only page?)"


def _page(target: Target, pdf: PdfText, hit: Hit | None) -> Check:
    page, count = target.page, pdf.page_count
    check = Check(PAGE, PASSED, "", expected=str(page or ""), page=page)
    elsewhere = f"; the quote is on page {hit.page}" if hit is not None and hit.exact else ""
    if page is None:
        return replace(check, outcome=NOT_CHECKED, detail="the locator names no page" + elsewhere)
    if page > count:
        return replace(
            check,
            outcome=NOT_CHECKED,
            detail=f"the locator names page {page}, but the file has {count} "
            f"page{'s' if count != 1 else ''}{elsewhere}",
        )
    blank = _blank(pdf, page)
    if blank:
        return replace(check, outcome=NOT_CHECKED, detail=blank + elsewhere)
    if hit is not None and hit.exact and hit.page != page:
        return replace(
            check,
            outcome=FAILED,
            found=str(hit.page),
            found_on_page=hit.page,
            detail=f"the quote is on page {hit.page}, not on page {page}",
        )
    holds = hit is not None and hit.exact and hit.page == page
    return replace(
        check,
        found=str(page) if holds else "",
        found_on_page=page if holds else None,
        detail=f"page {page} of {count} has text" + (" and holds the quote" if holds else ""),
    )


def _quote(target: Target, pdf: PdfText, finder: QuoteFinder | None, hit: Hit | None) -> Check:
    check = Check(QUOTE, PASSED, "", expected=target.quote, page=target.page)
    if finder is None:
        return replace(check, outcome=NOT_CHECKED, detail="the locator gives no quote")
    if hit is not None:
        check = replace(check, found=hit.text, found_on_page=hit.page)
        if hit.exact:
            moved = (
                f" (the locator says page {target.page})"
                if target.page is not None and hit.page != target.page
                else ""
            )
            return replace(check, detail=f"found on page {hit.page}{moved}")
        return replace(
            check,
            outcome=FAILED,
            detail=f"not found as quoted: page {hit.page} has the sentence with "
            f"{' and '.join(hit.values)} where the quote has {finder.value}",
        )
    blank = _blank(pdf, target.page)
    if blank:
        return replace(
            check, outcome=NOT_CHECKED, detail=f"{blank}, and no other page holds the quote"
        )
    if not any(pdf.text(n).strip() for n in range(1, pdf.page_count + 1)):
        return replace(check, outcome=NOT_CHECKED, detail="no page of the file has text")
    where = (
        f"on page {target.page} nor on any other of the {pdf.page_count} pages"
        if target.page is not None and target.page <= pdf.page_count
        else f"on any of the {pdf.page_count} pages"
    )
    return replace(check, outcome=FAILED, detail=f"not found {where}")


def _value(target: Target, pdf: PdfText, finder: QuoteFinder | None, hit: Hit | None) -> Check:
    value = target.printed
    check = Check(VALUE, PASSED, "", expected=value, page=target.page)
    if finder is None:
        return replace(
            check, outcome=NOT_CHECKED, detail="the locator gives no quote to look for the value in"
        )
    if not finder.value_in_quote:
        return replace(
            check, outcome=FAILED, detail=f"the quote does not contain the printed value {value}"
        )
    if hit is not None and hit.exact:
        return replace(
            check,
            found=value,
            found_on_page=hit.page,
            detail=f"{value} is printed inside the quote on page {hit.page}",
        )
    page = hit.page if hit is not None else target.page
    outside = ""
    if page is not None and 1 <= page <= pdf.page_count and finder.value_on(pdf.text(page)):
        outside = f"; {value} appears on page {page} outside the quote, which does not count"
    if hit is not None:
        printed = " and ".join(hit.values)
        return replace(
            check,
            outcome=FAILED,
            found=printed,
            found_on_page=hit.page,
            detail=f"page {hit.page} prints {printed} inside the quoted sentence, "
            f"not {value}{outside}",
        )
    return replace(
        check,
        outcome=NOT_CHECKED,
        detail=f"the quote was not found, so the value cannot be looked for inside it{outside}",
    )
