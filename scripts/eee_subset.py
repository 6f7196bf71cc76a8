"""Import the slice of Every Eval Ever that data/ ships, from the snapshot archive.

The rule (docs/imports.md): every file of every model that four or more of the snapshot's
sources evaluate. It is small (tens of files), real, and has every source of the snapshot
and every kind of comparison the registry shows: one model across leaderboards, suites
and versions of a leaderboard.

    python scripts/eee_subset.py [ARCHIVE] [--data DIR]

ARCHIVE defaults to the snapshot beside the checkout (../shared/datasets/every-eval-ever/).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = (
    ROOT.parent / "shared" / "datasets" / "every-eval-ever" / "every-eval-ever-d9be34d6.tar.gz"
)
ORIGIN = "evaleval/every_eval_ever@d9be34d60cb3820833034e33a437ba4b9e4d472f"
MIN_SOURCES = 4


def chosen(archive: Path) -> dict[str, bytes]:
    """The files of the models that at least MIN_SOURCES sources evaluate, by path."""
    files: dict[str, bytes] = {}
    sources: dict[str, set[str]] = defaultdict(set)
    paths: dict[str, list[str]] = defaultdict(list)
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar.getmembers():
            name = member.name
            if member.isfile() and name.startswith("data/") and name.endswith(".json"):
                raw = tar.extractfile(member).read()  # type: ignore[union-attr]
                doc = json.loads(raw)
                model = doc["model_info"]["id"].strip().casefold()
                sources[model].add(doc["source_metadata"].get("source_name", ""))
                paths[model].append(member.name)
                files[member.name] = raw
            elif member.isfile() and member.name == "LICENSE":
                files["LICENSE"] = tar.extractfile(member).read()  # type: ignore[union-attr]
    keep = {p for model, ps in paths.items() if len(sources[model]) >= MIN_SOURCES for p in ps}
    return {p: raw for p, raw in files.items() if p in keep or p == "LICENSE"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", type=Path, default=ARCHIVE)
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    args = parser.parse_args()
    files = chosen(args.archive)
    with tempfile.TemporaryDirectory() as folder:
        for path, raw in files.items():
            target = Path(folder, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(raw)
        print(f"importing {len(files) - 1} files of {args.archive.name}", file=sys.stderr)
        return subprocess.call(
            [
                sys.executable,
                "-m",
                "kg.cli",
                "--data",
                str(args.data),
                "import",
                "every-eval-ever",
                folder,
                "--origin",
                ORIGIN,
                "--prune",  # the slice is the whole of the import: nothing else stays
            ],
            cwd=ROOT,
        )


if __name__ == "__main__":
    sys.exit(main())
