"""Shared fixtures: the repository's data, copied where a test may change it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
BASE = "https://claimgraph.example/"
SEED_ID = (
    "saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-flashattention-checkpointing-zero2"
)
SEED_RECORD = f"records/{SEED_ID}.yaml"
SEED_SOURCE = "sources/saadat-fellay-2026-genomic-lm-efficiency.yaml"
AGENT_FILE = "agents/claude.yaml"


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A private copy of data/ that a test may break."""
    target = tmp_path / "data"
    shutil.copytree(DATA, target)
    return target


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    """Where a test's on-disk store lives."""
    return tmp_path / "store"


def open_test_store(path: Path, read_only: bool = False):
    from kg.store import EmbeddedStore

    return EmbeddedStore(path, read_only=read_only)
