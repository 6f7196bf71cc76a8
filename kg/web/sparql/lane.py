"""The short way for a query known to be fast: a POST to /sparql answered before Flask.

A query a worker answered within ``query_inline_ms`` runs in the server's thread the next
times it is asked of the same store version (:mod:`kg.web.sparql.pool`). What is left of
its cost is then mostly the web framework's and the request's checks: in session 44's
measure the whole request cost 0.58 ms in process, the query 0.15 of it (bench/README.md,
"Queries known to be fast, and cheaper answers"). This middleware answers such a request
itself, with the same parts the view uses: the route's request rules
(:func:`kg.web.http.request_rules.checked_params`), the same query plan
(:func:`kg.web.sparql.endpoint.plan`, negotiation included), the same runner and the same headers
(bench/README.md, "The server in front, the short way for known queries, and counting
rows").

It answers only when all of that holds: a POST to /sparql whose body is within the size
limit, whose parameters the rules allow, whose query the runner knows to be fast on the
version read now, answered in a format other than HTML. Anything else, an error
included, goes to Flask untouched (the body it read put back), so every error is still
made in one place (:mod:`kg.web.http.errors`) and every page by its view. A GET is left to
Flask: its answers carry validators and can come from the response cache
(:mod:`kg.web.http.cache`). The security headers are added around both
(:class:`kg.web.http.security.SecureHeaders` wraps this middleware).

What a request plans to is kept, by what it was made of (its body, query string,
Content-Type, Accept, and where it was sent): the same bytes plan the same, so a request
asked again is not checked and planned anew; only the store version it reads is the one
read now. A plan is kept once it was made without an error, for bodies of at most
:data:`PLAN_BODY` bytes, :data:`PLANS` of them at most (the least recently asked goes).
"""

from __future__ import annotations

import dataclasses
import io
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from flask import Flask

from ..http.request_rules import checked_params
from ..state import AppState, state
from ..workers.pool import QueryAnswer
from .endpoint import HTML, REQUESTS, Planned, answer_head, endpoint_url, plan, pool

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

#: The route whose requests it answers (by the endpoint's rules, REQUESTS).
PATH = "/sparql"
#: Plans are kept for bodies of at most this many bytes, this many plans at most (8 MiB).
PLAN_BODY, PLANS = 8192, 1024
#: What a request is made of, besides its body (the WSGI environ's keys).
REQUEST_KEYS = (
    "CONTENT_TYPE",
    "QUERY_STRING",
    "HTTP_ACCEPT",
    "wsgi.url_scheme",
    "HTTP_HOST",
    "SERVER_NAME",
    "SERVER_PORT",
    "SCRIPT_NAME",
)


class KnownQueryLane:
    """WSGI middleware over ``flask_app``'s own WSGI app: a POST /sparql whose query is known
    to be fast is answered here; every other request goes on to ``app``."""

    def __init__(self, app: WSGIApplication, flask_app: Flask):
        self.app, self.flask_app = app, flask_app
        self._plans: OrderedDict[tuple, Planned] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != PATH or environ.get("REQUEST_METHOD") != "POST":
            return self.app(environ, start_response)
        answered = self._answer(environ)
        if answered is None:
            return self.app(environ, start_response)
        planned, answer = answered
        start_response(
            "200 OK",
            [*answer_head(planned.media_type, answer), ("Content-Length", str(len(answer.body)))],
        )
        return [answer.body]

    def _answer(self, environ: WSGIEnvironment) -> tuple[Planned, QueryAnswer] | None:
        """The plan and the answer of a request this lane answers; None for any other, its
        body put back for Flask to read."""
        try:
            length = int(environ.get("CONTENT_LENGTH") or "")
        except ValueError:  # no length (chunked, or no body): Flask reads it
            return None
        limit = self.flask_app.config["MAX_CONTENT_LENGTH"]
        if length < 0 or (limit is not None and length > limit):
            return None  # Flask refuses it (413) without reading it
        body = b""
        try:
            body = environ["wsgi.input"].read(length) if length else b""
            if len(body) != length:
                return None  # the client went away mid-body: Flask says so
            app_state = state(self.flask_app)
            planned = self._planned(environ, body, app_state)
            if planned is None or planned.media_type == HTML:
                return None
            request, version = planned.request, app_state.version
            if not planned.release and request.version != version:
                # the version read now, whenever it was planned
                request = dataclasses.replace(request, version=version)
            answer = pool(planned.release, app_state).run_known(request)
        except Exception:
            # Whatever went wrong (a refused request, a client gone mid-body, a fault)
            # happens again in Flask, which makes every error answer in one place.
            answer = None
        finally:
            environ["wsgi.input"] = io.BytesIO(body)  # for Flask, should it answer instead
        if answer is None:
            return None
        assert planned is not None  # an answer is only asked for a plan
        return planned, answer

    def _planned(
        self, environ: WSGIEnvironment, body: bytes, app_state: AppState
    ) -> Planned | None:
        """What the request plans to: kept, or made as the view makes it.

        :raises KgError: what the request rules or the plan refuse.
        """
        key = (body, *map(environ.get, REQUEST_KEYS))
        with self._lock:
            planned = self._plans.get(key)
            if planned is not None:
                self._plans.move_to_end(key)
                return planned
        environ["wsgi.input"] = io.BytesIO(body)
        asked = self.flask_app.request_class(environ, populate_request=False)
        planned = plan(
            checked_params(asked, REQUESTS),
            asked.headers.get("Accept"),
            endpoint_url(asked),
            app_state,
        )
        if planned is not None and len(body) <= PLAN_BODY:
            with self._lock:
                self._plans[key] = planned
                if len(self._plans) > PLANS:
                    self._plans.popitem(last=False)
        return planned


def register_sparql_lane(app: Flask) -> None:
    """Requests to ``app`` pass :class:`KnownQueryLane` first."""
    app.wsgi_app = KnownQueryLane(app.wsgi_app, app)  # type: ignore[method-assign]
