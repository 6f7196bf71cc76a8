"""Serving benchmark: `kg serve` on 127.0.0.1 under an open-loop load (the canned queries
against `oxigraph serve`: bench/canned.py).

    python bench/serve.py 1000 10000 100000 \\
        [--stores /work/benchdata/store-{n}] [--corpora /work/benchdata/corpus-{n}] \\
        [--rate 300] [--connections 16] [--seconds 20] [--workers 2] [--repeat 2]

For each size N (a corpus from bench/gen.py N --seed 1 and its store made by `kg load`,
or the ones named by --corpora/--stores, which are only read), in this one command:

- **healthz**: the open-loop load on /healthz: the floor of server, client and machine;
- **record pages**: open-loop, ``--rate`` requests/s spread over ``--connections``
  keep-alive connections, random records; latency is measured from each request's
  *scheduled* send time, so a stalled server is charged for the requests queued behind
  a slow one (no coordinated omission);
- **max throughput**: the same connections closed-loop, as fast as the server answers;
- **index**: search words and facet filters (HTML and JSON), open-loop at ``--index-rate``;
- the server's resident memory (all its processes) after warm-up and after the run, and
  the CPU time its processes used per request in each phase (from /proc).

With ``--mix`` (issue 25) each size instead runs two mixes of record pages, each on a
server with the response cache (``--caches``, 64 MiB) and on one without it (KG_CACHE_MB=0):
(a) records drawn uniformly from all records, (b) a Zipf mix (``--zipf`` 1.1 over all
records, popularity in a random order) where ``--conditional`` (20 %) of the requests
revalidate with the ETag this client population last got for the page. Every request
accepts gzip, as browsers do. Each mix: ``--warmup`` seconds unmeasured, then
``--seconds`` measured; it reports p50, p99, the rate achieved, server CPU per request,
the share answered from the cache or with 304, and the server's memory after the mix:

    python bench/serve.py 10000 100000 --mix --seconds 60 --warmup 10 \
        --stores '/work/benchdata/store-{n}/kg' --corpora '/work/benchdata/corpus-{n}'

The load generator is Python threads with http.client in this process: on a small
machine it competes with the server for the CPU, which the healthz row shows.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
SEARCHES = ["memory", "nt 2.5b", "synthetic accuracy", "promoter", "latency evo", "zero"]
KGV = "https://w3id.org/claimgraph/vocab#"
FACETS = [
    {"metric": "accuracy"},
    {"model": "Evo 7B"},
    {"review_status": KGV + "source-checked"},
    {"evidence_kind": KGV + "self-reported"},
    {"metric": "latency", "model": "Borzoi"},
    {
        "method": KGV + "pdf-text-parse",
        "source": "https://claimgraph.example/source/synthetic-source-1",
    },
]


@dataclass
class Run:
    """What one load phase measured."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    seconds: float = 0.0
    #: the server's CPU seconds over the phase, per answered request, in ms
    cpu_ms: float = float("nan")
    #: answers from the server's response cache (X-Cache: hit) and 304s
    hits: int = 0
    not_modified: int = 0
    #: the server's resident memory after the phase, and what its caches held, MB
    rss_mb: float = float("nan")
    cache_mb: float = float("nan")

    @property
    def hit_rate(self) -> float:
        answered = len(self.latencies)
        return (self.hits + self.not_modified) / answered if answered else float("nan")

    def pct(self, q: float) -> float:
        data = sorted(self.latencies)
        if not data:
            return float("nan")
        return data[min(len(data) - 1, int(q * len(data)))] * 1000

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0


#: One request of a load: a path, or (path, conditional): a conditional request sends the
#: ETag this client last got for the path (If-None-Match), as a browser revalidating does.
Ask = str | tuple[str, bool]


