"""What tests share besides fixtures: the repository, its bundled data, small helpers.

Fixtures live in ``tests/conftest.py``, which pytest loads itself; no test imports it or
another test module. Constants and plain functions live here, by what they are about:

- ``helpers``: paths, the bundled data's ids and counts, opening a test store;
- ``helpers.web``: the web app in the test's own process (Flask's test client), for what
  a page, content negotiation or an error answers;
- ``helpers.servers``: real servers on 127.0.0.1 (``kg serve``, ``oxigraph serve``), for serving,
  concurrency, remote stores and the browser;
- ``helpers.variants``: data files broken on purpose, each naming the field it breaks;
- ``helpers.verifying``: the record and source that ``kg verify``'s tests check PDFs against;
- ``helpers.eee``: the bundled slice of Every Eval Ever, and kg run on a copy of the data;
- ``helpers.nanopubs``: ``kg`` in the test's process over a test folder, and the signer
  the nanopublication tests sign as;
- ``helpers.checks``: assertions several test modules make (both SHACL engines agree, the
  JSON-LD context names every term).

``pyproject.toml`` puts ``tests/`` on ``sys.path`` (pytest's ``pythonpath``), so
``from helpers import BASE`` works from any test module.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from kg.model.upstream.kept import IMPORTS as IMPORTS_FOLDER
from kg.model.upstream.kept import UPSTREAM

ROOT = Path(__file__).resolve().parent.parent.parent
DATA = ROOT / "data"
BASE = "https://claimgraph.example/"
SEED_ID = (
    "saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-flashattention-checkpointing-zero2"
)
SEED_RECORD = f"records/{SEED_ID}.yaml"
#: The other number of the seed's sentence (33.88 GB), a record claimgraph transcribed itself.
OTHER_ID = (
    "saadat-fellay-claimgraph-20261201-result-nt-2-5b-training-peak-memory-"
    "flashattention-checkpointing"
)
#: The YAML files claimgraph's people and tools wrote (everything outside ``upstream/``).
YAML_FILES = sorted(p for p in DATA.rglob("*.yaml") if "upstream" not in p.relative_to(DATA).parts)
#: The files the bundled import kept from Every Eval Ever, as the origin published them.
KEPT_JSON = sorted((DATA / "upstream").rglob("*.json"))


def _results(path: Path) -> int:
    import json

    return len(json.loads(path.read_bytes())["evaluation_results"])


#: How many results the kept files hold: each is a record of its own.
IMPORTED = sum(_results(p) for p in KEPT_JSON)
#: How many data files ``kg load`` reads: the YAML files and the kept JSON files.
DATA_FILES = len(YAML_FILES) + len(KEPT_JSON)
#: The graphs named like the node they describe (what ``stats`` counts): one per YAML file,
#: and per kept file one for its evaluation and one per result.
NODE_GRAPHS = len(YAML_FILES) + len(KEPT_JSON) + IMPORTED
#: Every named graph the data loads into: those, and two more per import (the models and
#: the benchmarks its files name).
IMPORTS = len(list((DATA / "imports").glob("*.yaml")))
GRAPHS = NODE_GRAPHS + 2 * IMPORTS
RUNS = len(list((DATA / "runs").glob("*.yaml")))
#: A kept file of each folder of the origin (each benchmark family's shape of file): the
#: imported records of the tests where every imported record would only be weight.
KEPT_SAMPLE = sorted({p.relative_to(DATA).parts[:4]: p for p in reversed(KEPT_JSON)}.values())
#: The counts of the ``sampled_copy`` fixture's data (the written files, the import record and
#: :data:`KEPT_SAMPLE`): the tests of the store that need every kind of file, not every file.
SAMPLE_IMPORTED = sum(_results(p) for p in KEPT_SAMPLE)
SAMPLE_FILES = len(YAML_FILES) + len(KEPT_SAMPLE)
SAMPLE_NODE_GRAPHS = len(YAML_FILES) + len(KEPT_SAMPLE) + SAMPLE_IMPORTED
SAMPLE_GRAPHS = SAMPLE_NODE_GRAPHS + 2 * IMPORTS
#: What copying data/ leaves out to keep only the files people write: the import's kept
#: upstream files and its import record (tests of broken YAML files, where 423 imported
#: results are only weight for both SHACL engines and every ``kg`` process).
WITHOUT_IMPORT = shutil.ignore_patterns(UPSTREAM, IMPORTS_FOLDER)
#: The records written as YAML: the seed, and the other number of its sentence.
WRITTEN = len(list((DATA / "records").glob("*.yaml")))
#: Every record: the written ones and the imported results.
RECORDS = WRITTEN + IMPORTED
SAMPLE_RECORDS = WRITTEN + SAMPLE_IMPORTED


def _count(folder: str) -> int:
    return len(list((DATA / folder).glob("*.yaml")))


#: The bundled sources, agents and evaluations written as YAML, each as a data file.
SOURCES, AGENTS, EVALUATIONS = _count("sources"), _count("agents"), _count("evaluations")


def _judging(*records: str) -> int:
    """How many bundled runs give a verdict on any of ``records``."""
    import yaml

    count = 0
    for path in (DATA / "runs").glob("*.yaml"):
        doc = yaml.load(path.read_text(), Loader=yaml.BaseLoader)
        judged = [v["record"] for v in doc.get("verdicts", [])] or [doc["record"]]
        count += bool(set(records) & set(judged))
    return count


#: How many bundled runs give a verdict on each claim of the seed's sentence, and on either.
SEED_RUNS, OTHER_RUNS = _judging(SEED_ID), _judging(OTHER_ID)
SENTENCE_RUNS = _judging(SEED_ID, OTHER_ID)
SEED_SOURCE = "sources/saadat-fellay-2026-genomic-lm-efficiency.yaml"
AGENT_FILE = "agents/claude.yaml"
#: The seed's hardware as written, and a changed value (a new version of the record).
OLD_HARDWARE = "NVIDIA H100 (section 2.4); 'H100 94GB GPUs' (section 4)"
NEW_HARDWARE = "NVIDIA H200 (section 2.4); 'H100 94GB GPUs' (section 4)"


def open_test_store(path: Path, read_only: bool = False):
    """The embedded store in ``path`` (a real pyoxigraph store on disk)."""
    from kg.store import EmbeddedStore

    return EmbeddedStore(path, read_only=read_only)


def write_values(store: Path, values: list[str]) -> str:
    """A store version holding one graph (urn:g) with a triple ``<urn:sN> <urn:p> value``
    per value; its directory's name."""
    import os

    import pyoxigraph as ox

    quads = [
        ox.Quad(
            ox.NamedNode(f"urn:s{i}"),
            ox.NamedNode("urn:p"),
            ox.Literal(value),
            ox.NamedNode("urn:g"),
        )
        for i, value in enumerate(values)
    ]
    with open_test_store(store) as writer:
        writer.replace_graphs({"urn:g": quads})
    return os.readlink(store / "live")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


