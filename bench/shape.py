"""The shape of a store of imported results: how many records, models, benchmarks,
sources, developers, reviews and runs, and how the records spread over them.

    python bench/shape.py STORE [STORE ...] [--json]

Each store (a directory made by `kg load` or `kg import`) is opened read-only and asked a
few grouped SPARQL counts over what the index reads (kg:benchmark, kg:evaluatedModel, the
evaluation's developer, precision and parameters). Run on the real Every Eval Ever
snapshot it gives the proportions `bench/gen.py --shape real` copies; run on a generated
corpus's store it shows that they match (bench/README.md, "A million results").
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PREFIXES = (
    "PREFIX kg: <https://w3id.org/claimgraph/ns#>\n"
    "PREFIX prov: <http://www.w3.org/ns/prov#>\n"
    "PREFIX dcterms: <http://purl.org/dc/terms/>\n"
)
#: One count per (group, records) pair: the records of each model, benchmark, source,
#: developer and evaluation (file).
GROUPS = {
    "model": "?r kg:benchmark ?b ; kg:evaluatedModel ?g",
    "benchmark": "?r kg:benchmark ?g",
    "source": "?r kg:benchmark ?b ; prov:wasQuotedFrom ?g",
    "developer": "?r kg:evaluation/kg:modelDeveloper ?g",
    "file": "?r kg:benchmark ?b ; kg:evaluation ?g",
}
COUNTS = {
    "records": "?r kg:benchmark ?b",
    "reviews": "?r a kg:Review",
    "runs": "?r a kg:ReproductionRun",
    "files with precision": "?r a kg:Evaluation ; kg:precision ?p",
    "files with parameters": "?r a kg:Evaluation ; kg:parametersBillions ?p",
}


def _ints(store: object, query: str) -> list[int]:
    return [int(row[0].value) for row in store.query(PREFIXES + query)]  # type: ignore[attr-defined]


def spread(sizes: list[int]) -> dict[str, float]:
    """How records spread over a group's members: count, mean, median, p90, max, the
    largest member's share, and the slope of log(size) against log(rank) (a Zipf law
    has a slope near -1; flat groups near 0)."""
    ranked = sorted(sizes, reverse=True)
    total = sum(ranked) or 1
    xs = [math.log(i + 1) for i in range(len(ranked))]
    ys = [math.log(s) for s in ranked]
    slope = float("nan")
    if len(ranked) > 2:
        mx, my = statistics.fmean(xs), statistics.fmean(ys)
        den = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den
    return {
        "count": len(ranked),
        "mean": statistics.fmean(ranked) if ranked else 0.0,
        "median": float(statistics.median(ranked)) if ranked else 0.0,
        "p90": float(ranked[len(ranked) // 10]) if ranked else 0.0,
        "max": float(ranked[0]) if ranked else 0.0,
        "top share": ranked[0] / total if ranked else 0.0,
        "zipf slope": slope,
    }


def measure(store_dir: Path) -> dict[str, object]:
    """The counts and spreads of one store (opened read-only)."""
    from kg.store.embedded import EmbeddedStore

    store = EmbeddedStore(store_dir, read_only=True)
    try:
        out: dict[str, object] = {}
        for name, pattern in COUNTS.items():
            out[name] = _ints(store, f"SELECT (COUNT(*) AS ?n) WHERE {{ {pattern} }}")[0]
        for name, pattern in GROUPS.items():
            sizes = _ints(
                store,
                f"SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE {{ {pattern} }} GROUP BY ?g",
            )
            out[f"records per {name}"] = spread(sizes)
        models_per_developer = _ints(
            store,
            "SELECT (COUNT(DISTINCT ?m) AS ?n) WHERE { ?r kg:benchmark ?b ; kg:evaluatedModel ?m ; "
            "kg:evaluation/kg:modelDeveloper ?d } GROUP BY ?d",
        )
        out["models per developer"] = spread(models_per_developer)
    finally:
        store.close()
    return out


def table(shapes: dict[str, dict[str, object]]) -> str:
    """The shapes side by side, one column per store, as Markdown."""
    names = list(shapes)
    lines = ["| figure | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    first = next(iter(shapes.values()))
    for key, value in first.items():
        if isinstance(value, dict):
            for part in value:
                cells = [_cell(shapes[n][key][part]) for n in names]  # type: ignore[index]
                lines.append(f"| {key}: {part} | " + " | ".join(cells) + " |")
        else:
            lines.append(f"| {key} | " + " | ".join(_cell(shapes[n][key]) for n in names) + " |")
    for n in names:  # the ratios that scale with N
        shape = shapes[n]
        records = int(shape["records"]) or 1  # type: ignore[call-overload]
        for group in ("model", "file", "developer"):
            members = shape[f"records per {group}"]["count"]  # type: ignore[index]
            shape[f"{group}s per 1,000 records"] = 1000 * members / records
    for ratio in ("models per 1,000 records", "files per 1,000 records"):
        lines.append(f"| {ratio} | " + " | ".join(_cell(shapes[n][ratio]) for n in names) + " |")
    lines.append(
        "| developers per 1,000 records | "
        + " | ".join(_cell(shapes[n]["developers per 1,000 records"]) for n in names)
        + " |"
    )
    return "\n".join(lines)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", type=Path, nargs="+", help="store directories (only read)")
    parser.add_argument("--json", action="store_true", help="one JSON object instead")
    args = parser.parse_args(argv)
    shapes = {str(s): measure(s) for s in args.stores}
    text = table(shapes)  # adds the per-1,000 ratios
    print(json.dumps(shapes, indent=1) if args.json else text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
