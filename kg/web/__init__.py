"""The linked-data browser: a Flask application factory.

::

    from kg.web import create_app
    app = create_app({"store": "/path/to/store"})
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from flask import Flask, Response, request

from ..config import Settings, load_settings
from ..rdf.formats import media_type_of
from ..rdf.negotiation import negotiate
from .boards import boards
from .browse import browse
from .downloads import downloads
from .errors import register_error_handlers
from .feeds import feeds
from .http_cache import register_http_cache
from .releases import releases
from .request_rules import params, register_request_rules
from .security import register_security
from .sparql import sparql
from .sparql_lane import register_sparql_lane
from .state import AppState
from .void import void

JSON = media_type_of("json")


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """A configured app. ``config`` keys: ``base``, ``store``, ``data`` (over the ``KG_``
    environment and the defaults), plus any Flask setting in upper case."""
    config = dict(config or {})
    app = Flask(__name__)
    app.config.update({k: v for k, v in config.items() if k.isupper()})
    known = {f.name for f in fields(Settings)}
    settings = load_settings({k: v for k, v in config.items() if k in known})
    app.extensions["kg"] = AppState(settings)
    if "MAX_CONTENT_LENGTH" not in config:  # Flask's own default is None: no limit
        # room for a query at the limit, percent-encoded in a form
        app.config["MAX_CONTENT_LENGTH"] = 4 * settings.max_query_bytes
    app.register_blueprint(browse)
    app.register_blueprint(boards)
    app.register_blueprint(downloads)
    app.register_blueprint(sparql)
    app.register_blueprint(releases)
    app.register_blueprint(feeds)
    app.register_blueprint(void)
    register_request_rules(app)
    register_http_cache(app)
    register_error_handlers(app)
    register_sparql_lane(app)  # inside the security headers, which wrap it
    register_security(app)

    @app.get("/healthz")
    def healthz() -> Response:
        """200 once the store is open; as JSON (Accept, ?format=json), what this server
        process reads and its response cache's figures (a process each: ``--workers``)."""
        app_state = app.extensions["kg"]
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

    return app
