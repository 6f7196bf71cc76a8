"""Requests through a trusted reverse proxy: its ``X-Forwarded-Proto`` and
``X-Forwarded-Host`` are believed, so that what the server says of its own URLs (feeds,
VoID, the sitemap, robots.txt, the service description, ``Content-Location`` and ``Link``
headers, all built from the request's scheme and host) is what a reader reached.

Only requests whose peer address is in ``trusted_proxies`` are read so; from any other
address the headers are ignored, since anyone can send them. Minted IRIs never depend on
either: they are the base setting's (docs/deployment.md).
"""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network, ip_address
from typing import TYPE_CHECKING

from flask import Flask

from ...config import Settings

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

SCHEMES = ("http", "https")


class ForwardedHeaders:
    """WSGI middleware: the scheme and host a trusted proxy forwards become the request's.

    A proxy that appends to a header it received (``X-Forwarded-Host: a, b``) is read by
    the first value, the one the reader sent to the first proxy."""

    def __init__(self, app: WSGIApplication, networks: tuple[IPv4Network | IPv6Network, ...]):
        self.app = app
        self.networks = networks

    def trusted(self, peer: str) -> bool:
        """Whether a request from ``peer`` comes from a trusted proxy."""
        try:
            address = ip_address(peer.split("%", 1)[0])
        except ValueError:
            return False
        return any(address in network for network in self.networks)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse):
        if self.trusted(environ.get("REMOTE_ADDR", "")):
            scheme = _first(environ.get("HTTP_X_FORWARDED_PROTO")).lower()
            host = _first(environ.get("HTTP_X_FORWARDED_HOST"))
            if scheme in SCHEMES:
                environ["wsgi.url_scheme"] = scheme
            if host and all(c.isalnum() or c in "-.:[]" for c in host):
                environ["HTTP_HOST"] = host
        return self.app(environ, start_response)


def _first(value: str | None) -> str:
    return (value or "").split(",", 1)[0].strip()


def register_forwarded_headers(app: Flask, settings: Settings) -> None:
    """Read forwarded headers from the trusted proxies, before anything else reads the
    request (the outermost middleware); nothing is added where none is trusted."""
    if settings.proxy_networks:
        app.wsgi_app = ForwardedHeaders(app.wsgi_app, settings.proxy_networks)  # type: ignore[method-assign]