def load(
    host: str, port: int, paths: list[Ask], *, rate: float | None, seconds: float, connections: int
) -> Run:
    """Open loop at ``rate`` requests/s (None: closed loop, as fast as answered) over
    ``connections`` keep-alive connections, for ``seconds``."""
    run = Run()
    lock = threading.Lock()
    counter = itertools.count()
    total = int(rate * seconds) if rate else None
    start = time.perf_counter() + 0.2
    end = start + seconds
    etags: dict[str, str] = {}  # shared by the connections: one client population

    def worker() -> None:
        conn = http.client.HTTPConnection(host, port, timeout=60)
        mine: list[float] = []
        statuses: dict[int, int] = {}
        errors = hits = 0
        while True:
            i = next(counter)
            if total is not None:
                if i >= total:
                    break
                scheduled = start + i / rate
                delay = scheduled - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
            else:
                scheduled = time.perf_counter()
                if scheduled >= end:
                    break
            ask = paths[i % len(paths)]
            path, conditional = (ask, False) if isinstance(ask, str) else ask
            headers = {"Accept-Encoding": "gzip"}
            if conditional and path in etags:
                headers["If-None-Match"] = etags[path]
            try:
                conn.request("GET", path, headers=headers)
                response = conn.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException):
                errors += 1
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=60)
                continue
            mine.append(time.perf_counter() - scheduled)
            statuses[status] = statuses.get(status, 0) + 1
            hits += response.getheader("X-Cache") == "hit"
            tag = response.getheader("ETag")
            if tag:
                etags[path] = tag
        conn.close()
        with lock:
            run.latencies += mine
            run.errors += errors
            run.hits += hits
            for status, n in statuses.items():
                run.statuses[status] = run.statuses.get(status, 0) + n

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    run.seconds = time.perf_counter() - start
    run.not_modified = run.statuses.get(304, 0)
    return run


def tree(pid: int) -> list[int]:
    """A process and all its descendants."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += children.get(current, [])
    return found


def rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants, in MB."""
    total = 0
    for current in tree(pid):
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time the processes have used: what a request costs the server,
    which the machine's other load does not change much (latency it does)."""
    ticks = 0
    for current in pids:
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return ticks / os.sysconf("SC_CLK_TCK")


class Server:
    """A server process printing "serving http://HOST:PORT/" (kg serve) or polled on a
    known port (oxigraph)."""

    def __init__(
        self, command: list[str], url: str | None = None, env: dict[str, str] | None = None
    ):
        self.proc = subprocess.Popen(
            command, env=env or ENV, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
        )
        self.url = url
        self.index_seconds = float("nan")
        started = time.perf_counter()
        deadline = time.monotonic() + 3600
        while self.url is None:
            line = self.proc.stderr.readline()
            if not line and self.proc.poll() is not None:
                raise SystemExit(f"{command[0]} exited with {self.proc.returncode}")
            built = re.search(r"index of .* built in ([0-9.]+) s", line)
            if built:
                self.index_seconds = float(built.group(1))
            match = re.search(r"serving (http://\S+?)/ ", line)
            if match:
                self.url = match.group(1)
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start")
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()  # keep it drained
        parts = urllib.parse.urlsplit(self.url)
        self.host, self.port = parts.hostname, parts.port
        while True:
            try:
                self.get("/healthz" if url is None else "/")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.startup_seconds = time.perf_counter() - started

    def get(
        self,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 3600,
    ) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request(
                "POST" if body is not None else "GET", path, body=body, headers=headers or {}
            )
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)


