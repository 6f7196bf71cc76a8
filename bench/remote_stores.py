"""Remote stores benchmark: `kg load` and the canned queries on `oxigraph serve` and on
Virtuoso Open Source 7.2, side by side in one command.

    python bench/remote_stores.py 1000 10000 [--repeat 5] [--limit 60] [--work DIR]

For each size N (a corpus from bench/gen.py N --seed 1): a fresh `oxigraph serve` and a
fresh Virtuoso (its own database, Debian's default buffers) on 127.0.0.1, and in this one
command:

- **kg load**: ``python -m kg.cli load CORPUS`` into each server (KG_STORE=its URL; for
  Virtuoso the endpoint settings of docs/deployment.md), wall clock of the whole command;
  then `kg stats` on both, which must print the same;
- **kg load, one record changed**: the same after one record's YAML value changed (as in
  bench/ingest.py: only that file is validated and written), and `kg stats` again;
- **each canned query** (queries/*.rq) in this process by ``open_store(settings,
  read_only=True).query`` as `kg query` runs it (on Virtuoso with the reader's version
  check around it), all rows materialized: a warm-up, then ``--repeat`` runs alternating
  between the stores, the median. A parameter gets the corpus's most frequent value (a
  small SELECT); a query with none in a synthetic corpus is skipped, and the table says so.
  ``--limit`` seconds per query, on the servers (``--timeout-s``, ``MaxQueryExecutionTime``)
  and the client; one over it shows as "over N s" and is not run again on that store.

Where `kg load` fails on `oxigraph serve` (the error is printed under the table), the
queries go to an `oxigraph serve` on a copy of what `kg load` writes into an embedded
store: the same data (`kg stats` checks it). The machine may be shared with other work, so
the ratios of one command are what to read, not the seconds. Output: Markdown tables.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg.config import load_settings  # noqa: E402
from kg.errors import KgError  # noqa: E402
from kg.store import GraphStore, Term, live_version, open_store  # noqa: E402
from kg.store.queries import canned_queries  # noqa: E402

VIRTUOSO, ISQL = "/usr/bin/virtuoso-t", "/usr/bin/isql-vt"
#: The remote store's settings for Virtuoso's endpoints (docs/deployment.md).
VIRTUOSO_ENV = {
    "KG_STORE_QUERY": "sparql",
    "KG_STORE_UPDATE": "sparql",
    "KG_STORE_GRAPHS": "sparql-graph-crud",
    "KG_STORE_UNION": "none",
}
START_S = 120  # a liveness bound for a server to start on a loaded machine, not a speed
# the Virtuoso configuration of this bench and of the tests (tests/helpers/virtuoso.py)
INI = """\
[Database]
DatabaseFile = {dir}/virtuoso.db
ErrorLogFile = {dir}/virtuoso.log
LockFile = {dir}/virtuoso.lck
TransactionFile = {dir}/virtuoso.trx
xa_persistent_file = {dir}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = {dir}/virtuoso-temp.db
TransactionFile = {dir}/virtuoso-temp.trx
Striping = 0
[Parameters]
ServerPort = 127.0.0.1:{sql_port}
DisableUnixSocket = 1
ServerThreads = 40
CheckpointInterval = 60
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
DirsAllowed = ., {dir}
[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerRoot = {dir}
; more threads than kept-alive connections: an idle requests.Session holds one each
ServerThreads = 40
MaxKeepAlives = 8
KeepAliveTimeout = 2
[SPARQL]
ResultSetMaxRows = 10000000
MaxQueryExecutionTime = {limit}
MaxQueryCostEstimationTime = 0
"""
#: The floor: an empty query, i.e. what one query costs in requests and parsing (for
#: Virtuoso read-only, three requests: the reader checks the version before and after).
FLOOR = "(floor: `SELECT * WHERE { }`)"
OVER = "over the limit: "
KG = (
    "PREFIX kg: <https://w3id.org/claimgraph/ns#> PREFIX prov: <http://www.w3.org/ns/prov#> "
    "PREFIX spdx: <http://spdx.org/rdf/terms#> "
)
#: A value for each (query, parameter) from the corpus itself: the most frequent one (so
#: that the query has work to do), from the first store that has one, for both stores.
PICK = {
    ("benchmark-ranking", "benchmark"): "SELECT ?v WHERE { ?r kg:benchmark ?v }",
    ("model-results", "model"): "SELECT ?v WHERE { ?r kg:evaluatedModel ?v }",
    (
        "results-by-review-status",
        "status",
    ): "SELECT ?v WHERE { ?r a kg:Claim ; kg:reviewStatus ?v }",
    ("results-for-model", "model"): "SELECT ?v WHERE { ?r kg:testedConfiguration/kg:model ?v }",
    ("reviews-by-method", "method"): "SELECT ?v WHERE { ?r a kg:Review ; kg:method ?v }",
    # a source's file, as the query asks (reviews and runs carry checksums too)
    (
        "source-by-sha256",
        "sha256",
    ): "SELECT ?v WHERE { ?a spdx:checksum/spdx:checksumValue ?v ; prov:specializationOf ?s }",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One server process on loopback, stopped by its process id."""

    name = ""

    def __init__(self, command: list[str], cwd: Path, ready: str, env: dict[str, str]):
        self.env = env
        # the server's own output would interleave with the tables
        self.proc = subprocess.Popen(
            command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + START_S
        while self.proc.poll() is None and time.monotonic() < deadline:
            try:
                requests.get(ready, params={"query": "ASK {}"}, timeout=10)
                return
            except requests.ConnectionError:
                time.sleep(0.1)
        self.stop()  # not in the caller's list of servers yet
        raise SystemExit(f"{self.name} did not start: {' '.join(command)}")

    def stop(self) -> None:
        stop_process(self.proc)


def stop_process(proc: subprocess.Popen) -> None:
    """Stop a server: SIGTERM, a minute to exit, then SIGKILL (the tests' Virtuoso too)."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Oxigraph(Server):
    name = "oxigraph serve"

    def __init__(self, where: Path, limit: int):
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        super().__init__(
            [
                "oxigraph",
                "serve",
                "--location",
                str(where),
                "--bind",
                f"127.0.0.1:{port}",
                "--timeout-s",
                str(limit),
            ],
            where.parent,
            url + "/query",
            {"KG_STORE": url},
        )


class Virtuoso(Server):
    name = "Virtuoso"

    def __init__(self, where: Path, limit: int):
        where.mkdir(parents=True)
        self.sql_port, http_port = free_port(), free_port()
        ini = where / "virtuoso.ini"
        ini.write_text(
            INI.format(dir=where, sql_port=self.sql_port, http_port=http_port, limit=limit)
        )
        url = f"http://127.0.0.1:{http_port}"
        # -f: in the foreground, so that the process id is the server's own
        super().__init__(
            [VIRTUOSO, "-f", "-c", str(ini)],
            where,
            url + "/sparql",
            {"KG_STORE": url, **VIRTUOSO_ENV},
        )
        # anonymous SPARQL updates (what kg load sends) need this grant
        done = subprocess.run(
            [
                ISQL,
                f"127.0.0.1:{self.sql_port}",
                "dba",
                "dba",
                'exec=GRANT SPARQL_UPDATE TO "SPARQL";',
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if done.returncode != 0 or "Error" in done.stdout:
            self.stop()
            raise SystemExit(f"isql-vt GRANT failed: {done.stdout}{done.stderr}")


def kg(settings: dict[str, str], *args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    """(wall seconds, the process) of ``python -m kg.cli ARGS``, only these KG_ variables set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KG_")}
    env |= {"PYTHONPATH": str(ROOT), **settings}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "kg.cli", *args], env=env, cwd=ROOT, capture_output=True, text=True
    )
    return time.perf_counter() - started, done


