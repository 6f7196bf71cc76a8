"""Progress on long work: a bar on a terminal, nothing on a pipe (scripts read the messages)."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import DATA, DATA_FILES


def validate(root: Path, stderr) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kg.cli", "validate", "data"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=stderr,
        timeout=300,
    )


def test_a_terminal_sees_the_bar_and_a_pipe_only_the_messages(tmp_path: Path) -> None:
    assert DATA_FILES >= 50  # the bar is drawn for batches of 50 files or more
    shutil.copytree(DATA, tmp_path / "data")
    piped = validate(tmp_path, subprocess.PIPE)
    assert piped.returncode == 0
    assert [line.split(":")[0] for line in piped.stderr.decode().splitlines()] == ["kg"]

    main, child = pty.openpty()
    try:
        done = validate(tmp_path, child)
        os.close(child)
        child = -1
        shown = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal is closed once everything was read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(main)
        if child >= 0:
            os.close(child)
    assert done.returncode == 0
    assert b"validating" in shown and b"100%" in shown
