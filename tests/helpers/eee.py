"""What the import tests share: the bundled slice of Every Eval Ever, and running kg on a
copy of the data."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from click.testing import CliRunner

from helpers import BASE, DATA
from kg.cli import main
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
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*.json"))}


def run(runner: CliRunner, store: Path, data: Path, *args: str):
    return runner.invoke(main, ["--store", str(store), "--data", str(data), "--base", BASE,
                                *args])


def dump(store: Path) -> str:
    with EmbeddedStore(store, read_only=True) as reader:
        return canonical_nquads(reader.quads())


def tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its SHA-256 (what "the data is unchanged" means)."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


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
