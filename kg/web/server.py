"""Serving the app with waitress: one process, or several worker processes on one port.

Python runs one thread at a time per process, so a page that costs a few milliseconds
of Python caps a process at a few hundred pages a second whatever its thread count;
``workers`` processes use as many cores. Each worker is a whole server of its own: it
opens the store read-only (the embedded store's live version, or the remote store) and
follows new versions by itself, so no worker ever serves half of a load. The workers
listen on one port through ``SO_REUSEPORT``, which lets the kernel spread connections
over them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import traceback
from collections.abc import Callable
from typing import Any

from flask import Flask

from .state import close as close_app


def serve(make_app: Callable[[], Flask], host: str, port: int, threads: int, workers: int,
          announce: Callable[[str], None], **waitress: Any) -> None:
    """Serve until interrupted (Ctrl-C or SIGTERM), announcing the URL once it listens."""
    if workers <= 1:
        _serve_one(make_app, announce, host=host, port=port, threads=threads, **waitress)
        return
    # Bind once here to fix the port (port 0: any free one); each worker then binds its own
    # listening socket to it. This one never listens, so it takes no connections.
    holder = _reuse_port_socket(host, port)
    host, port = holder.getsockname()[:2]
    children = []
    for _ in range(workers):
        pid = os.fork()  # before any thread or store handle exists in this process
        if pid == 0:
            holder.close()
            code = 0
            try:
                signal.signal(signal.SIGTERM, _exit_on_signal)
                listener = _reuse_port_socket(host, port)
                listener.listen(1024)
                _serve_one(make_app, lambda _url: None, sockets=[listener], threads=threads,
                           **waitress)
            except BaseException:  # a worker must never return into the CLI
                traceback.print_exc()
                code = 1
            finally:
                os._exit(code)
        children.append(pid)
    announce(f"http://{host}:{port}/")

    def stop(signum: int, _frame: object) -> None:
        for pid in children:
            _kill(pid, signal.SIGTERM)
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        for pid in children:
            os.waitpid(pid, 0)
    except KeyboardInterrupt:
        for pid in children:
            _kill(pid, signal.SIGTERM)
    finally:
        holder.close()
        for pid in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _serve_one(make_app: Callable[[], Flask], announce: Callable[[str], None],
               **adjustments: Any) -> None:
    from waitress.server import create_server

    app = make_app()
    server = create_server(app, ident="claimgraph", **adjustments)
    if "sockets" not in adjustments:
        announce(f"http://{server.effective_host}:{server.effective_port}/")
    try:
        server.run()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.close()
        close_app(app)


def _reuse_port_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(0)


def _kill(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signum)