def store_arguments(doc: str, requests: int, rounds: int) -> tuple[argparse.Namespace, Path]:
    """The arguments of a bench asking one store ``--requests`` times a row in ``--rounds``
    rounds (its module's ``doc`` describes it), and the store's live version."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="a store directory made by kg load (only read)")
    parser.add_argument("--requests", type=int, default=requests)
    parser.add_argument("--rounds", type=int, default=rounds)
    args = parser.parse_args()
    return args, live_or_exit(args.store)


def live_or_exit(store: Path) -> Path:
    """The live version of a store directory made by kg load or kg import (only read);
    the run stops where there is none."""
    from kg.store.versions import live_version  # this module itself runs without kg

    live = live_version(store)
    if live is None:
        raise SystemExit(f"no store at {store}")
    return live


def prepare(n: int, work: Path, corpora: str | None, stores: str | None) -> tuple[Path, Path]:
    """The corpus and store for size n: given, or generated and loaded here."""
    corpus = Path(corpora.format(n=n)) if corpora else work / f"corpus-{n}"
    store = Path(stores.format(n=n)) if stores else work / f"store-{n}"
    if not corpus.is_dir():
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "gen.py"),
                str(n),
                "--seed",
                "1",
                "-o",
                str(corpus),
            ],
            check=True,
            env=ENV,
        )
    if not (store / "live").exists():
        subprocess.run(
            [sys.executable, "-m", "kg.cli", "--store", str(store), "load", str(corpus)],
            check=True,
            env=ENV,
        )
    return corpus, store


def one_size(n: int, args: argparse.Namespace, work: Path) -> dict:
    corpus, store = prepare(n, work, args.corpora, args.stores)
    live = (store / "live").resolve()
    before = sorted((p.name, p.stat().st_mtime_ns) for p in live.iterdir())
    ids = sorted(p.stem for p in (corpus / "records").glob("*.yaml"))
    rng = random.Random(1)
    record_paths = [f"/record/{rng.choice(ids)}" for _ in range(20_000)]
    index_paths = []
    for i in range(200):
        query = {"q": SEARCHES[i % len(SEARCHES)]} if i % 3 != 1 else {}
        if i % 2:
            query.update(FACETS[i % len(FACETS)])
        index_paths.append(
            ("/records.json?" if i % 4 == 3 else "/?") + urllib.parse.urlencode(query)
        )
    result: dict = {"n": n, "repeats": []}
    if args.mix:
        result["mixes"] = mixes(n, args, store, corpus, ids)
        return result
    kg = Server(
        [
            sys.executable,
            "-m",
            "kg.cli",
            "--store",
            str(store),
            "--data",
            str(corpus),
            "serve",
            "--port",
            "0",
            "--workers",
            str(args.workers),
            "--threads",
            str(args.threads),
        ],
        None,
    )
    try:
        result["startup_s"] = kg.startup_seconds
        result["index_build_s"] = kg.index_seconds
        for _ in range(args.workers * 4):
            kg.get("/")
        for path in record_paths[:200]:
            kg.get(path)
        result["rss_warm_mb"] = rss_mb(kg.proc.pid)
        pids = tree(kg.proc.pid)
        phases = (
            ("healthz", ["/healthz"], args.rate),
            ("record", record_paths, args.rate),
            ("max", record_paths[::-1], None),
            ("index", index_paths, args.index_rate),
        )
        for _ in range(args.repeat):
            rep = {}
            for phase, paths, rate in phases:
                cpu_before = cpu_seconds(pids)
                rep[phase] = load(
                    kg.host,
                    kg.port,
                    paths,
                    rate=rate,
                    seconds=args.seconds,
                    connections=args.connections,
                )
                rep[phase].cpu_ms = (
                    (cpu_seconds(pids) - cpu_before) * 1000 / max(1, len(rep[phase].latencies))
                )
            result["repeats"].append(rep)
        result["rss_after_mb"] = rss_mb(kg.proc.pid)
    finally:
        kg.stop()
    after = sorted((p.name, p.stat().st_mtime_ns) for p in live.iterdir())
    result["store_untouched"] = before == after
    return result


def mixes(
    n: int, args: argparse.Namespace, store: Path, corpus: Path, ids: list[str]
) -> list[tuple[str, str, Run]]:
    """The two mixes of record pages, with the response cache and without it: (a) every
    record equally likely, (b) Zipf (``--zipf``) over all records, ``--conditional`` of
    the requests revalidating. Each phase: ``--warmup`` seconds unmeasured, then
    ``--seconds`` measured, open loop at ``--rate``."""
    rng = random.Random(1)
    total = int(args.rate * (args.seconds + args.warmup)) + 1
    uniform = [f"/record/{rng.choice(ids)}" for _ in range(total)]
    ranked = ids[:]
    rng.shuffle(ranked)  # which records are popular: any, not the first by name
    weights = [1 / (k**args.zipf) for k in range(1, len(ranked) + 1)]
    zipf = [
        (f"/record/{path}", rng.random() < args.conditional)
        for path in rng.choices(ranked, weights=weights, k=total)
    ]
    out = []
    for cache_mb in args.caches:
        env = {**ENV, "KG_CACHE_MB": str(cache_mb)}
        kg = Server(
            [
                sys.executable,
                "-m",
                "kg.cli",
                "--store",
                str(store),
                "--data",
                str(corpus),
                "serve",
                "--port",
                "0",
                "--workers",
                str(args.workers),
                "--threads",
                str(args.threads),
            ],
            None,
            env=env,
        )
        try:
            pids = tree(kg.proc.pid)
            for name, asks in (("uniform", uniform), ("zipf", zipf)):
                if name not in args.mixes:
                    continue
                warm = int(args.rate * args.warmup)
                load(
                    kg.host,
                    kg.port,
                    asks[:warm],
                    rate=args.rate,
                    seconds=args.warmup,
                    connections=args.connections,
                )
                cpu_before = cpu_seconds(pids)
                run = load(
                    kg.host,
                    kg.port,
                    asks[warm:],
                    rate=args.rate,
                    seconds=args.seconds,
                    connections=args.connections,
                )
                run.cpu_ms = (cpu_seconds(pids) - cpu_before) * 1000 / max(1, len(run.latencies))
                run.rss_mb = rss_mb(kg.proc.pid)
                run.cache_mb = cache_held(kg)
                label = f"{cache_mb} MiB" if cache_mb else "off"
                out.append((name, label, run))
                print(
                    f"  {n} {name} cache {label}: p50 {run.pct(0.5):.1f} ms, "
                    f"p99 {run.pct(0.99):.1f} ms, {run.rate:.0f}/s, hits {run.hit_rate:.2f}",
                    file=sys.stderr,
                    flush=True,
                )
        finally:
            kg.stop()
    return out


def cache_held(kg: Server, asks: int = 40) -> float:
    """The MB the server's response caches hold, summed over its processes (each answers
    /healthz as JSON with its own figures; new connections reach them in turn)."""
    held: dict[int, int] = {}
    for _ in range(asks):
        status, body = kg.get("/healthz", headers={"Accept": "application/json"})
        if status == 200:
            figures = json.loads(body)
            held[figures["process"]] = figures["response_cache"]["bytes"]
    return sum(held.values()) / 1e6


def mix_report(results: list[dict], args: argparse.Namespace) -> str:
    lines = [
        "| records | mix | response cache | workers | rate asked | achieved req/s "
        "| p50 ms | p99 ms | max ms | 304 / non-2xx / errors | server CPU ms / request "
        "| cache hits + 304 | cache holds MB | server RSS MB |",
        "|---" * 14 + "|",
    ]
    for res in results:
        for name, label, run in res.get("mixes", []):
            bad = sum(k for s, k in run.statuses.items() if s not in (200, 304))
            mix = (
                "uniform"
                if name == "uniform"
                else (f"Zipf {args.zipf:g}, {args.conditional:.0%} conditional")
            )
            lines.append(
                f"| {res['n']:,} | {mix} | {label} | {args.workers} | {args.rate:g} | "
                f"{run.rate:,.0f} | "
                f"{run.pct(0.5):.1f} | {run.pct(0.99):.1f} | {run.pct(1.0):.0f} | "
                f"{run.not_modified} / {bad} / {run.errors} | {run.cpu_ms:.2f} | "
                f"{run.hit_rate:.0%} | {run.cache_mb:,.1f} | {run.rss_mb:,.0f} |"
            )
    return "\n".join(lines)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def oxigraph_serve(location: Path, timeout_s: float | None = None) -> Server:
    """`oxigraph serve-read-only` over the store directory ``location`` (a copy of a live
    version: oxigraph holds its lock) on a free port, the union of the graphs as the
    default graph, as kg serve reads a store."""
    port = _free_port()
    command = [
        "oxigraph",
        "serve-read-only",
        "--location",
        str(location),
        "--bind",
        f"127.0.0.1:{port}",
        "--union-default-graph",
    ]
    if timeout_s is not None:
        command += ["--timeout-s", str(int(timeout_s))]
    return Server(command, f"http://127.0.0.1:{port}")


def report(results: list[dict], args: argparse.Namespace) -> str:
    lines = [
        "| records | phase | rate asked | achieved req/s | p50 ms | p99 ms | max ms | "
        "non-200 / errors | p50 / healthz p50 | server CPU ms / request |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for res in results:
        for i, rep in enumerate(res["repeats"]):
            floor = rep["healthz"].pct(0.5)
            for phase, asked in (
                ("healthz", args.rate),
                ("record", args.rate),
                ("max", "closed loop"),
                ("index", args.index_rate),
            ):
                run: Run = rep[phase]
                bad = sum(n for s, n in run.statuses.items() if s != 200)
                lines.append(
                    f"| {res['n']:,} | {phase} (run {i + 1}) | {asked} | {run.rate:,.0f} | "
                    f"{run.pct(0.5):.1f} | {run.pct(0.99):.1f} | {run.pct(1.0):.0f} | "
                    f"{bad} / {run.errors} | {run.pct(0.5) / floor:.1f} | {run.cpu_ms:.2f} |"
                )
    lines += [
        "",
        "| records | start-up s | of which index build s | server RSS after warm-up MB"
        " | after the run MB | store untouched |",
        "|---|---|---|---|---|---|",
    ]
    for res in results:
        lines.append(
            f"| {res['n']:,} | {res['startup_s']:.1f} | {res['index_build_s']:.1f} | "
            f"{res['rss_warm_mb']:,.0f} | {res['rss_after_mb']:,.0f} | "
            f"{res.get('store_untouched', '—')} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="+", type=int)
    parser.add_argument("--corpora", help="corpus directory per size, e.g. /data/corpus-{n}")
    parser.add_argument("--stores", help="store directory per size, e.g. /data/store-{n}")
    parser.add_argument("--rate", type=float, default=300.0)
    parser.add_argument("--index-rate", type=float, default=20.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--mix",
        action="store_true",
        help="the record-page mixes with and without the response cache "
        "(issue 25) instead of the phases above",
    )
    parser.add_argument(
        "--warmup", type=float, default=10.0, help="unmeasured seconds before each mix"
    )
    parser.add_argument("--zipf", type=float, default=1.1, help="the Zipf mix's exponent")
    parser.add_argument(
        "--conditional",
        type=float,
        default=0.2,
        help="the share of the Zipf mix's requests that revalidate",
    )
    parser.add_argument(
        "--caches",
        type=int,
        nargs="+",
        default=[64, 0],
        help="the response cache of each server process, MiB, one server each (0: none)",
    )
    parser.add_argument(
        "--mixes", nargs="+", choices=("uniform", "zipf"), default=["uniform", "zipf"]
    )
    parser.add_argument("--work", type=Path, help="where generated data goes (default: a temp dir)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="kg-serve-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    results = []
    show = mix_report if args.mix else report
    for n in args.sizes:
        results.append(one_size(n, args, work))
        print(show(results[-1:], args), flush=True)
    print("\n" + show(results, args))


if __name__ == "__main__":
    main()
