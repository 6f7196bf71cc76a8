"""The one place where errors become HTTP answers: HTML or JSON, by the same negotiation."""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from ...errors import GoneError, KgError
from ...rdf.formats import media_type_of, media_types
from ...rdf.negotiation import NotAcceptable, negotiate, split_suffix

log = logging.getLogger(__name__)
_OFFERED = media_types("html", "json")
HTML, JSON = _OFFERED


def _answer(
    status: int, title: str, message: str, details: list[tuple[str, str, str | None]] | None = None
) -> Response:
    # A page asked for as data (".json", "?format=json") gets its error as JSON too.
    _, suffix = split_suffix(request.path.rsplit("/", 1)[-1])
    override = suffix or request.args.get("format")
    if override and media_type_of(override) not in _OFFERED:
        override = None
    try:
        media_type = negotiate(request.headers.get("Accept"), _OFFERED, override)
    except NotAcceptable:
        media_type = "text/plain"
    if media_type == JSON:
        answer = {"status": status, "error": title, "message": message}
        if details:
            answer["details"] = [
                {"what": what, "text": text, "link": link} for what, text, link in details
            ]
        response = jsonify(answer)
    elif media_type == HTML:
        response = Response(
            render_template(
                "error.html", status=status, title=title, message=message, details=details or []
            ),
            mimetype=HTML,
        )
    else:
        response = Response(f"{status} {title}: {message}\n", mimetype="text/plain")
    response.status_code = status
    response.vary.add("Accept")
    return response


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(KgError)
    def kg_error(exc: KgError) -> Response:
        title = {
            400: "Bad request",
            403: "Forbidden",
            404: "Not found",
            406: "Not acceptable",
            410: "Gone",
            413: "Too large",
            415: "Unsupported media type",
            503: "Unavailable",
        }.get(exc.http_status, "Error")
        if exc.http_status >= 500:
            log.error("%s", exc)
        if isinstance(exc, GoneError):  # a tombstone: what it was, when and why it went
            return _answer(exc.http_status, title, str(exc), exc.details)
        return _answer(exc.http_status, title, "\n".join(exc.lines()))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        return _answer(exc.code or 500, exc.name, exc.description or "")

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> Response:
        log.exception("unexpected error")  # a bug of ours: 500, never 400
        return _answer(500, "Internal server error", "The server failed; the error is logged.")
