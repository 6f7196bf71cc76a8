"""A PDF's pages as text (pypdf), every way a file can fail turned into a reason.

A verifier meets files that are corrupt, truncated, encrypted or made of scanned
images. None of that is an error of claimgraph's: it is why a check could not be made,
and the reason is recorded. pypdf raises many kinds of exceptions on damaged input
(its own, and ValueError, KeyError, ... from deep inside a damaged stream), and it logs
warnings as it repairs; both are caught here and become the reason's words.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError


@contextlib.contextmanager
def _quiet(notes: list[str]) -> Iterator[None]:
    """pypdf's log warnings and Python warnings collected into ``notes``, not printed."""

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            notes.append(record.getMessage())

    logger = logging.getLogger("pypdf")
    handler, propagate = Collect(logging.WARNING), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        notes.extend(str(w.message) for w in caught)
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _reason(exc: BaseException, notes: list[str]) -> str:
    said = [str(exc) or type(exc).__name__, *notes]
    unique = list(dict.fromkeys(s.strip().rstrip(".") for s in said if s.strip()))
    return "; ".join(unique[:3])


@dataclass
class PdfText:
    """The text of a PDF's pages, read lazily; ``error`` says why the file cannot be read."""

    path: Path
    reader: PdfReader | None = None
    page_count: int = 0
    error: str = ""
    _texts: dict[int, str] = field(default_factory=dict)
    #: page number -> why its text could not be extracted
    page_errors: dict[int, str] = field(default_factory=dict)

    def text(self, number: int) -> str:
        """The text of page ``number`` (from 1); "" when it has none or cannot be read."""
        if number in self._texts:
            return self._texts[number]
        text = ""
        if self.reader is not None and 1 <= number <= self.page_count:
            notes: list[str] = []
            try:
                with _quiet(notes):
                    text = self.reader.pages[number - 1].extract_text() or ""
            except Exception as exc:  # any pypdf failure: see the module docstring
                self.page_errors[number] = _reason(exc, notes)
        self._texts[number] = text
        return text


def open_pdf(path: Path) -> PdfText:
    """Open ``path`` for reading its text; a file that cannot be read gets ``error`` set."""
    pdf = PdfText(path)
    notes: list[str] = []
    try:
        with _quiet(notes):
            if path.stat().st_size == 0:
                pdf.error = "the file is empty"
                return pdf
            reader = PdfReader(path, strict=False)
            if reader.is_encrypted and not reader.decrypt(""):
                pdf.error = (
                    "the PDF is encrypted with a password (an empty one does not "
                    "open it); its text cannot be read"
                )
                return pdf
            pdf.page_count = len(reader.pages)
            pdf.reader = reader
    except FileNotDecryptedError:
        pdf.error = "the PDF is encrypted with a password; its text cannot be read"
    except DependencyError as exc:
        pdf.error = f"the PDF cannot be decrypted here ({exc})"
    except Exception as exc:  # any pypdf failure: see the module docstring
        pdf.error = f"the PDF cannot be read (corrupt or truncated?): {_reason(exc, notes)}"
    return pdf
