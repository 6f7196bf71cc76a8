"""Static files under a versioned URL: pages name each by ``asset(filename)``, which adds
a digest of its bytes (``/static/sparql-editor.js?v=3f2a9c01d2e4``). A request that names
the current digest is answered ``immutable`` for a year, gzipped where the client takes it
(the SPARQL editor's script: 1.0 MB, 0.3 MB gzipped); any other (no digest, an old one) is
the plain file with its own validators, as before. The digest changes with the file, so a
new release's pages name new URLs and no browser keeps an old script.
"""

from __future__ import annotations

import gzip
import hashlib
from functools import lru_cache
from pathlib import Path
from typing import cast

from flask import Flask, Response, request, url_for
from werkzeug.security import safe_join

#: The query parameter that carries a file's digest.
DIGEST = "v"
YEAR = 365 * 24 * 3600
#: What is worth compressing (images and fonts are compressed already).
COMPRESSED = ("text/css", "text/javascript", "application/javascript", "application/json")


@lru_cache(maxsize=64)
def _read(path: str, mtime_ns: int) -> tuple[str, bytes]:
    """A file's digest and its gzipped bytes (read once per file and change)."""
    data = Path(path).read_bytes()
    return hashlib.sha256(data).hexdigest()[:12], gzip.compress(data, compresslevel=9, mtime=0)


def _file(app: Flask, filename: str) -> tuple[str, bytes] | None:
    folder = app.static_folder
    path = safe_join(folder, filename) if folder else None
    if path is None or not Path(path).is_file():
        return None
    return _read(path, Path(path).stat().st_mtime_ns)


def register_assets(app: Flask) -> None:
    """Give templates ``asset(filename)`` and answer its URLs as the module says."""
    plain = app.view_functions["static"]

    def asset(filename: str) -> str:
        found = _file(app, filename)
        if found is None:
            raise FileNotFoundError(f"no static file {filename}")
        return url_for("static", filename=filename, v=found[0])  # v: DIGEST

    def static(filename: str) -> Response:
        response = cast(Response, plain(filename=filename))
        found = _file(app, filename)
        if response.status_code != 200 or found is None or request.args.get(DIGEST) != found[0]:
            return response
        digest, zipped = found
        response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
        response.vary.add("Accept-Encoding")
        if request.accept_encodings["gzip"] <= 0 or response.mimetype not in COMPRESSED:
            return response
        out = Response(zipped, mimetype=response.mimetype)
        out.headers["Content-Encoding"] = "gzip"
        out.headers["Cache-Control"] = response.headers["Cache-Control"]
        out.vary.add("Accept-Encoding")
        out.set_etag(f"{digest}-gzip")
        out.last_modified = response.last_modified
        response.close()
        return cast(Response, out.make_conditional(request))

    app.view_functions["static"] = static
    app.jinja_env.globals["asset"] = asset
