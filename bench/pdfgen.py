"""Synthetic PDFs for the verifier's tests and benchmark (fpdf2, a test dependency).

    python bench/pdfgen.py OUT.pdf [--pages 200] [--at 150]

writes a document of filler pages with the seed's sentence on page ``--at``. The tests
build their variants (hyphenated, ligatures, justified, other values, image-only pages,
encrypted) with :func:`make_pdf`. Every file is clearly synthetic and deterministic.
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterable
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import EncryptionMethod

SENTENCE = "the NT 2.5B checkpoint (33.88 → 11.49 GB)"
#: A Unicode TrueType font with "→" and the "ﬁ"/"ﬂ" ligatures: Debian's fonts-dejavu-core.
FONTS = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/TTF/DejaVuSans.ttf"),
)
_WORDS = (
    "synthetic",
    "filler",
    "text",
    "about",
    "training",
    "throughput",
    "memory",
    "and",
    "sequence",
    "length",
    "measured",
    "on",
    "a",
    "simulated",
    "accelerator",
    "for",
    "this",
    "test",
    "document",
    "only",
)


def font() -> Path:
    """The DejaVu Sans font file.

    :raises FileNotFoundError: naming the package that provides it.
    """
    for path in FONTS:
        if path.is_file():
            return path
    raise FileNotFoundError("no DejaVuSans.ttf: install Debian's fonts-dejavu-core (.ci/run does)")


def paragraph(sentence: str = SENTENCE) -> str:
    """The seed's paragraph around ``sentence``."""
    return (
        f"ZeRO offload. Offloading optimizer states to the CPU lowers the peak memory of "
        f"{sentence} at sequence length 1000 and batch size 16."
    )


def filler(page: int, words: int = 120) -> str:
    """Deterministic filler for ``page``, without the sentence or its numbers."""
    return f"Page {page}. " + " ".join(_WORDS[(page * 7 + i) % len(_WORDS)] for i in range(words))


def make_pdf(
    path: Path,
    pages: int = 11,
    special: dict[int, str] | None = None,
    *,
    align: str = "L",
    width: float = 0,
    image_pages: Iterable[int] = (),
    user_password: str | None = None,
    owner_password: str | None = None,
) -> Path:
    """A document of ``pages`` filler pages; ``special`` adds a paragraph to a page (its
    "\\n" are forced line breaks); ``image_pages`` are pictures of their text, with no text
    layer; a password encrypts the file with AES-256."""
    special = special or {}
    pdf = FPDF()
    pdf.add_font("dejavu", fname=str(font()))
    pdf.set_font("dejavu", size=11)
    if user_password is not None or owner_password is not None:
        pdf.set_encryption(
            owner_password=owner_password or "owner",
            user_password=user_password or "",
            encryption_method=EncryptionMethod.AES_256,
        )
    images = set(image_pages)
    for number in range(1, pages + 1):
        pdf.add_page()
        text = filler(number)
        if number in images:
            pdf.image(_picture("\n\n".join(p for p in (text, special.get(number)) if p)), w=180)
            continue
        pdf.multi_cell(width, 6, text, align="L")
        if number in special:
            pdf.ln(3)
            pdf.multi_cell(width, 6, special[number], align=align)
    path.write_bytes(bytes(pdf.output()))
    return path


def _picture(text: str):
    """``text`` drawn into a greyscale image: a page a scanner would make."""
    from PIL import Image, ImageDraw, ImageFont

    face = ImageFont.truetype(str(font()), 22)
    lines, line = [], ""
    for word in text.replace("\n", " \n ").split(" "):
        if word == "\n" or len(line) + len(word) > 70:
            lines.append(line)
            line = "" if word == "\n" else word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    image = Image.new("L", (1400, 40 + 32 * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    for i, text_line in enumerate(lines):
        draw.text((20, 20 + 32 * i), text_line, fill=0, font=face)
    out = io.BytesIO()
    image.save(out, format="PNG")
    out.seek(0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--at", type=int, default=150, help="the page with the sentence")
    args = parser.parse_args()
    make_pdf(args.out, args.pages, {args.at: paragraph()})


if __name__ == "__main__":
    main()
