"""Headers every response carries: a strict Content-Security-Policy and friends, and CORS
for read-only requests only.

The pages run no script of their own inline (the schema.org block is data, which a
browser never executes), so scripts may come from this origin's static files alone;
an injected ``<script>`` or ``onerror=`` does not run even if escaping ever failed.
"""

from __future__ import annotations

from flask import Flask, Response, request


def content_security_policy(style_hashes: tuple[str, ...] = ()) -> str:
    """The policy; ``style_hashes`` (SHA-256, base64) allow those ``<style>`` elements alone."""
    styles = " ".join(["'self'", *(f"'sha256-{h}'" for h in style_hashes)])
    return "; ".join([
        "default-src 'self'",
        "script-src 'self'",
        f"style-src {styles}",
        "img-src 'self' data:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ])


CONTENT_SECURITY_POLICY = content_security_policy()
#: The SPARQL page's policy: its editor (YASGUI, static/vendor/yasgui/) sorts and resizes
#: result columns with a library that writes one ``<style>`` element of fixed text; that
#: text alone is allowed, by its hash, on that page alone. No inline style attribute and no
#: other ``<style>`` is allowed anywhere; a new YASGUI that writes another text shows a
#: console error in tests/test_sparql_editor.py.
EDITOR_POLICY = content_security_policy(("zCK2EVMoPc04mRF/g5CotUvxbJPWS+8V0b+s9ptqQIk=",))
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
READ_ONLY = ("GET", "HEAD")
#: Requests with another method that only read: a SPARQL query sent by POST (updates are
#: refused there) and its preflight.
READ_ONLY_ELSEWHERE = {("/sparql", "POST"), ("/sparql", "OPTIONS")}


def secure_headers(response: Response) -> Response:
    """Add the security headers; allow any origin to read only what changes nothing."""
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    if request.method in READ_ONLY or (request.path, request.method) in READ_ONLY_ELSEWHERE:
        response.headers.setdefault("Access-Control-Allow-Origin", "*")
    else:
        for name in {k for k, _ in response.headers.items() if k.startswith("Access-Control-")}:
            del response.headers[name]
    return response


def register_security(app: Flask) -> None:
    """Every response of ``app``, errors included, gets :func:`secure_headers`."""
    app.after_request(secure_headers)
