"""Sets of row indices as bitsets: Python integers, bit i for the i-th row.

The catalogue keeps each facet value's and each search word's rows as one, so that a
selection is an AND and its size a popcount, both in C. Here: making them, reading their
members back, and turning them to and from a selector (bytes 0 and 1, one a row, the
form ``itertools.compress`` and ``str.__contains__`` mapped over rows work in).
"""

from __future__ import annotations

from collections.abc import Iterable

#: The digits of a bitset's binary number as bytes 0 and 1 (a row's selector).
BITS = bytes.maketrans(b"01", b"\x00\x01")
#: Bytes 0 and 1 as the digits "0" and "1".
BINARY = bytes.maketrans(b"\x00\x01", b"01")


def bitset(indices: Iterable[int]) -> int:
    """The bitset of ``indices`` (in ascending order)."""
    bits = 0
    chunk: list[int] = []
    for i in indices:  # set bits a chunk at a time: one big-int operation per 4096 rows
        chunk.append(i)
        if len(chunk) == 4096:
            bits |= _small_bitset(chunk)
            chunk = []
    return bits | _small_bitset(chunk)


def _small_bitset(indices: list[int]) -> int:
    if not indices:
        return 0
    low = indices[0]
    bits = 0
    for i in indices:
        bits |= 1 << (i - low)
    return bits << low


def bit_indices(bits: int, start: int = 0, limit: int | None = None) -> Iterable[int]:
    """The indices of the set bits of ``bits`` from ``start`` on, in order."""
    digits = bin(bits)[:1:-1]  # lowest bit first
    taken = 0
    index = digits.find("1", start)
    while index >= 0 and (limit is None or taken < limit):
        yield index
        taken += 1
        index = digits.find("1", index + 1)


def selector(bits: int) -> bytes:
    """``bits`` as bytes 0 and 1, lowest bit first, up to its highest set bit."""
    return bin(bits)[:1:-1].encode().translate(BITS)


def from_selector(flags: bytes) -> int:
    """The bitset of the bytes of ``flags`` that are 1, the first byte its lowest bit."""
    # bytes of 0 and 1, last row first: the bits of a binary number's digits
    return int(flags.translate(BINARY)[::-1] or b"0", 2)
