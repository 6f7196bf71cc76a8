"""A loopback HTTP proxy in front of a real store, that can fail the ways a store does:
stopped (connections refused while it is down), stopped in the middle of a load (the
N-th write never reaches the store, and the proxy goes down with it), slow, or
answering with an HTML error page (what a reverse proxy in front of a store sends).

The store behind it is real (`oxigraph serve`, Virtuoso); the proxy only forwards bytes
or withholds them, so what the client sees is what it would see from a real fault."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import requests

from helpers.servers import free_port

#: What a reverse proxy answers when the store behind it failed.
HTML_ERROR = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    b"</body>\r\n</html>\r\n"
)
_HOP = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "content-length",
    "te",
    "trailer",
    "upgrade",
    "proxy-authorization",
    "proxy-authenticate",
    "content-encoding",
}


def is_write(method: str, content_type: str, body: bytes) -> bool:
    """Whether a request to a store changes it: an update (direct or form-encoded) or a
    Graph Store Protocol write."""
    if method in ("PUT", "DELETE"):
        return True
    if method != "POST":
        return False
    if content_type.startswith("application/sparql-update"):
        return True
    if content_type.startswith("application/x-www-form-urlencoded"):
        return body.startswith(b"update=") or b"&update=" in body
    return not content_type.startswith("application/sparql-query")


class FaultyProxy:
    """The proxy's state, changed by the test between (or during) requests."""

    def __init__(self, upstream: str):
        parts = urlsplit(upstream)
        self.upstream = f"{parts.scheme}://{parts.netloc}"  # requests carry the path
        #: "up", "down" (every connection is closed unanswered), "html" (502 HTML page),
        #: "slow" (each answer waits `delay` seconds first).
        self.mode = "up"
        self.delay = 0.0
        #: Go down instead of forwarding the write with this number (1 = the first).
        self.down_at_write: int | None = None
        self.writes = 0
        self.lock = threading.Lock()
        self.session = requests.Session()

    def decide(self, is_a_write: bool) -> str:
        with self.lock:
            if is_a_write and self.mode == "up":
                self.writes += 1
                if self.down_at_write is not None and self.writes >= self.down_at_write:
                    self.mode = "down"
            return self.mode


def _handler(proxy: FaultyProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # quiet
            pass

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                parts = []
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        return b"".join(parts)
                    parts.append(self.rfile.read(size))
                    self.rfile.readline()
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _drop(self) -> None:
            # no answer at all: what a client sees when the store stops mid-request
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)

        def _forward(self) -> None:
            body = self._body()
            mode = proxy.decide(is_write(self.command, self.headers.get("Content-Type", ""), body))
            if mode == "down":
                return self._drop()
            if mode == "html":
                self.send_response(502)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(HTML_ERROR)))
                self.end_headers()
                self.wfile.write(HTML_ERROR)
                return None
            if mode == "slow":
                time.sleep(proxy.delay)
            headers = {
                k: v
                for k, v in self.headers.items()
                if k.lower() not in _HOP and k.lower() != "host"
            }
            try:
                answer = proxy.session.request(
                    self.command,
                    proxy.upstream + self.path,
                    data=body,
                    headers=headers,
                    timeout=600,
                )
            except requests.RequestException:
                return self._drop()
            self.send_response_only(answer.status_code)  # the store's own Server header
            for key, value in answer.headers.items():
                if key.lower() not in _HOP:
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)
            return None

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _forward

    return Handler


class _QuietServer(ThreadingHTTPServer):
    """A client the tests make give up (a timeout) leaves the proxy writing to a closed
    socket: that is no error, and its traceback, printed from a handler thread that may
    outlive the test, would land in whatever another test is capturing."""

    def handle_error(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def faulty_proxy(upstream: str) -> Iterator[tuple[str, FaultyProxy]]:
    """A proxy on a free port of 127.0.0.1 in front of ``upstream`` (a store's URL), until
    the block ends; yields its URL (with the upstream's path) and its state."""
    port = free_port()
    server = _QuietServer(("127.0.0.1", port), _handler(proxy := FaultyProxy(upstream)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True, name="faulty-proxy")
    thread.start()
    try:
        path = urlsplit(upstream).path.rstrip("/")
        yield f"http://127.0.0.1:{port}{path}", proxy
    finally:
        server.shutdown()
        server.server_close()
