"""Serving the app with granian: a Rust HTTP server in front of the WSGI app, in one or
several worker processes on one port.

Python runs one thread at a time per process, so a page that costs a few milliseconds
of Python caps a process at a few hundred pages a second whatever its thread count;
``workers`` processes use as many cores. Each worker is a server of its own, forked from
the process that built the index (so they share it): it opens the store read-only (the
embedded store's live version, or the remote store) and follows new versions by itself,
so no worker ever serves half of a load. The workers listen on one port through
``SO_REUSEPORT``, which lets the kernel spread connections over them; a worker that
dies is started again.

Why granian and not a pure-Python server: the HTTP work (accepting, parsing, writing
the answer) runs in Rust, outside the GIL, and costs each request about half of what it
cost under waitress (bench/README.md, "The server in front").
"""

from __future__ import annotations

import multiprocessing
import socket
import threading
import time
from collections.abc import Callable

from flask import Flask

from .state import close as close_app

#: How long the workers may take to listen before kg serve gives up announcing.
START_SECONDS = 120.0
#: How long a worker may take to stop once told to before it is killed.
KILL_SECONDS = 10


def serve(make_app: Callable[[], Flask], host: str, port: int, threads: int, workers: int,
          announce: Callable[[str], None]) -> None:
    """Serve until interrupted (Ctrl-C or SIGTERM), announcing the URL once a worker
    listens. ``make_app`` runs in each worker process.

    :raises OSError: when the address cannot be bound.
    """
    from granian import Granian
    from granian.constants import Interfaces
    from granian.log import LogLevels

    # Bind here to fix the port (port 0: any free one); the workers then bind their own
    # listening sockets to it. This one never listens, so it takes no connections.
    holder = _reuse_port_socket(host, port)
    host, port = holder.getsockname()[:2]
    # The workers are forked: they share what this process built (the index) instead of
    # each building its own (the start method Python >= 3.14 picks, forkserver, would not).
    multiprocessing.set_start_method("fork", force=True)
    server = Granian("kg.web:create_app", address=host, port=port,
                     interface=Interfaces.WSGI, workers=workers, blocking_threads=threads,
                     backpressure=threads, respawn_failed_workers=True,
                     workers_kill_timeout=KILL_SECONDS, log_level=LogLevels.error)
    url = f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"
    threading.Thread(target=_announce_when_listening, args=(host, port, url, announce),
                     daemon=True, name="kg-announce").start()
    try:
        server.serve(target_loader=lambda _target: _worker_app(make_app))
    finally:
        holder.close()


def _worker_app(make_app: Callable[[], Flask]) -> Flask:
    """The app of one worker process; what it starts (query workers) stops with it."""
    from multiprocessing import util

    app = make_app()
    util.Finalize(app, close_app, args=(app,), exitpriority=10)
    return app


def _announce_when_listening(host: str, port: int, url: str,
                             announce: Callable[[str], None]) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1):
                announce(url)
                return
        except OSError:
            time.sleep(0.02)


def _reuse_port_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock
