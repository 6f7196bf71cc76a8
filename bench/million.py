"""The Goals table of issue 51 for one loaded store: start-up, memory, the first request of
every page kind, a cold search, and optionally the 300 requests/s Zipf mix.

    python bench/million.py STORE --data DATA [--label NAME] [--workers W] [--mix] [--json]

STORE is a store directory made by `kg load` or `kg import` (only read: the harness checks
that serving left its live version as it was), DATA the data directory it was loaded
from. In this one command, on this machine:

- **start**: `python -m kg.cli serve` spawned as bench/serve.py spawns it; the seconds
  from the spawn to /healthz answering, then to the first answer of `/` (200);
- **memory**: PSS of the server's processes summed (/proc/PID/smaps_rollup: shared pages
  counted once), after start and after the first requests of every page kind;
- **first request of every page kind**, each once, cold, in a fixed order right after the
  start (home, index, record, source, benchmark, model, feeds, VoID, sitemap and a part, a
  board's model found and rank jumped to, the source's suite (and its page 20 worst first),
  the lists, disagreements (and of a source), compare, /ns, /sparql, a search and its
  JSON): ids are the store's
  largest model, benchmark and source (the worst case of a page that lists them), picked
  with small SPARQL lookups before the server starts;
- **cold search**: after a restart, each query's first `/?q=` and `/records.json?q=`;
- **mix** (``--mix``): bench/serve.py's open-loop Zipf mix of record pages at 300
  requests/s with the response cache (its ``mixes``), p50 and p99.

Each figure prints beside its goal at 35k real / 1M synthetic and its ratio to the goal.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.serve import Server, live_or_exit, mixes, tree  # noqa: E402

#: (figure, goal at 35k real, goal at 1M synthetic), issue 51's table
GOALS = {
    "start_s": (2.0, 10.0),
    "pss_mb": (500.0, 2000.0),
    "first_ms": (300.0, 1000.0),
    "mix_p50_ms": (10.0, 10.0),
    "mix_p99_ms": (50.0, 50.0),
    "search_ms": (50.0, 100.0),
}
PREFIXES = (
    "PREFIX kg: <https://w3id.org/claimgraph/ns#>\n"
    "PREFIX prov: <http://www.w3.org/ns/prov#>\n"
    "PREFIX dcterms: <http://purl.org/dc/terms/>\n"
)


def _select(store: Any, query: str) -> list[Any]:
    """The solutions of a SELECT query (with the prefixes above)."""
    return list(store.query(PREFIXES + query))


def _largest(store: Any, pattern: str) -> str:
    """The member of a group with the most records."""
    query = (
        f"SELECT ?g (COUNT(*) AS ?n) WHERE {{ ?r kg:benchmark ?b . {pattern} }} "
        "GROUP BY ?g ORDER BY DESC(?n) LIMIT 1"
    )
    return str(_select(store, query)[0][0].value)


def _path(iri: str, kind: str) -> str:
    """A node's path on the site: its minted IRI from the kind's segment on."""
    return iri[iri.index(f"/{kind}/") :]


def pick(store_dir: Path, sample: int) -> dict[str, object]:
    """The nodes the pages are asked for, and record ids for the mix, read from the store
    (read-only) before any server opens it."""
    from kg.store.embedded import EmbeddedStore

    store = EmbeddedStore(store_dir, read_only=True)
    try:
        model = _largest(store, "?r kg:evaluatedModel ?g")
        benchmark = _largest(store, "?r kg:benchmark ?g")
        source = _largest(store, "?r prov:wasQuotedFrom ?g")
        rows = _select(
            store,
            "SELECT ?id ?label WHERE { ?r kg:benchmark <" + benchmark + "> ; "
            "dcterms:identifier ?id . OPTIONAL { <" + benchmark + "> "
            "<http://www.w3.org/2000/01/rdf-schema#label> ?label } } LIMIT 2",
        )
        firsts = [(str(r[0].value), str(r[1].value) if r[1] else "") for r in rows]
        ids = [
            str(r[0].value)
            for r in _select(
                store,
                "SELECT ?id WHERE { ?r kg:benchmark ?b ; dcterms:identifier ?id } "
                f"LIMIT {sample}",
            )
        ]
    finally:
        store.close()
    model_name = urllib.parse.unquote(model.rsplit("/", 1)[-1]).rsplit("/", 1)[-1]
    label = firsts[0][1] or benchmark.rsplit("/", 1)[-1]
    return {
        "record": f"/record/{firsts[0][0]}",
        "records": [f for f, _ in firsts],
        "model": _path(model, "model"),
        "benchmark": _path(benchmark, "benchmark"),
        "source": _path(source, "source"),
        "source_iri": source,
        "queries": [f"{model_name} {label.split(' ')[0]}", label.split(" ")[0], model_name[:4]],
        "ids": ids,
    }


def pages(picked: dict[str, object]) -> list[tuple[str, str]]:
    """(kind, path) of every page kind, in the order they are asked."""
    source, benchmark = str(picked["source"]), str(picked["benchmark"])
    records = picked["records"]
    assert isinstance(records, list)
    query = str(picked["queries"][0])  # type: ignore[index]
    compare = urllib.parse.urlencode([("record", r) for r in records])
    model_name = urllib.parse.unquote(str(picked["model"]).rsplit("/", 1)[-1])
    return [
        ("home", "/"),
        ("index", "/records"),
        ("record", str(picked["record"])),
        ("source", source),
        ("benchmark", benchmark),
        ("model", str(picked["model"])),
        ("feed", "/feed.atom"),
        ("node feed", f"/feed{benchmark}.atom"),
        ("void", "/.well-known/void"),
        ("sitemap", "/sitemap.xml"),
        ("sitemap part", ""),  # the first part the sitemap names
        ("board, a model found", f"{benchmark}?" + urllib.parse.urlencode({"find": model_name})),
        ("board, a rank", f"{benchmark}?rank=1000"),
        ("suite", f"{source}/suite"),
        (
            "suite, worst first, page 20",
            f"{source}/suite?page=20&sort=-{benchmark.rsplit('/', 1)[-1]}",
        ),
        ("benchmarks", "/benchmarks"),
        ("models", "/models"),
        ("models, page 40", "/models?page=40"),
        (
            "models, searched by name",
            "/models?" + urllib.parse.urlencode({"q": query.split()[0], "sort": "name"}),
        ),
        ("sources", "/sources"),
        ("agents", "/agents"),
        ("disagreements", "/disagreements"),
        (
            "disagreements of a source",
            "/disagreements?" + urllib.parse.urlencode({"source": str(picked["source_iri"])}),
        ),
        ("compare", f"/compare?{compare}"),
        ("vocabulary", "/ns"),
        ("sparql page", "/sparql"),
        ("search", "/?" + urllib.parse.urlencode({"q": query})),
        ("search json", "/records.json?" + urllib.parse.urlencode({"q": query})),
    ]


def pss_mb(pid: int) -> float:
    """Proportional set size of a process and its descendants, MB: a page shared by n of
    them counts 1/n in each, so the sum counts it once."""
    total = 0
    for current in tree(pid):
        try:
            for line in Path(f"/proc/{current}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def timed_get(server: Server, path: str) -> tuple[int, float, bytes]:
    """(status, milliseconds, body) of one GET on a new connection."""
    started = time.perf_counter()
    status, body = server.get(path)
    return status, (time.perf_counter() - started) * 1000, body


def start(store: Path, data: Path, workers: int | None) -> tuple[Server, float]:
    """A kg serve process and the seconds from its spawn to /healthz answering."""
    command = [sys.executable, "-m", "kg.cli", "--store", str(store), "--data", str(data)]
    command += ["serve", "--port", "0"]
    if workers:
        command += ["--workers", str(workers)]
    started = time.perf_counter()
    server = Server(command, None)
    return server, time.perf_counter() - started


def measure(args: argparse.Namespace) -> dict[str, object]:
    live = live_or_exit(args.store)
    before = sorted((p.name, p.stat().st_mtime_ns) for p in live.iterdir())
    picked = pick(args.store, args.sample)
    out: dict[str, object] = {"store": str(args.store), "label": args.label or str(args.store)}
    server, healthz_s = start(args.store, args.data, args.workers)
    try:
        status, first_ms, _ = timed_get(server, "/")
        out["healthz_s"] = healthz_s
        out["start_s"] = healthz_s + first_ms / 1000
        out["pss_start_mb"] = pss_mb(server.proc.pid)
        firsts = [("index", "/", status, first_ms)]
        part = ""
        for kind, asked in pages(picked)[1:]:
            path = asked or part
            if not path:
                continue
            status, ms, body = timed_get(server, path)
            if kind == "sitemap":
                found = re.search(rb"/(sitemap-[0-9]+\.xml)<", body)
                part = "/" + found.group(1).decode() if found else ""
            firsts.append((kind, path, status, ms))
            print(f"  {kind} {status} {ms:.0f} ms {path}", file=sys.stderr, flush=True)
        out["first"] = firsts
        out["pss_after_mb"] = pss_mb(server.proc.pid)
    finally:
        server.stop()
    server, _ = start(args.store, args.data, args.workers)
    try:
        searches = []
        for query in picked["queries"]:  # type: ignore[attr-defined]
            for form in ("/?", "/records.json?"):
                path = form + urllib.parse.urlencode({"q": query})
                status, ms, _ = timed_get(server, path)
                searches.append((path, status, ms))
        out["search"] = searches
    finally:
        server.stop()
    if args.mix:
        mix_args = argparse.Namespace(
            rate=300.0,
            seconds=args.mix_seconds,
            warmup=args.mix_warmup,
            zipf=1.1,
            conditional=0.2,
            caches=[64],
            mixes=["zipf"],
            workers=args.workers or 2,
            threads=8,
            connections=16,
        )
        [(_, _, run)] = mixes(0, mix_args, args.store, args.data, picked["ids"])  # type: ignore[arg-type]
        out["mix"] = {"p50_ms": run.pct(0.5), "p99_ms": run.pct(0.99), "rate": run.rate}
    after = sorted((p.name, p.stat().st_mtime_ns) for p in live.iterdir())
    out["store_untouched"] = before == after
    return out


def report(res: dict[str, object], scale: int) -> str:
    """The figures as Markdown rows: figure, measured, goal, measured / goal."""

    def row(name: str, value: float, goal_key: str, unit: str) -> str:
        goal = GOALS[goal_key][scale]
        measured = f"{value:,.1f} {unit} | {goal:g} {unit} | {value / goal:.2f}"
        return f"| {res['label']} | {name} | {measured} |"

    lines = ["| store | figure | measured | goal | measured / goal |", "|---|---|---|---|---|"]
    lines.append(row("kg serve start to first answer of /", float(res["start_s"]), "start_s", "s"))  # type: ignore[arg-type]
    for when, said in (("start", "after start"), ("after", "after the first requests")):
        value = float(res[f"pss_{when}_mb"])  # type: ignore[arg-type]
        lines.append(row(f"server PSS, all processes, {said}", value, "pss_mb", "MB"))
    for kind, path, status, ms in res["first"]:  # type: ignore[attr-defined]
        note = "" if status == 200 else f" ({status})"
        lines.append(row(f"first {kind}{note}: `{path[:60]}`", ms, "first_ms", "ms"))
    if not any(kind == "sitemap part" for kind, *_ in res["first"]):  # type: ignore[attr-defined]
        lines.append(f"| {res['label']} | first sitemap part | none: the sitemap is one file | | |")
    for path, status, ms in res["search"]:  # type: ignore[attr-defined]
        note = "" if status == 200 else f" ({status})"
        lines.append(row(f"search after restart{note}: `{path[:60]}`", ms, "search_ms", "ms"))
    if "mix" in res:
        mix = res["mix"]
        assert isinstance(mix, dict)
        lines.append(row("300 req/s Zipf mix p50", mix["p50_ms"], "mix_p50_ms", "ms"))
        lines.append(row("300 req/s Zipf mix p99", mix["p99_ms"], "mix_p99_ms", "ms"))
    lines.append(f"| {res['label']} | store untouched by serving | {res['store_untouched']} | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="a store directory (only read)")
    parser.add_argument("--data", type=Path, required=True, help="its data directory")
    parser.add_argument("--label", help="the store's name in the table")
    parser.add_argument("--workers", type=int, help="kg serve --workers (default: its own)")
    parser.add_argument(
        "--scale", choices=("35k", "1m"), default="35k", help="which column of goals"
    )
    parser.add_argument("--mix", action="store_true", help="also the 300 req/s Zipf mix")
    parser.add_argument("--mix-seconds", type=float, default=30.0)
    parser.add_argument("--mix-warmup", type=float, default=10.0)
    parser.add_argument("--sample", type=int, default=100_000, help="record ids the mix draws from")
    parser.add_argument("--json", action="store_true", help="the figures as one JSON object")
    args = parser.parse_args(argv)
    res = measure(args)
    if args.json:
        res.pop("ids", None)
        print(json.dumps(res, indent=1))
    else:
        print(report(res, 0 if args.scale == "35k" else 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
