"""The linked-data browser: a Flask application factory.

::

    from kg.web import create_app
    app = create_app({"store": "/path/to/store"})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from flask import Flask

from ..config import Settings, load_settings
from .boards import boards
from .browse import browse
from .downloads import downloads
from .errors import register_error_handlers
from .feeds import feeds
from .http_cache import register_http_cache
from .releases import releases
from .request_rules import register_request_rules
from .security import register_security
from .sparql import sparql
from .state import AppState
from .void import void


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """A configured app. ``config`` keys: ``base``, ``store``, ``data`` (over the ``KG_``
    environment and the defaults), plus any Flask setting in upper case."""
    config = dict(config or {})
    app = Flask(__name__)
    app.config.update({k: v for k, v in config.items() if k.isupper()})
    known = {f.name for f in fields(Settings)}
    settings = load_settings({k: v for k, v in config.items() if k in known})
    app.extensions["kg"] = AppState(settings)
    app.config.setdefault("MAX_CONTENT_LENGTH", 4 * settings.max_query_bytes)
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
    register_security(app)

    @app.get("/healthz")
    def healthz() -> tuple[str, int, dict[str, str]]:
        app.extensions["kg"].store  # noqa: B018 (opening the store is the readiness check)
        return "ok\n", 200, {"Content-Type": "text/plain; charset=utf-8"}

    return app
