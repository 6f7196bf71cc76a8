"""Import benchmark: kg import of Every Eval Ever against the floor kg load is measured
against, and kg verify --all throughput.

    python bench/imports.py [--files 500 2000 0] [--archive PATH] [--work /tmp/kg-bench-import]
                            [--compare DIR] [--no-verify]

For each size (a number of files of the snapshot, in path order; 0: all 5,267) it writes a
folder laid out as the origin repository holding those files, then measures in this one
command, on this machine:

- kg import: ``kg --data <fresh> --store <fresh> import every-eval-ever <folder>`` (read,
  check, keep the files, map, validate, write: everything);
- floor: pyoxigraph ``Store.bulk_load`` of exactly the quads that import wrote (the store
  dumped as N-Quads afterwards), into a fresh on-disk store, then ``Store.optimize()``:
  the floor ``kg load`` is measured against in bench/README.md;
- kg verify --all --upstream-dir over the kept files (checks and one review per file,
  written and loaded), in files per second.

With ``--compare DIR`` (a checkout of other code, e.g. ``git worktree add /tmp/before REV``),
the same import runs first with that code (into a data folder and store of its own), so a
change's own cost is a ratio measured in the same command, under the same load as the
floor. ``--no-verify`` leaves kg verify out.

Wall-clock seconds and peak resident memory (of the process and its children) come from
GNU time. Results print as a Markdown table for bench/README.md.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ingest import FLOOR, timed  # noqa: E402

ARCHIVE = (
    ROOT.parent / "shared" / "datasets" / "every-eval-ever" / "every-eval-ever-d9be34d6.tar.gz"
)
ORIGIN = "evaleval/every_eval_ever@d9be34d60cb3820833034e33a437ba4b9e4d472f"


def origin_folder(archive: Path, files: int, target: Path) -> tuple[int, int]:
    """The first ``files`` result files of the snapshot (0: all) and its licence, laid out
    as the repository; returns (files, results)."""
    import json

    with tarfile.open(archive, "r:gz") as tar:
        members = sorted((m for m in tar.getmembers() if m.isfile()), key=lambda m: m.name)
        results = [m for m in members if m.name.startswith("data/") and m.name.endswith(".json")]
        chosen = results[:files] if files else results
        count = 0
        for member in [*chosen, *(m for m in members if m.name == "LICENSE")]:
            raw = tar.extractfile(member).read()  # type: ignore[union-attr]
            path = target / member.name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(raw)
            if member.name != "LICENSE":
                count += len(json.loads(raw)["evaluation_results"])
    return len(chosen), count


def kg(*args: str, code: Path = ROOT) -> list[str]:
    """The command line of kg with the code of checkout ``code`` (this one by default)."""
    return ["env", f"PYTHONPATH={code}", sys.executable, "-m", "kg.cli", *args]


def imported_by(code: Path, origin: Path, here: Path) -> tuple[float, float, list[str]]:
    """(seconds, peak MB, the data/store options) of importing ``origin`` with ``code``
    into a fresh data folder and store under ``here``."""
    data, store = here / "data", here / "store"
    shutil.copytree(ROOT / "data" / "agents", data / "agents")
    common = ["--data", str(data), "--store", str(store)]
    seconds, peak = timed(
        kg(*common, "import", "every-eval-ever", str(origin), "--origin", ORIGIN, code=code)
    )
    return seconds, peak, common


def bench(
    archive: Path, files: int, work: Path, before: Path | None = None, verify: bool = True
) -> dict[str, object]:
    here = work / f"files-{files or 'all'}"
    shutil.rmtree(here, ignore_errors=True)
    origin, data = here / "origin", here / "data"
    n, results = origin_folder(archive, files, origin)
    earlier = imported_by(before, origin, here / "before")[0] if before else None
    imported, peak, common = imported_by(ROOT, origin, here)
    dumps = here / "dump"
    timed(kg(*common, "export", "--all", "--format", "nquads", "-o", str(dumps)))
    [nquads] = list(dumps.glob("*.nq"))
    quads = sum(1 for _ in nquads.open("rb"))
    floor, floor_peak = timed(
        [sys.executable, "-c", FLOOR, str(here / "floor"), str(nquads), "optimize"]
    )
    verified, verify_peak = (
        timed(
            kg(
                *common,
                "verify",
                "--all",
                "--upstream-dir",
                str(data / "upstream" / "every-eval-ever"),
            ),
            timeout=7200,
        )
        if verify
        else (float("nan"), float("nan"))
    )
    return {
        "before": earlier,
        "files": n,
        "results": results,
        "quads": quads,
        "import": imported,
        "import_peak": peak,
        "floor": floor,
        "floor_peak": floor_peak,
        "ratio": imported / floor,
        "verify": verified,
        "verify_peak": verify_peak,
        "files_per_s": n / verified,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[500, 2000, 0])
    parser.add_argument("--archive", type=Path, default=ARCHIVE)
    parser.add_argument("--work", type=Path, default=Path("/tmp/kg-bench-import"))
    parser.add_argument("--compare", type=Path, help="a checkout whose import runs first")
    parser.add_argument("--no-verify", action="store_true", help="leave kg verify out")
    args = parser.parse_args()
    before = args.compare.resolve() if args.compare else None
    print(
        "| files | results | quads | floor s (bulk load + optimize) | kg import s | ratio "
        "| kg import peak MB | kg verify --all s | files/s | verify peak MB |"
        + (" before: kg import s | this / before |" if before else "")
    )
    print("|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if before else ""))
    for files in args.files:
        r = bench(args.archive, files, args.work, before, not args.no_verify)
        earlier, now = r["before"], r["import"]
        assert isinstance(now, float) and (earlier is None or isinstance(earlier, float))
        print(
            f"| {r['files']:,} | {r['results']:,} | {r['quads']:,} | {r['floor']:.1f} | "
            f"{r['import']:.1f} | {r['ratio']:.2f} | {r['import_peak']:,.0f} | "
            f"{r['verify']:.1f} | {r['files_per_s']:,.0f} | {r['verify_peak']:,.0f} |"
            + (f" {earlier:.1f} | {now / earlier:.2f} |" if earlier else ""),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