def store_of(server: Server, limit: int) -> GraphStore:
    overrides = {key[3:].lower(): value for key, value in server.env.items()}
    # the client waits a little longer than the server's own limit: the server must stop
    # the work (a query the client gave up on would use a core in the next measurements)
    return open_store(
        load_settings({**overrides, "store_timeout": limit + 5}, environ={}), read_only=True
    )


def timed_query(
    store: GraphStore, text: str, bindings: dict[str, Term], limit: int
) -> tuple[float | None, int | str]:
    """(seconds, rows), or (None, the error) when it failed or ran over the limit."""
    started = time.perf_counter()
    try:
        result = store.query(text, bindings, timeout=limit + 5)  # type: ignore[call-arg]
        rows = 1 if isinstance(result, bool) else len(list(result))
    except KgError as exc:
        # the servers' limits answer as an error (Virtuoso: a partial answer; oxigraph: a
        # body cut short) near the limit; an error before it is a real failure
        over = time.perf_counter() - started >= 0.9 * limit
        return None, (OVER if over else "failed: ") + str(exc)
    return time.perf_counter() - started, rows


def picked(stores: list[GraphStore], query: str, param: str) -> Term | None:
    pick = PICK.get((query, param))
    for store in stores if pick else []:
        rows = list(store.query(f"{KG}{pick} GROUP BY ?v ORDER BY DESC(COUNT(*)) ?v LIMIT 1"))
        if rows:
            return rows[0]["v"]
    return None


