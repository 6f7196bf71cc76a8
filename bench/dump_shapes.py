"""The published data against its own shapes: pyshacl, the reference SHACL engine, over the
whole dump a server gives (``/dumps/claimgraph.nq.gz``, the same bytes ``kg export --all
--format nquads`` writes), with ``shapes/``.

    python bench/dump_shapes.py [--store PATH] [--files 0] [--archive SNAPSHOT] [--work DIR]

With ``--store``, the dump of that store; otherwise the first ``--files`` result files of the
Every Eval Ever snapshot (0: all 5,267) are imported into a fresh store first, as
bench/imports.py does. The dump's graphs are read as one graph (their union, the ontology's
included, as a client that checks a dump reads it) and validated with ``inference="none"``
and SHACL-SPARQL on. Prints a Markdown row for bench/README.md, then each kind of result
(path, component, the value's datatype) with its count, if any.
"""

from __future__ import annotations

import argparse
import logging
import resource
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox
from rdflib import Graph, Literal

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.imports import ARCHIVE, ORIGIN, origin_folder  # noqa: E402
from kg.model.shacl.reference import prepared_queries  # noqa: E402
from kg.model.validation import shapes_graph  # noqa: E402
from kg.rdf.namespaces import SH  # noqa: E402


@dataclass
class DumpCheck:
    """What pyshacl said of a dump."""

    triples: int
    conforms: bool
    #: (path, component, the value's datatype) -> how many results
    results: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    read_s: float = 0.0
    validate_s: float = 0.0


def check_dump(nquads: bytes) -> DumpCheck:
    """pyshacl over the union of the graphs of a dump (N-Quads), with ``shapes/``."""
    started = time.perf_counter()
    # the union, each triple once, read by rdflib as a client would (through N-Triples)
    triples = {quad.triple for quad in ox.parse(nquads, ox.RdfFormat.N_QUADS)}
    text = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES)
    del triples
    data = Graph()
    data.parse(data=text, format="nt")
    del text
    read = time.perf_counter() - started
    from pyshacl import validate  # the reference engine, imported where it is used

    logging.getLogger("rdflib.term").setLevel(logging.ERROR)
    started = time.perf_counter()
    with prepared_queries():
        conforms, report, _ = validate(
            data, shacl_graph=shapes_graph(), inference="none", advanced=True
        )
    check = DumpCheck(len(data), bool(conforms), read_s=read)
    check.validate_s = time.perf_counter() - started
    for result in report.subjects(SH.resultSeverity, None):
        if (result, SH.sourceConstraintComponent, None) not in report:
            continue
        value = report.value(result, SH.value)
        datatype = str(value.datatype or "") if isinstance(value, Literal) else ""
        component = str(report.value(result, SH.sourceConstraintComponent)).rsplit("#", 1)[-1]
        check.results[(str(report.value(result, SH.resultPath)), component, datatype)] += 1
    return check


def kg(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "kg.cli", *args], check=True)


def imported_store(archive: Path, files: int, work: Path) -> Path:
    """A fresh store holding the first ``files`` files of the snapshot (0: all)."""
    shutil.rmtree(work, ignore_errors=True)
    origin, data, store = work / "origin", work / "data", work / "store"
    origin_folder(archive, files, origin)
    shutil.copytree(ROOT / "data" / "agents", data / "agents")
    kg(
        "--data",
        str(data),
        "--store",
        str(store),
        "import",
        "every-eval-ever",
        str(origin),
        "--origin",
        ORIGIN,
    )
    return store


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="an existing store (else the snapshot's)")
    parser.add_argument("--files", type=int, default=0, help="files of the snapshot (0: all)")
    parser.add_argument("--archive", type=Path, default=ARCHIVE)
    parser.add_argument("--work", type=Path, default=Path("/tmp/kg-bench-dump-shapes"))
    args = parser.parse_args()
    store = args.store or imported_store(args.archive, args.files, args.work / "import")
    dump = args.work / "dump"
    shutil.rmtree(dump, ignore_errors=True)
    kg("--store", str(store), "export", "--all", "--format", "nquads", "-o", str(dump))
    check = check_dump((dump / "claimgraph.nq").read_bytes())
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("| store | triples (union) | read s | pyshacl s | conforms | results | peak MB |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {store} | {check.triples:,} | {check.read_s:.1f} | {check.validate_s:.1f} | "
        f"{check.conforms} | {sum(check.results.values())} | {peak_mb:,.0f} |"
    )
    for (path, component, datatype), count in check.results.most_common():
        print(f"    {count:6}  {path}  {component}  {datatype}")
    return 0 if check.conforms else 1


if __name__ == "__main__":
    sys.exit(main())
