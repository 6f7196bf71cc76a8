"""The server in front (issue 25): what the HTTP server itself costs a request, granian
(what `kg serve` runs) against waitress (what it ran before), with `oxigraph serve` as
the baseline, in one command.

    pip install waitress       # only for this comparison: kg no longer depends on it
    python bench/http_server.py /work/benchdata/store-10000/kg [--requests 1000] [--rounds 3]

Rows, each a server process of its own on 127.0.0.1, asked one request after another on
a new connection each (as bench/canned.py asks):

- **oxigraph serve**: `oxigraph serve-read-only` over a copy of the live version, POST
  /query of a query of no rows;
- **bare app under granian / waitress**: a WSGI app that reads the body and answers two
  bytes, 8 threads (the floor of each server);
- **kg /healthz under granian / waitress**: the web app of ``kg.web.create_app`` over the
  store, response cache off, GET /healthz (the server, the security headers and Flask);
- **kg /sparql under granian / waitress**: the same app, POST /sparql of the query of no
  rows, known to be fast after its first run (kg/web/sparql/lane.py).

Each row gives the median wall time of a request in the round of least median (the rounds
of all rows take turns) and the CPU time the server's processes spent per request in
that round (from /proc: user and system time of the process and its descendants).
"""

from __future__ import annotations

import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.serve import ENV, Server, cpu_seconds, oxigraph_serve, store_arguments, tree  # noqa: E402

QUERY = "SELECT ?s WHERE { ?s a <urn:x-claimgraph:no-such-class> }"
POST = {
    "Content-Type": "application/x-www-form-urlencoded",
    "Accept": "application/sparql-results+json",
}
BODY = urllib.parse.urlencode({"query": QUERY}).encode()

#: A process serving ``app`` (``bare`` or the kg app over KG_STORE) on a port, printing
#: "serving http://HOST:PORT/ " once it listens, as kg serve does (bench.serve.Server).
SERVE = r"""
import os, socket, sys
kind, server, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
def bare(environ, start_response):
    length = int(environ.get("CONTENT_LENGTH") or 0)
    if length:
        environ["wsgi.input"].read(length)
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]
if kind == "kg":
    from kg.web import create_app
    app = create_app({"store": os.environ["KG_STORE"], "cache_mb": 0})
else:
    app = bare
print(f"serving http://127.0.0.1:{port}/ ", file=sys.stderr, flush=True)
if server == "waitress":
    from waitress import serve
    serve(app, host="127.0.0.1", port=port, threads=8)
else:
    from granian import Granian
    from granian.constants import Interfaces
    from granian.log import LogLevels
    Granian("bench", address="127.0.0.1", port=port, interface=Interfaces.WSGI,
            blocking_threads=8, log_level=LogLevels.error).serve(
        target_loader=lambda _target: app)
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def started(kind: str, server: str, store: Path) -> Server:
    port = free_port()
    command = [sys.executable, "-c", SERVE, kind, server, str(port)]
    return Server(command, None, env={**ENV, "KG_STORE": str(store), "KG_CACHE_MB": "0"})


def measure(server: Server, path: str, body: bytes | None, requests: int) -> tuple[float, float]:
    """(median ms a request, server CPU ms a request) of ``requests`` asked in turn."""
    headers = POST if body is not None else {}
    times = []
    before = cpu_seconds(tree(server.proc.pid))
    for _ in range(requests):
        begun = time.perf_counter()
        status, _ = server.get(path, body, headers)
        times.append(time.perf_counter() - begun)
        assert status == 200, (path, status)
    spent = cpu_seconds(tree(server.proc.pid)) - before
    return statistics.median(times) * 1000, spent / requests * 1000


def main() -> None:
    args, live = store_arguments(__doc__, requests=1000, rounds=3)
    try:
        import waitress  # noqa: F401
    except ImportError:
        raise SystemExit("this comparison needs waitress: pip install waitress") from None

    work = Path(tempfile.mkdtemp(prefix="kg-http-server-"))
    subprocess.run(["cp", "-a", str(live), str(work / "oxigraph")], check=True)
    servers: dict[str, Server] = {}
    try:
        servers["oxigraph"] = oxigraph_serve(work / "oxigraph")
        for server in ("granian", "waitress"):
            servers[f"bare {server}"] = started("bare", server, args.store)
            servers[f"kg {server}"] = started("kg", server, args.store)
        rows = {"oxigraph serve (POST /query)": ("oxigraph", "/query", BODY)}
        for server in ("granian", "waitress"):
            rows[f"bare app under {server}"] = (f"bare {server}", "/", BODY)
            rows[f"kg /healthz under {server}"] = (f"kg {server}", "/healthz", None)
            rows[f"kg /sparql under {server}"] = (f"kg {server}", "/sparql", BODY)
        for name, path, body in rows.values():  # warm every path (a worker runs it first)
            measure(servers[name], path, body, 50)
        best: dict[str, tuple[float, float]] = {}
        for _ in range(args.rounds):
            for row, (name, path, body) in rows.items():
                got = measure(servers[name], path, body, args.requests)
                if row not in best or got[0] < best[row][0]:
                    best[row] = got
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(work, ignore_errors=True)

    floor = best["oxigraph serve (POST /query)"][0]
    print(f"\n{args.requests} requests a row, {args.rounds} rounds; {args.store}\n")
    print("| server | median ms / request | ratio to oxigraph serve | server CPU ms / request |")
    print("|---|---|---|---|")
    for row, (ms, cpu) in best.items():
        print(f"| {row} | {ms:.2f} | {ms / floor:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
