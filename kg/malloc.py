"""How the C library's allocator hands memory back, tuned for claimgraph's work (glibc
only; elsewhere nothing happens). A setting's environment variable, where set, wins."""

from __future__ import annotations

import contextlib
import ctypes
import os

_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8


def _mallopt(option: int, value: int, variable: str) -> None:
    if variable in os.environ:
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").mallopt(option, value)


def return_large_blocks() -> None:
    """Blocks of 64 KiB or more each get pages of their own, given back when freed.

    glibc raises that threshold each time such a block is freed, so a load's stream of
    files' N-Quads (about 135 KB each) comes from the heap instead, where the small
    objects a batch keeps pin it: at 10,000 results the ingest's memory grew by 64 MB
    and now by 19 MB, at the same speed (bench/README.md, "Third step").
    """
    _mallopt(_M_MMAP_THRESHOLD, 64 * 1024, "MALLOC_MMAP_THRESHOLD_")


def give_back_free_pages() -> None:
    """Hand the heap's free pages back to the system, where a phase's many small blocks
    were freed and the next phase needs memory of its own.

    glibc keeps freed heap memory for later allocations, and blocks smaller than the mmap
    threshold (a kept file's bytes, its check) live there: after ``kg import`` let go of a
    million results' snapshot, 950 MB stayed resident; trimmed, 344 MB (bench/README.md,
    "Fifth step").
    """
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def limit_arenas() -> None:
    """Two malloc arenas for a server's threads.

    glibc gives threads arenas of their own and memory freed in one is not reused by
    another, so a threaded server that rebuilds its catalogue after every load creeps up
    for hours; with two arenas its memory stays flat (bench/README.md, "Reliability").
    """
    _mallopt(_M_ARENA_MAX, 2, "MALLOC_ARENA_MAX")