def measure_queries(stores: dict[str, GraphStore], repeat: int, limit: int) -> list[dict]:
    """One row per canned query: name, note, seconds and rows per store, errors."""
    out = []
    canned = [(name, q.text, q.params) for name, q in canned_queries().items()]
    for name, text, params in [(FLOOR, "SELECT * WHERE { }", ()), *canned]:
        found = {p.name: picked(list(stores.values()), name, p.name) for p in params}
        bindings = {k: v for k, v in found.items() if v is not None}
        if len(bindings) < len(params):
            out.append(
                {
                    "query": name,
                    "skip": "no value in the synthetic corpus for "
                    + ", ".join(f"?{p.name}" for p in params),
                }
            )
            continue
        print(f"  {name}", file=sys.stderr, flush=True)  # progress: the part that takes long
        row: dict = {
            "query": name,
            "values": {k: v.value for k, v in bindings.items()},
            "s": {},
            "rows": {},
            "errors": {},
        }
        runs: dict[str, list[float]] = {s: [] for s in stores}
        live = set(stores)
        for i in range(repeat + 1):  # run 0 is the warm-up
            order = list(stores) if i % 2 == 0 else list(stores)[::-1]
            for store_name in (s for s in order if s in live):
                seconds, rows = timed_query(stores[store_name], text, bindings, limit)
                if seconds is None:  # not run again: a second timeout would say nothing new
                    live.discard(store_name)
                    row["errors"][store_name] = rows
                    row["s"][store_name] = None if str(rows).startswith(OVER) else rows
                elif i:
                    runs[store_name].append(seconds)
                else:
                    row["rows"][store_name] = rows
        row["s"] |= {s: statistics.median(runs[s]) for s in live}
        out.append(row)
    return out


def same_stats(servers: list[Server]) -> str:
    """Whether `kg stats` prints the same counts on every server, and them."""
    stats = {}
    for server in servers:
        _, shown = kg(server.env, "stats", "--format", "tsv")
        lines = shown.stdout.replace("\t", " ").strip().splitlines()  # a header, one row
        stats[server.name] = (
            f"{lines[0]} = {lines[-1]}" if shown.returncode == 0 and lines else shown.stderr.strip()
        )
    values = list(stats.values())
    return (
        f"same on both: `{values[0]}`"
        if all(v == values[0] for v in values)
        else "DIFFER: " + "; ".join(f"{k}: `{v}`" for k, v in stats.items())
    )


def loads(servers: list[Server], corpus: Path) -> tuple[dict[str, float | str], str]:
    """Each server's `kg load` (seconds, or the error) and the check of `kg stats`."""
    seconds: dict[str, float | str] = {}
    for server in servers:
        took, done = kg(server.env, "load", str(corpus))
        seconds[server.name] = (
            took
            if done.returncode == 0
            else (f"exit {done.returncode}: {done.stderr.strip()[-2000:]}")
        )
    return seconds, same_stats(servers)


def served_embedded(corpus: Path, here: Path, limit: int) -> Oxigraph:
    """`oxigraph serve` on a copy of what `kg load` writes into a fresh embedded store."""
    _, done = kg({"KG_STORE": str(here / "embedded")}, "load", str(corpus))
    if done.returncode != 0:
        raise SystemExit(f"kg load into the embedded store failed: {done.stderr}")
    copy = here / "oxigraph-from-embedded"
    shutil.copytree(live_version(here / "embedded"), copy)  # type: ignore[arg-type]
    return Oxigraph(copy, limit)


