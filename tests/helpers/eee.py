"""What the import tests share: the bundled slice of Every Eval Ever, and running kg on a
copy of the data."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from helpers import BASE, DATA
from kg.cli import main
from kg.model.upstream.every_eval_ever.identity import benchmark_id, benchmark_key, file_id
from kg.rdf.canonical import canonical_nquads
from kg.store.embedded import EmbeddedStore

KEPT = DATA / "upstream" / "every-eval-ever"
ORIGIN = "evaleval/every_eval_ever@d9be34d60cb3820833034e33a437ba4b9e4d472f"
KG = "https://w3id.org/claimgraph/ns#"
PREFIXES = """PREFIX kg: <https://w3id.org/claimgraph/ns#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX oa: <http://www.w3.org/ns/oa#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX spdx: <http://spdx.org/rdf/terms#>
"""


def kept_files(folder: Path = KEPT) -> dict[str, bytes]:
    """The kept files by their path in the origin."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.json"))
    }


def run(runner: CliRunner, store: Path, data: Path, *args: str):
    return runner.invoke(main, ["--store", str(store), "--data", str(data), "--base", BASE, *args])


def export_file(runner: CliRunner, store: Path, data: Path, path: str):
    """``kg export`` of the evaluation of the kept file at ``path`` (in the origin), as an
    Every Eval Ever file."""
    ident = file_id("every-eval-ever", path)
    return run(runner, store, data, "export", ident, "--format", "every-eval-ever")


def dump(store: Path) -> str:
    with EmbeddedStore(store, read_only=True) as reader:
        return canonical_nquads(reader.quads())


def tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its SHA-256 (what "the data is unchanged" means)."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def copy_of(loaded: tuple[Path, Path], target: Path) -> tuple[Path, Path]:
    """A copy of a data directory and its store (``loaded``) under ``target``."""
    data, store = target / "data", target / "store"
    shutil.copytree(loaded[0], data)
    shutil.copytree(loaded[1], store, symlinks=True)
    return data, store


def origin_copy(root: Path, files: dict[str, bytes]) -> Path:
    """A folder laid out as the origin repository, holding ``files`` and its licence."""
    for path, raw in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(raw)
    shutil.copy(KEPT / "LICENSE", root / "LICENSE")
    return root


def query(store: Path, sparql: str) -> list[dict[str, str]]:
    with EmbeddedStore(store, read_only=True) as reader:
        result = reader.query(sparql)
        names = [v.value for v in result.variables]
        return [{n: row[n].value for n in names if row[n] is not None} for row in result]


#: A small leaderboard of a lower-is-better metric (the snapshot has none): (model id, score,
#: parameters in billions, precision) per file, one result each. "tiny/alpha" is submitted
#: twice with different scores; two models tie.
LOWER_IS_BETTER = (
    ("tiny/alpha", 0.50, 1.5, "float16"),
    ("tiny/beta", 0.20, 7, "bfloat16"),
    ("tiny/gamma", 0.20, 13, "bfloat16"),
    ("tiny/delta", 0.90, 70, "float16"),
    ("Tiny/Alpha", 0.35, 1.5, "float16"),
    ("tiny/epsilon", 0.05, 0.5, "bfloat16"),
)
LOWER_IS_BETTER_SUITE = "tiny_latency"


def lower_is_better_files() -> dict[str, bytes]:
    """Every Eval Ever files of :data:`LOWER_IS_BETTER`, by their path in the origin."""
    files = {}
    for n, (model, score, params, precision) in enumerate(LOWER_IS_BETTER):
        doc = {
            "schema_version": "0.2.0",
            "evaluation_id": f"{LOWER_IS_BETTER_SUITE}/{model}/{n}",
            "retrieved_timestamp": f"17700000{n:02d}.5",
            "source_metadata": {
                "source_name": "Tiny latency board",
                "source_type": "documentation",
                "source_organization_name": "Test bench",
                "evaluator_relationship": "third_party",
            },
            "model_info": {
                "name": model.split("/")[1],
                "id": model,
                "developer": "tiny",
                "inference_platform": "unknown",
                "additional_details": {"precision": precision, "params_billions": params},
            },
            "evaluation_results": [
                {
                    "evaluation_name": "Latency",
                    "source_data": {
                        "dataset_name": "TinyBench",
                        "source_type": "url",
                        "url": ["https://example.org/tinybench"],
                    },
                    "metric_config": {
                        "evaluation_description": "Seconds per answer on TinyBench",
                        "lower_is_better": True,
                        "score_type": "continuous",
                        "min_score": 0,
                        "max_score": 100,
                    },
                    "score_details": {"score": score},
                }
            ],
        }
        path = f"data/{LOWER_IS_BETTER_SUITE}/{model.casefold()}/{n:08d}-0000-4000-8000-000000000000.json"
        files[path] = json.dumps(doc, indent=2).encode()
    return files


def with_lower_is_better_board(root: Path) -> Path:
    """``root/data``: the bundled data with :data:`LOWER_IS_BETTER` imported beside it (into
    ``root/store``); returns ``root``."""
    import_beside(root, lower_is_better_files())
    return root


def import_beside(root: Path, files: dict[str, bytes]) -> str:
    """``root/data``: the bundled data with ``files`` (by their path in the origin) imported
    beside it, into ``root/store``; the import's summary."""
    shutil.copytree(DATA, root / "data")
    origin = origin_copy(root / "origin", files)
    result = run(
        CliRunner(),
        root / "store",
        root / "data",
        "import",
        "every-eval-ever",
        str(origin),
        "--origin",
        ORIGIN,
        "--merge",
    )
    assert result.exit_code == 0, result.output
    return result.output


#: HELM Lite's and HELM Classic's "EM on MMLU": one benchmark (docs/imports.md)
MMLU = benchmark_id("MMLU", "MMLU", benchmark_key("MMLU", "MMLU", "EM on MMLU", False))
#: The generated lower-is-better board
TINY = benchmark_id(
    "TinyBench",
    "Latency",
    benchmark_key("TinyBench", "Latency", "Seconds per answer on TinyBench", True),
)
