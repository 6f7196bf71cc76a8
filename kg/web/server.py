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
the answer) runs in Rust, outside the GIL, at about a third of what it cost under
waitress; kg's answers cost 0.1-0.3 ms less each (bench/README.md, "The server in
front").
"""

from __future__ import annotations

import multiprocessing
import socket
import threading
import time
from collections.abc import Callable

from flask import Flask

from ..errors import ConfigError
from .state import close as close_app

#: How long the workers may take to listen before kg serve gives up announcing.
START_SECONDS = 120.0
#: How long a worker may take to stop once told to before it is killed.
KILL_SECONDS = 10


def reserve(host: str, port: int) -> socket.socket:
    """A socket bound to the address to serve on (port 0: a free one), never listening: it
    holds the port for the workers, which bind their own listening sockets to it.

    :raises ConfigError: when the address cannot be served on (another server listens
        there, or it is not this machine's).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        # Bound without SO_REUSEPORT, the probe is refused where any server holds the port,
        # even one that shares it (another kg serve).
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
            port = probe.getsockname()[1]
        holder = socket.socket(family, socket.SOCK_STREAM)
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        holder.bind((host, port))
    except OSError as exc:
        raise ConfigError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from exc
    return holder


def serve(
    make_app: Callable[[], Flask],
    holder: socket.socket,
    threads: int,
    workers: int,
    announce: Callable[[str], None],
) -> None:
    """Serve on the address ``holder`` holds (:func:`reserve`) until interrupted (Ctrl-C or
    SIGTERM), announcing the URL once a worker listens. ``make_app`` runs in each worker
    process."""
    from granian import Granian
    from granian.constants import Interfaces
    from granian.log import LogLevels

    host, port = holder.getsockname()[:2]
    # The workers are forked: they share what this process built (the index) instead of
    # each building its own (the start method Python >= 3.14 picks, forkserver, would not).
    multiprocessing.set_start_method("fork", force=True)
    server = Granian(
        "kg.web:create_app",
        address=host,
        port=port,
        interface=Interfaces.WSGI,
        workers=workers,
        blocking_threads=threads,
        # no backpressure=threads: it caps open connections, not requests,
        # and a keep-alive client beyond it would wait forever
        respawn_failed_workers=True,
        workers_kill_timeout=KILL_SECONDS,
        log_level=LogLevels.error,
    )
    url = f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"
    threading.Thread(
        target=_announce_when_listening,
        args=(host, port, url, announce),
        daemon=True,
        name="kg-announce",
    ).start()
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


def _announce_when_listening(
    host: str, port: int, url: str, announce: Callable[[str], None]
) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1):
                announce(url)
                return
        except OSError:
            time.sleep(0.02)
