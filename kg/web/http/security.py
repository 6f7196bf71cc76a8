"""Headers every response carries: a strict Content-Security-Policy and friends, and CORS
for read-only requests only.

The pages run no script of their own inline (the schema.org block is data, which a
browser never executes), so scripts may come from this origin's static files alone;
an injected ``<script>`` or ``onerror=`` does not run even if escaping ever failed.

A response that is not an HTML page (query results, RDF, JSON, CSV, a stylesheet) gets
the policy of data instead: nothing may load or run (``default-src 'none'``), which also
covers a body a browser might render (an SVG, a JSON viewer), and it is not framed
(``frame-ancestors``). The headers that concern a page alone (``X-Frame-Options``, which
``frame-ancestors`` replaces, and ``Cross-Origin-Opener-Policy``) stay off it: each
header is parsed by every client of every answer, and a query's answer with the page's
headers took a quarter longer to read (bench/README.md, "Queries known to be fast").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Flask

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment


def content_security_policy(style_hashes: tuple[str, ...] = ()) -> str:
    """The policy; ``style_hashes`` (SHA-256, base64) allow those ``<style>`` elements alone."""
    styles = " ".join(["'self'", *(f"'sha256-{h}'" for h in style_hashes)])
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            f"style-src {styles}",
            "img-src 'self' data:",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


CONTENT_SECURITY_POLICY = content_security_policy()
#: The SPARQL page's policy: its editor (YASGUI, static/vendor/yasgui/) sorts and resizes
#: result columns with a library that writes one ``<style>`` element of fixed text; that
#: text alone is allowed, by its hash, on that page alone. No inline style attribute and no
#: other ``<style>`` is allowed anywhere; a new YASGUI that writes another text shows a
#: console error in tests/test_sparql_editor.py.
EDITOR_POLICY = content_security_policy(("zCK2EVMoPc04mRF/g5CotUvxbJPWS+8V0b+s9ptqQIk=",))
#: What a response that is not a page may do: nothing (OWASP's policy for an API).
DATA_POLICY = "default-src 'none'; frame-ancestors 'none'"
#: The headers of anything but a page, and of an HTML page; the media types of pages.
DATA_HEADERS = {
    "Content-Security-Policy": DATA_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
PAGE_HEADERS = {
    **DATA_HEADERS,
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
PAGES = ("text/html", "application/xhtml+xml")
READ_ONLY = ("GET", "HEAD")
#: Requests with another method that only read: a SPARQL query sent by POST (updates are
#: refused there) and its preflight.
READ_ONLY_ELSEWHERE = {("/sparql", "POST"), ("/sparql", "OPTIONS")}


class SecureHeaders:
    """WSGI middleware that adds the security headers to every response (errors included),
    and allows any origin to read only what changes nothing.

    It works on the list of header pairs the app starts its response with: werkzeug's
    ``Headers.setdefault``, once a header, cost a tenth of a fast query's answer."""

    def __init__(self, app: WSGIApplication):
        self.app = app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse):
        method = environ.get("REQUEST_METHOD", "GET")
        readable = (
            method in READ_ONLY or (environ.get("PATH_INFO", ""), method) in READ_ONLY_ELSEWHERE
        )

        def start(status: str, headers: list[tuple[str, str]], exc_info=None):
            return start_response(status, secured(headers, readable), exc_info)

        return self.app(environ, start)


def secured(headers: list[tuple[str, str]], readable: bool) -> list[tuple[str, str]]:
    """``headers`` with each security header the response does not set itself (those of a
    page or of data, by its Content-Type); with ``Access-Control-Allow-Origin: *`` where it
    is ``readable`` by other origins, else with no ``Access-Control-`` header at all.

    >>> page = [("Content-Type", "text/html"), ("Access-Control-Max-Age", "60")]
    >>> [name for name, _ in secured(page, readable=False)]
    ['Content-Type', 'Content-Security-Policy', 'X-Content-Type-Options', \
'Referrer-Policy', 'X-Frame-Options', 'Cross-Origin-Opener-Policy']
    >>> secured([("Content-Type", "application/json")], readable=True)[1:3]
    [('Access-Control-Allow-Origin', '*'), ('Content-Security-Policy', \
"default-src 'none'; frame-ancestors 'none'")]
    """
    present = {}
    for name, value in headers:
        present[name.lower()] = value
    media_type = present.get("content-type", "").split(";", 1)[0].strip().lower()
    if readable:
        out = list(headers)
        if "access-control-allow-origin" not in present:
            out.append(("Access-Control-Allow-Origin", "*"))
    else:
        out = [
            (name, value)
            for name, value in headers
            if not name.lower().startswith("access-control-")
        ]
    # No type: a 304, whose headers a browser merges into the response it kept, which may
    # be a page; the page's set fits both (it is what data had before).
    own = PAGE_HEADERS if media_type in PAGES or not media_type else DATA_HEADERS
    out += [(name, value) for name, value in own.items() if name.lower() not in present]
    return out


def register_security(app: Flask) -> None:
    """Every response of ``app``, errors included, goes through :class:`SecureHeaders`."""
    app.wsgi_app = SecureHeaders(app.wsgi_app)  # type: ignore[method-assign]
