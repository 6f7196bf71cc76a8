"""Load with a writer: concurrent readers of `kg serve` while `kg load` changes the data.

    python bench/reliability.py                    # 20,000 requests, 32 clients, 1,000 records
    python bench/reliability.py --requests 500 --clients 8 --loads 2 --records 100

A synthetic corpus (bench/gen.py, or --corpus) is loaded and served by a real `kg serve`
on 127.0.0.1. Then, at the same time:

- a writer runs `kg load` again and again; each load is a *generation* g: it rewrites
  the tracked records (title "... at generation g", printed and numeric value 1000+g.25,
  two fields of one graph), adds --added new records and deletes those added --window
  loads before (so that listings keep their size);
- --clients threads send --requests requests between them: record pages of tracked
  records (HTML), the index searched for them (HTML), the same listing as JSON, and a
  SPARQL query over them (bench/reliability.rq).

Every response is checked after the fact against the generations, in events, never in
seconds: it must be 200, show one generation only (title and value of a record; every
tracked row and exactly the added records of the last --window loads in a listing: never
a mix), a generation whose load had started before the answer came, and never one older
than a generation the same reader (client thread) has already seen. Same ETag, same
generation. Once the writer stops, every kind of request must reach the newest
generation. How long after a load went live readers still saw the one before is
measured and reported (the server promises to notice a new version within a second;
on a loaded machine that is a measurement, not a pass/fail).
The server's resident memory (with its query workers) is sampled throughout.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
import yaml

ROOT = Path(__file__).resolve().parent.parent
MARKER = "reliabilitymarker"
#: Once the writer stops, how long readers may take to reach the newest generation before
#: that counts as a failure: a bound on liveness, far above the one-second refresh.
CONVERGE_S = 120.0
KINDS = {"record": 0.5, "index": 0.2, "listing": 0.1, "sparql": 0.2}
TRACKED_TITLE = re.compile(r"Reliability tracked record (\d+) at generation (\d+)")
ADDED_TITLE = re.compile(r"Reliability added record (\d+)-(\d+)")


def value(generation: int) -> str:
    return f"{1000 + generation}.25"


def generation_of_value(printed: str) -> int:
    return int(printed.split(".")[0]) - 1000


@dataclass
class Corpus:
    """The data directory and what the writer changes in it."""

    data: Path
    tracked: list[str]  # record ids
    template: dict[str, Any]
    added_per_load: int
    window: int
    originals: dict[str, dict[str, Any]] = field(default_factory=dict)

    def write_generation(self, generation: int) -> None:
        for k, ident in enumerate(self.tracked):
            doc = json.loads(json.dumps(self.originals[ident]))
            doc["title"] = f"Reliability tracked record {k} at generation {generation} ({MARKER})"
            _set_value(doc, value(generation))
            _dump(self.data / "records" / f"{ident}.yaml", doc)
        for i in range(self.added_per_load if generation > 0 else 0):
            doc = json.loads(json.dumps(self.template))
            doc["id"] = _added_id(generation, i)
            doc["title"] = f"Reliability added record {generation}-{i} ({MARKER})"
            _set_value(doc, value(generation))
            _dump(self.data / "records" / f"{doc['id']}.yaml", doc)
            (self.data / "records" / f"{_added_id(generation - self.window, i)}.yaml").unlink(
                missing_ok=True
            )


def _added_id(generation: int, i: int) -> str:
    return f"reliability-added-{generation:05d}-{i}"


def _set_value(doc: dict[str, Any], printed: str) -> None:
    doc["printed_value"] = doc["numeric_value"] = printed
    for row in doc.get("evidence", []):
        if row["property"] == "reported-result":
            row["statement"] = printed


def _dump(path: Path, doc: dict[str, Any]) -> None:
    temporary = path.with_suffix(".tmp")
    temporary.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    temporary.replace(path)


def prepare(
    work: Path, records: int, corpus: Path | None, tracked: int, added: int, window: int
) -> Corpus:
    data = work / "data"
    if corpus is None:
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "gen.py"),
                str(records),
                "--seed",
                "1",
                "-o",
                str(data),
            ],
            check=True,
        )
    else:
        shutil.copytree(corpus, data)
    # Tracked records: none a run or review file refers to (a run quotes the record's value).
    referred = set()
    for path in (*data.glob("runs/*.yaml"), *data.glob("reviews/*.yaml")):
        referred.add(yaml.safe_load(path.read_text())["record"])
    candidates = sorted(p.stem for p in data.glob("records/*.yaml") if p.stem not in referred)
    chosen = candidates[:: max(1, len(candidates) // tracked)][:tracked]
    originals = {i: yaml.safe_load((data / "records" / f"{i}.yaml").read_text()) for i in chosen}
    template = originals[chosen[0]]
    result = Corpus(data, chosen, template, added, window, originals)
    result.write_generation(0)
    return result


def kg(store: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "kg.cli", "--store", str(store), *args],
        env=env,
        capture_output=True,
        text=True,
    )


class Server:
    """`kg serve --port 0` over the store, until stopped."""

    def __init__(self, store: Path, data: Path, threads: int):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "KG_STORE": str(store), "KG_DATA": str(data)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kg.cli", "serve", "--port", "0", "--threads", str(threads)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.url = ""
        while not self.url:
            line = self.proc.stderr.readline()
            if not line and self.proc.poll() is not None:
                raise SystemExit(f"kg serve exited with {self.proc.returncode}")
            match = re.search(r"serving (http://\S+?)/ ", line)
            if match:
                self.url = match.group(1)
        threading.Thread(target=self._drain, daemon=True).start()
        while requests.get(self.url + "/healthz", timeout=30).status_code != 200:
            time.sleep(0.05)

    def _drain(self) -> None:
        for _ in self.proc.stderr:  # keep its log from filling the pipe
            pass

    def rss_mb(self) -> tuple[float, float]:
        """Resident memory of the server alone, and with its children (the query workers)."""
        own = _rss(self.proc.pid)
        children = sum(_rss(pid) for pid in _children(self.proc.pid))
        return own, own + children

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def _rss(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


@dataclass
class Generation:
    number: int
    started: float
    published: float = float("inf")
    seconds: float = 0.0


@dataclass
class Response:
    kind: str
    sent: float
    answered: float
    status: int
    generations: set[int]
    etag: str | None = None
    error: str = ""
    client: int = 0


def parse(
    kind: str, body: str, tracked: int, added_per_load: int, window: int
) -> tuple[set[int], str]:
    """The generations a response shows, and what is wrong with it beyond a mix."""
    if kind == "record":
        title = re.search(r"<h1>(.*?)</h1>", body, re.S)
        printed = re.search(r"<dt>printed value</dt><dd>(.*?)</dd>", body)
        if not title or not printed or not TRACKED_TITLE.search(title.group(1)):
            return set(), "record page without its title or printed value"
        return {
            int(TRACKED_TITLE.search(title.group(1)).group(2)),
            generation_of_value(printed.group(1)),
        }, ""
    if kind == "index":
        rows = re.findall(
            r'<td[^>]*><a href="/record/[^"]+">([^<]*)</a>[^\n]*</td>\s*'
            r'<td class="num"[^>]*>([^ <]+)',
            body,
        )
    elif kind == "listing":
        rows = [(r["title"], r["printed_value"]) for r in json.loads(body)["rows"]]
    else:
        rows = [
            (b["title"]["value"], b["printed"]["value"])
            for b in json.loads(body)["results"]["bindings"]
        ]
    seen: set[int] = set()
    tracked_rows = 0
    added: Counter = Counter()
    for title, printed in rows:
        match = TRACKED_TITLE.search(title)
        if match:
            tracked_rows += 1
            seen |= {int(match.group(2)), generation_of_value(printed)}
        elif match := ADDED_TITLE.search(title):
            added[int(match.group(1))] += 1
    if tracked_rows != tracked:
        return seen, f"{tracked_rows} of {tracked} tracked records listed"
    # The added records must be exactly those live after one load: the last window's.
    newest = max(added, default=0)
    if added != Counter(
        {g: added_per_load for g in range(max(1, newest - window + 1), newest + 1)}
    ):
        return seen | set(added), f"added records of no single generation: {dict(added)}"
    seen.add(newest)
    return seen, ""


def client(
    server: str, corpus: Corpus, budget: Budget, seed: int, sparql: str, results: list[Response]
) -> None:
    rng = random.Random(seed)
    session = requests.Session()
    kinds, weights = list(KINDS), list(KINDS.values())
    while budget.take():
        kind = rng.choices(kinds, weights)[0]
        ask(session, server, corpus, kind, rng.choice(corpus.tracked), sparql, seed, results)


def request_args(server: str, kind: str, record: str, sparql: str) -> dict[str, Any]:
    if kind == "record":
        return {"url": f"{server}/record/{record}"}
    if kind == "index":
        return {"url": f"{server}/", "params": {"q": MARKER, "limit": "1000"}}
    if kind == "listing":
        return {"url": f"{server}/records.json", "params": {"q": MARKER, "limit": "1000"}}
    return {
        "url": f"{server}/sparql",
        "params": {"query": sparql},
        "headers": {"Accept": "application/sparql-results+json"},
    }


def ask(
    session: requests.Session,
    server: str,
    corpus: Corpus,
    kind: str,
    record: str,
    sparql: str,
    seed: int,
    results: list[Response],
) -> Response:
    """One request, parsed; appended to ``results`` and returned."""
    args = request_args(server, kind, record, sparql)
    sent = time.monotonic()
    try:
        reply = session.get(timeout=60, **args)
        answered = time.monotonic()
        generations, error = set(), ""
        if reply.status_code == 200:
            generations, error = parse(
                kind, reply.text, len(corpus.tracked), corpus.added_per_load, corpus.window
            )
        response = Response(
            kind,
            sent,
            answered,
            reply.status_code,
            generations,
            reply.headers.get("ETag"),
            error,
            seed,
        )
    except (requests.RequestException, ValueError, KeyError) as exc:
        response = Response(
            kind, sent, time.monotonic(), 0, set(), None, f"{type(exc).__name__}: {exc}", seed
        )
    results.append(response)
    return response


def converge(
    server: str, corpus: Corpus, sparql: str, newest: int, results: list[Response]
) -> dict[str, int]:
    """Once the writer has stopped: ask each kind of request until it shows the newest
    generation; how many asks each took (0: never within CONVERGE_S)."""
    session = requests.Session()
    asks: dict[str, int] = {}
    deadline = time.monotonic() + CONVERGE_S
    for kind in KINDS:
        asks[kind] = 0
        for count in itertools.count(1):
            reply = ask(session, server, corpus, kind, corpus.tracked[0], sparql, -1, results)
            if reply.generations == {newest}:
                asks[kind] = count
                break
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
    return asks


class Budget:
    """Requests left to send; with a minimum number of loads, sending goes on until the
    writer has made them."""

    def __init__(self, requests_: int, wait_for_writer: bool):
        self.left = requests_
        self.wait_for_writer = wait_for_writer
        self.lock = threading.Lock()
        self.writer_done = threading.Event()
        self.clients_done = threading.Event()

    def take(self) -> bool:
        with self.lock:
            self.left -= 1
            return self.left >= 0 or (self.wait_for_writer and not self.writer_done.is_set())


def writer(
    store: Path,
    corpus: Corpus,
    loads: int | None,
    budget: Budget,
    generations: list[Generation],
    failures: list[str],
) -> None:
    number = 0
    while (loads is None and not budget.clients_done.is_set()) or (
        loads is not None and number < loads
    ):
        number += 1
        generation = Generation(number, time.monotonic())
        generations.append(generation)
        corpus.write_generation(number)
        result = kg(store, "load", str(corpus.data))
        generation.published = time.monotonic()
        generation.seconds = generation.published - generation.started
        if result.returncode != 0:
            failures.append(f"kg load of generation {number} failed: {result.stderr[-500:]}")
            break
    budget.writer_done.set()


def check(
    responses: list[Response], generations: list[Generation]
) -> tuple[Counter, list[str], list[float]]:
    """Every response against the generations and against what its reader saw before: the
    failures by reason, with examples, and how stale each answer older than the live
    generation was (seconds since the newer one went live; a measurement, never a
    failure)."""
    reasons: Counter = Counter()
    examples: list[str] = []
    by_etag: dict[tuple[str, str], int] = {}
    newest_seen: dict[int, int] = {}  # reader -> the newest generation it has seen
    stale: list[float] = []

    def fail(reason: str, response: Response) -> None:
        reasons[reason] += 1
        if len(examples) < 10:
            examples.append(
                f"{reason}: {response.kind} of reader {response.client} at "
                f"{response.sent:.3f} {sorted(response.generations)} "
                f"{response.error}"
            )

    started = {g.number: g.started for g in generations}
    published = {g.number: g.published for g in generations}
    # A reader's requests are sequential: in the order sent, what it sees must not go back.
    for r in sorted(responses, key=lambda r: (r.client, r.sent)):
        if r.status == 0:
            fail("no answer", r)
        elif r.status >= 500:
            fail("5xx", r)
        elif r.status != 200:
            fail(f"status {r.status}", r)
        elif r.error:
            fail("wrong content", r)
        elif len(r.generations) != 1:
            fail("a mix of generations", r)
        else:
            [g] = r.generations
            if g > 0 and started.get(g, float("inf")) > r.answered:
                fail("a generation not yet written", r)
            if g < newest_seen.get(r.client, 0):
                fail("older than a generation the reader had already seen", r)
            newest_seen[r.client] = max(g, newest_seen.get(r.client, 0))
            live_before = [published[n] for n in published if n > g and published[n] < r.sent]
            if live_before:
                stale.append(r.sent - min(live_before))
            if r.etag and by_etag.setdefault((r.kind, r.etag), g) != g:
                fail("one ETag, two generations", r)
    return reasons, examples, stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1000, help="records of the generated corpus")
    parser.add_argument("--corpus", type=Path, help="an existing corpus (copied, not changed)")
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument(
        "--loads",
        type=int,
        help="exactly this many loads (default: load again and again until the requests are sent)",
    )
    parser.add_argument("--tracked", type=int, default=20, help="records changed by every load")
    parser.add_argument("--added", type=int, default=2, help="records added by every load")
    parser.add_argument(
        "--window",
        type=int,
        default=10,
        help="loads an added record lives for (then a load deletes it)",
    )
    parser.add_argument("--threads", type=int, default=8, help="the server's threads")
    parser.add_argument("--json", type=Path, help="write the results here as JSON")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="kg-reliability-") as tmp:
        work = Path(tmp)
        store = work / "store"
        corpus = prepare(work, args.records, args.corpus, args.tracked, args.added, args.window)
        first = kg(store, "load", str(corpus.data))
        if first.returncode != 0:
            raise SystemExit(first.stderr)
        server = Server(store, corpus.data, args.threads)
        try:
            sparql = (ROOT / "bench" / "reliability.rq").read_text()
            for path in ("/", f"/record/{corpus.tracked[0]}", "/records.json"):  # warm up
                requests.get(server.url + path, timeout=60)
            requests.get(server.url + "/sparql", params={"query": sparql}, timeout=60)
            rss_before = server.rss_mb()
            peak = list(rss_before)
            generations = [Generation(0, 0.0, 0.0)]
            responses: list[Response] = []
            failures: list[str] = []
            budget = Budget(args.requests, wait_for_writer=args.loads is not None)
            started = time.monotonic()
            threads = [
                threading.Thread(
                    target=client, args=(server.url, corpus, budget, seed, sparql, responses)
                )
                for seed in range(args.clients)
            ]
            for thread in threads:
                thread.start()
            load_thread = threading.Thread(
                target=writer, args=(store, corpus, args.loads, budget, generations, failures)
            )
            load_thread.start()
            samples = []  # (seconds since the start, server MB, with workers MB)
            while any(t.is_alive() for t in threads):
                own, total = server.rss_mb()
                peak = [max(peak[0], own), max(peak[1], total)]
                samples.append((time.monotonic() - started, own, total))
                if len(samples) % 60 == 0:
                    print(
                        f"{len(responses)} answers, {len(generations) - 1} loads, server "
                        f"{own:.0f} MB ({total:.0f} MB with its query workers)",
                        file=sys.stderr,
                    )
                time.sleep(0.5)
            budget.clients_done.set()
            elapsed = time.monotonic() - started
            load_thread.join()
            asks = converge(server.url, corpus, sparql, generations[-1].number, responses)
            rss_after = server.rss_mb()
            records = len(list(corpus.data.glob("records/*.yaml")))
        finally:
            server.stop()

    reasons, examples, stale = check(responses, generations)
    for kind, count in asks.items():
        if not count:
            failures.append(
                f"{kind}: never showed the newest generation "
                f"{generations[-1].number} once the writer had stopped"
            )
    loads = [g for g in generations if g.number > 0]
    kinds = Counter(r.kind for r in responses)
    summary = {
        "records": records,
        "requests": len(responses),
        "clients": args.clients,
        "seconds": round(elapsed, 1),
        "requests_per_second": round(len(responses) / elapsed, 1),
        "by_kind": dict(kinds),
        "loads": len(loads),
        "load_seconds_mean": round(sum(g.seconds for g in loads) / max(1, len(loads)), 2),
        "failures": sum(reasons.values()) + len(failures),
        "failure_reasons": dict(reasons),
        "server_errors": reasons.get("5xx", 0),
        "examples": examples + failures,
        "generations_seen": len({g for r in responses for g in r.generations}),
        # Once the writer stopped: the requests each kind took to show the newest generation.
        "asks_to_newest": asks,
        # Answers showing a generation older than the live one, and by how much (seconds
        # since the newer one went live): what the one-second refresh comes to here.
        "stale_answers": len(stale),
        "stale_seconds_max": round(max(stale, default=0.0), 2),
        "rss_mb_before": [round(x) for x in rss_before],
        "rss_mb_after": [round(x) for x in rss_after],
        "rss_mb_peak": [round(x) for x in peak],
        # The server's memory at each fifth of the run: bounded, or growing with the loads?
        "rss_mb_by_fifth": [
            round(samples[min(len(samples) - 1, i * len(samples) // 5)][1]) for i in range(1, 6)
        ]
        if samples
        else [],
    }
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