#: A value for each canned query's parameter that the bundled data has.
SAMPLE_PARAMS = {
    "model": "NT 2.5B",
    "status": "source-checked",
    "method": "pdf-text-parse",
    "sha256": "4bc2452110f280a7ba8baa4c7c28beac89769511019666bc77fc33af9b3bcd60",
    "benchmark": "ifeval-ccb018",
    "since": "2026-11-30",
}
#: Where a parameter's name means another thing in one query: model-results takes a model's
#: id (of the imported results), results-for-model the name a record prints.
SAMPLE_FOR = {"model-results": {"model": "mistralai/mistral-7b-instruct-v0.3"}}
#: The canned queries that find nothing in the bundled data: it cites no source as context
#: only (test_queries adds such a row to see one).
EMPTY_IN_BUNDLED = {"context-only-evidence"}


def sample_params(name: str, query) -> dict[str, str]:
    """The sample value of each parameter of canned query ``name``."""
    return {
        p.name: SAMPLE_FOR.get(name, {}).get(p.name, SAMPLE_PARAMS[p.name]) for p in query.params
    }


def copy_sampled(target: Path) -> Path:
    """Copy data/ to ``target`` with one kept file of each origin folder (KEPT_SAMPLE)."""
    shutil.copytree(DATA, target, ignore=WITHOUT_IMPORT)
    shutil.copytree(DATA / IMPORTS_FOLDER, target / IMPORTS_FOLDER)
    for path in KEPT_SAMPLE:
        copy = target / path.relative_to(DATA)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, copy)
    return target
