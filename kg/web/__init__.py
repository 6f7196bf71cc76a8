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
from .following.feeds import feeds_in_templates
from .http.assets import register_assets
from .http.cache import register_http_cache
from .http.errors import register_error_handlers
from .http.proxy import register_forwarded_headers
from .http.request_rules import register_request_rules
from .http.security import register_security
from .pages.answers import document_in_templates
from .routes import register_routes
from .sparql.lane import register_sparql_lane
from .state import AppState


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
    rules = register_routes(app)
    register_assets(app)
    app.context_processor(feeds_in_templates)
    app.context_processor(document_in_templates)
    register_request_rules(app, rules)
    register_http_cache(app)
    register_error_handlers(app)
    register_sparql_lane(app)  # inside the security headers, which wrap it
    register_security(app)
    register_forwarded_headers(app, settings)  # outermost: every part reads its result
    return app


def compile_templates(app: Flask) -> None:
    """Compile every page template now, in a worker starting up, rather than on the first
    request of each page kind: about 150 ms that a first search paid (bench/million.py)."""
    for name in app.jinja_env.list_templates():
        app.jinja_env.get_template(name)