def bench(n: int, work: Path, repeat: int, limit: int) -> dict:
    corpus = work / f"corpus-{n}"
    if not corpus.exists():
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
            stderr=subprocess.DEVNULL,
        )
    here = work / f"stores-{n}"
    shutil.rmtree(here, ignore_errors=True)
    here.mkdir()
    servers: list[Server] = []
    try:
        servers.append(Oxigraph(here / "oxigraph", limit))
        servers.append(Virtuoso(here / "virtuoso", limit))
        first, first_check = loads(servers, corpus)
        # one record changed harmlessly, as bench/ingest.py does; put back afterwards
        record = corpus / "records" / "synthetic-record-000001.yaml"
        original = record.read_text()
        record.write_text(original.replace("hardware: Synthetic GPU", "hardware: Synthetic GPU 2"))
        try:
            again, again_check = loads(servers, corpus)
            checks = [("after the first load", first_check), ("after the reload", again_check)]
            if isinstance(again[Oxigraph.name], str):
                # kg load cannot fill oxigraph serve (the error is reported): the queries go
                # to one serving what it writes into an embedded store, the record changed
                servers[0].stop()
                servers[0] = served_embedded(corpus, here, limit)
                checks.append(
                    (
                        "with `oxigraph serve` on a copy of an embedded store's kg "
                        "load instead, for the queries",
                        same_stats(servers),
                    )
                )
        finally:
            record.write_text(original)
        stores = {s.name: store_of(s, limit) for s in servers}
        try:
            queries = measure_queries(stores, repeat, limit)
        finally:
            for store in stores.values():
                store.close()
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(here, ignore_errors=True)
    return {
        "n": n,
        "files": sum(1 for _ in corpus.rglob("*.yaml")),
        "first": first,
        "again": again,
        "checks": checks,
        "queries": queries,
    }


def cell(seconds: float | str | None, limit: int) -> str:
    if seconds is None or isinstance(seconds, str):
        return f"over {limit} s" if seconds is None else "failed"
    return f"{seconds:.3f}" if seconds < 10 else f"{seconds:.1f}"


def ratio(ox_s: float | str | None, vt_s: float | str | None, limit: int) -> str:
    """Virtuoso/oxigraph; a bound where one of them ran over the limit."""
    if isinstance(ox_s, str) or isinstance(vt_s, str) or ox_s == 0 or (ox_s, vt_s) == (None, None):
        return "—"
    if vt_s is None:
        return f"> {limit / ox_s:.1f}"
    return f"< {vt_s / limit:.2f}" if ox_s is None else f"{vt_s / ox_s:.2f}"


def report(r: dict, limit: int) -> None:
    names = (Oxigraph.name, Virtuoso.name)
    print(f"\n{r['n']:,} records ({r['files']:,} files)\n")
    print(
        "| query | rows | oxigraph serve s | Virtuoso s | ratio Virtuoso/oxigraph |\n"
        "|---|---|---|---|---|"
    )
    notes = [f"- `kg stats` {label}: {check}" for label, check in r["checks"]]
    for label, key in (
        ("`kg load` (first load)", "first"),
        ("`kg load` again, one record changed", "again"),
    ):
        notes += [f"- {label} on {s}: failed: {v}" for s, v in r[key].items() if isinstance(v, str)]
        ox_s, vt_s = (r[key][s] for s in names)
        print(
            f"| {label} | — | {cell(ox_s, limit)} | {cell(vt_s, limit)} "
            f"| {ratio(ox_s, vt_s, limit)} |"
        )
    for q in r["queries"]:
        if "skip" in q:
            print(f"| {q['query']} | skipped: {q['skip']} | — | — | — |")
            continue
        # rows of the stores that answered; both must agree
        got = [q["rows"][s] for s in names if s in q["rows"]]
        rows = (
            f"{got[0]:,}"
            if len(set(got)) == 1
            else "—"
            if not got
            else " / ".join(f"{n:,}" for n in got) + " (DIFFER)"
        )
        # a value as its local name or its first characters: the table stays readable
        values = "".join(f" ({k} = {v.rsplit('#', 1)[-1][:16]})" for k, v in q["values"].items())
        notes += [f"- {q['query']} on {s}: {e}" for s, e in q["errors"].items()]
        ox_s, vt_s = (q["s"][s] for s in names)
        print(
            f"| {q['query']}{values} | {rows} | {cell(ox_s, limit)} | {cell(vt_s, limit)} "
            f"| {ratio(ox_s, vt_s, limit)} |"
        )
    print("\n" + "\n".join(notes), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per query and store")
    parser.add_argument("--limit", type=int, default=60, help="seconds a query may run")
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "kg-bench-remote"
    )
    args = parser.parse_args()
    if not Path(VIRTUOSO).exists() or shutil.which("oxigraph") is None:
        parser.error("needs /usr/bin/virtuoso-t (virtuoso-opensource-7-bin) and `oxigraph`")
    args.work.mkdir(parents=True, exist_ok=True)
    for n in args.sizes:
        started = time.perf_counter()
        report(bench(n, args.work, args.repeat, args.limit), args.limit)
        print(f"\n(size {n:,}: {time.perf_counter() - started:.0f} s in all)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
