"""Generate a synthetic corpus of claimgraph data files: N records and what they share.

    python bench/gen.py 10000 --seed 1 -o /tmp/corpus-10k
    python bench/gen.py 10000 --seed 1 --shape real -o /tmp/eee-10k

With ``--shape real`` (bench/gen_real.py) the corpus is instead N results as Every Eval
Ever files shaped like the real snapshot (thousands of models, tens of benchmarks, boards
and developers in its proportions), laid out as the origin repository for
`kg import every-eval-ever` (bench/README.md, "A million results").

Deterministic for a given N and seed; valid as it is for `kg load`; clearly synthetic
(every id starts with "synthetic-", every title with "Synthetic"); never written into
data/. Like a real registry, sources, agents and evaluations are shared by many records,
records carry one to three evidence rows (some context-only, some on a shared locator)
and one or two reviews, and some records have review files and reproduction runs.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from decimal import Decimal
from pathlib import Path

import yaml

METRICS = [  # (id, label, unit, direction, typical value range)
    ("peak-memory", "Peak memory", "gigabyte", "lower", (2, 140)),
    ("accuracy", "Accuracy", "percent", "higher", (40, 99)),
    ("latency", "Latency", "millisecond", "lower", (1, 900)),
    ("training-time", "Training time", "hour", "lower", (1, 500)),
    ("throughput", "Throughput", "count", "higher", (100, 90000)),
]
MODELS = [
    "NT 2.5B",
    "NT 500M",
    "ESM-2 650M",
    "HyenaDNA 1M",
    "DNABERT-2",
    "Caduceus 7M",
    "GPN-MSA",
    "Evo 7B",
    "Borzoi",
    "Enformer",
]
DATASETS = [
    "Synthetic uniform random DNA sequences, seed 42",
    "Synthetic promoter benchmark",
    "Synthetic splice-site benchmark",
    "Synthetic enhancer activity set",
]
METHODS = [
    "source-hash-verification",
    "pdf-text-parse",
    "independent-cell-check",
    "rendered-source-visual-check",
]
FAMILY = [
    "Adeyemi",
    "Berg",
    "Chen",
    "Dubois",
    "Esposito",
    "Fischer",
    "García",
    "Haddad",
    "Ivanova",
    "Jensen",
    "Kowalski",
    "Larsen",
    "Moreau",
    "Nakamura",
    "Okafor",
    "Pereira",
]


def sha(rng: random.Random) -> str:
    return hashlib.sha256(rng.getrandbits(128).to_bytes(16, "big")).hexdigest()


def dump(path: Path, doc: dict) -> None:
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100))


def generate(n: int, seed: int, out: Path) -> dict[str, int]:
    rng = random.Random(seed)
    for kind in ("records", "sources", "agents", "evaluations", "reviews", "runs"):
        (out / kind).mkdir(parents=True, exist_ok=True)
    counts = dict.fromkeys(("records", "sources", "agents", "evaluations", "reviews", "runs"), 0)

    agents = []
    for i, kind in enumerate(["software", "person", "organization", "software", "person"]):
        ident = f"synthetic-agent-{i}"
        dump(
            out / "agents" / f"{ident}.yaml",
            {
                "kind": "agent",
                "id": ident,
                "agent_type": kind,
                "label": f"Synthetic {kind} agent {i}",
                "note": "Synthetic: generated for benchmarks.",
            },
        )
        agents.append(ident)
    counts["agents"] = len(agents)

    sources = []
    for i in range(max(5, n // 50)):
        ident = f"synthetic-source-{i}"
        artifact = sha(rng)
        authors = [{"family": rng.choice(FAMILY)} for _ in range(rng.randint(1, 4))]
        dump(
            out / "sources" / f"{ident}.yaml",
            {
                "kind": "source",
                "id": ident,
                "document_type": rng.choice(["paper", "preprint"]),
                "title": f"Synthetic study {i} of genomic language models",
                "authors": authors,
                "venue": f"Synthetic Workshop {2020 + i % 7}",
                "date": str(2020 + i % 7),
                "artifact": {
                    "sha256": artifact,
                    "version_statement": f"Synthetic PDF {i}",
                    "page_count": str(rng.randint(4, 40)),
                    "pdf_creation_date": f"{2020 + i % 7}-0{1 + i % 9}-1{i % 9}",
                    "retrieval_url": f"https://synthetic.example/pdf/{i}",
                    "hash_scope": {"missing": "not-documented"},
                },
            },
        )
        sources.append((ident, artifact, authors, 2020 + i % 7))
    counts["sources"] = len(sources)

    evaluations = []
    for i in range(max(3, n // 100)):
        ident = f"synthetic-evaluation-{i}"
        dump(
            out / "evaluations" / f"{ident}.yaml",
            {
                "kind": "evaluation",
                "id": ident,
                "title": f"Synthetic evaluation {i}",
                "source": sources[i % len(sources)][0],
            },
        )
        evaluations.append(ident)
    counts["evaluations"] = len(evaluations)

    runner = agents[0]
    for i in range(n):
        ident = f"synthetic-record-{i:06d}"
        metric, label, unit, direction, (low, high) = rng.choice(METRICS)
        value = Decimal(rng.uniform(low, high)).quantize(Decimal("0.01"))
        source, artifact, authors, year = rng.choice(sources)
        cite = " and ".join(a["family"] for a in authors[:2]) + f" {year}"
        model = rng.choice(MODELS)
        page = rng.randint(1, 12)
        quote = f"the {model} model reaches {value} on this synthetic task"
        rows = [
            {"property": "reported-result", "statement": str(value), "citation": "individual-claim"}
        ]
        if rng.random() < 0.5:
            rows.append(
                {"property": "hardware", "statement": "Synthetic GPU", "citation": "context-only"}
            )
        if rng.random() < 0.3:
            rows.append({"property": "model", "statement": model, "citation": "individual-claim"})
        reviews = [
            {
                "agent": rng.choice(agents),
                "role": "reviewer",
                "reviewed_at": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T12:00:00Z",
                "status": "source-checked",
                "artifact_sha256": artifact,
                "methods": rng.sample(METHODS, rng.randint(1, 4)),
                "note": "Synthetic review: value matches the synthetic source.",
            }
            for _ in range(rng.randint(1, 2))
        ]
        record = {
            "kind": "record",
            "id": ident,
            "title": f"Synthetic {label} of {model} ({cite})",
            "source": source,
            "evaluation": rng.choice(evaluations),
            "metric": metric,
            "metric_label": label,
            "metric_direction": direction,
            "metric_qualifier": f"synthetic setting {i % 17}",
            "printed_value": str(value),
            "numeric_value": str(value),
            "unit": unit,
            "hardware": "Synthetic GPU",
            "tested_configuration": {
                "model": model,
                "configuration": "synthetic configuration",
                "source": source,
            },
            "protocol": {"text": "Synthetic protocol", "source": source, "at": f"Table {i % 5}"},
            "dataset": {"text": rng.choice(DATASETS), "source": source},
            "coverage": {
                "scored": {"missing": "unreported"},
                "eligible": {"missing": "unreported"},
            },
            "uncertainty": {"missing": "unreported"},
            "missing_metadata": [{"field": "uncertainty", "reason": "unreported"}],
            "evidence_kind": rng.choice(["independent-external-evaluation", "self-reported"]),
            "review_status": "source-checked",
            "locator": {
                "text": f"Section {1 + i % 6} (page {page}): '{quote}'",
                "section": str(1 + i % 6),
                "page": str(page),
                "quote": quote,
            },
            "evidence": rows,
            "reproduction": {
                "split": {"missing": "not-applicable"},
                "scoring_implementation": {"missing": "unreported"},
            },
            "reviews": reviews,
            "upstream_releases": [f"2026-10-22-{sha(rng)[:12]}"],
        }
        dump(out / "records" / f"{ident}.yaml", record)
        if i % 10 == 0:
            review_id = f"synthetic-review-{i:06d}"
            dump(
                out / "reviews" / f"{review_id}.yaml",
                {
                    "kind": "review",
                    "id": review_id,
                    "record": ident,
                    "source": source,
                    "agent": runner,
                    "role": "verifier",
                    "reviewed_at": "2026-11-30T09:00:00Z",
                    "methods": ["source-hash-verification"],
                    "artifact_sha256": artifact,
                    "checks": [{"method": "source-hash-verification", "outcome": "passed"}],
                },
            )
            counts["reviews"] += 1
        if i % 20 == 0:
            dump(
                out / "runs" / f"synthetic-run-{i:06d}.yaml",
                _run(rng, i, ident, value, unit, runner),
            )
            counts["runs"] += 1
    counts["records"] = n
    return counts


def _run(rng: random.Random, i: int, record: str, claimed: Decimal, unit: str, agent: str) -> dict:
    measured = (claimed * Decimal(rng.uniform(0.8, 1.2))).quantize(Decimal("0.01"))
    difference = (measured - claimed) / claimed if claimed else Decimal(0)
    tolerance = Decimal("0.10")
    return {
        "kind": "run",
        "id": f"synthetic-run-{i:06d}",
        "record": record,
        "agent": agent,
        "recipe": {"name": "synthetic", "path": "recipes/synthetic.py", "sha256": sha(rng)},
        "parameters": [{"name": "precision", "value": "bf16", "note": "synthetic"}],
        "seed": "42",
        "status": "completed",
        "started_at": "2026-11-30T09:00:00Z",
        "ended_at": "2026-11-30T09:05:00Z",
        "stages": [{"stage": "only", "status": "completed", "seconds": "300.0"}],
        "measurements": [
            {"stage": "only", "quantity": "value", "value": str(measured), "unit": unit}
        ],
        "environment": {
            "gpu_model": "Synthetic GPU",
            "gpu_count": "1",
            "python": "3.12.3",
            "host_sha256": sha(rng),
            "packages": [{"name": "torch", "version": "0.0-synthetic"}],
        },
        "log_sha256": sha(rng),
        "verdict": {
            "stage": "only",
            "quantity": "value",
            "unit": unit,
            "claimed": str(claimed),
            "tolerance": str(tolerance),
            "measured": str(measured),
            "relative_difference": f"{difference:.4f}",
            "outcome": "consistent" if abs(difference) <= tolerance else "inconsistent",
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int, help="number of records")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument(
        "--shape",
        choices=("records", "real"),
        default="records",
        help="records: YAML records of 10 models and 5 metrics (the default); real: "
        "Every Eval Ever files in the real snapshot's proportions, for kg import",
    )
    args = parser.parse_args(argv)
    if args.output.resolve().is_relative_to((Path(__file__).parent.parent / "data").resolve()):
        parser.error("synthetic data never goes into data/")
    if args.shape == "real":
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from bench.gen_real import generate_real

        counts = generate_real(args.n, args.seed, args.output)
    else:
        counts = generate(args.n, args.seed, args.output)
    print(", ".join(f"{v} {k}" for k, v in counts.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
