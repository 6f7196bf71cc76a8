"""``/healthz``: 200 once the store is open; as JSON, what this server process reads."""

from __future__ import annotations

import json
import os

from flask import Response, request

from ...rdf.formats import media_type_of
from ...rdf.negotiation import negotiate
from ..http.request_rules import params
from ..state import state

JSON = media_type_of("json")


def healthz() -> Response:
    """200 once the store is open; as JSON (Accept, ?format=json), what this server
    process reads and its response cache's figures (a process each: ``--workers``)."""
    app_state = state()
    app_state.store  # noqa: B018 (opening the store is the readiness check)
    if (
        negotiate(request.headers.get("Accept"), ["text/plain", JSON], params().get("format"))
        == JSON
    ):
        return Response(
            json.dumps(
                {
                    "status": "ok",
                    "process": os.getpid(),
                    "version": app_state.version,
                    "response_cache": app_state.response_cache.stats(),
                }
            ),
            mimetype=JSON,
        )
    return Response("ok\n", mimetype="text/plain")
