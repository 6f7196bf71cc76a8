"""Downloads that are files: the JSON-LD context and bulk dumps of the whole registry.

Dumps are made on demand and cached per store version: the first request for a dump of
the live version writes it (streamed from the store, :mod:`kg.export.dump`) under
``<dumps>/<version>/``; later requests get the file as it is, with its SHA-256 as ETag and
``Repr-Digest``. A ``kg load`` makes a new version, and the next request a new dump; the
caches of older versions are removed then. Waiting for one dump to be written is cheaper
for a server than streaming the whole store to every client, and the manifest can list
each file's hash only once the file is whole.
"""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

from flask import Response, send_file

from ...errors import NotFoundError
from ...export.dump import (
    MANIFEST,
    NANOPUB_DUMP,
    SERVED,
    SUMS,
    read_manifest,
    write_dump,
)
from ...rdf.formats import media_type_of
from ...rdf.jsonld import context_path
from ...store.licences import NOTICE_PREFIX
from ..state import AppState, state

#: Every file the server makes on demand, by name -> its format: the store's dumps and the
#: nanopublications'.
NANOPUB = "nanopub"
MADE = {**SERVED, f"{NANOPUB_DUMP}.gz": NANOPUB}


def jsonld_context() -> Response:
    """The JSON-LD context every JSON-LD document of the registry uses (inline there)."""
    response = send_file(context_path(), mimetype=media_type_of("jsonld"), conditional=True)
    # JSON-LD processors in browsers fetch contexts from other origins
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response


def dump(name: str) -> Response:
    """A bulk dump of the live store version (made on first request), its manifest, or
    the notice text of an upstream licence the manifest names (``LICENSE-<import>``)."""
    app = state()
    known = [*MADE, MANIFEST, SUMS]
    if name not in known and not name.startswith(NOTICE_PREFIX):
        raise NotFoundError(f"no dump named {name!r} (there are: {', '.join(known)})")
    folder = _ensure(app, [name] if name in MADE else list(MADE))
    path = folder / name
    if name not in MADE:
        if name not in known and name not in read_manifest(folder).get("notices", {}):
            raise NotFoundError(f"no licence notice named {name!r} beside the dumps")
        mimetype = media_type_of("json") if name == MANIFEST else "text/plain"
        return send_file(path, mimetype=mimetype, conditional=True)
    entry = read_manifest(folder)["files"][name]
    response = send_file(
        path,
        mimetype="application/gzip",
        as_attachment=True,
        download_name=name,
        conditional=True,
        etag=entry["sha256"],
    )
    digest = base64.b64encode(bytes.fromhex(entry["sha256"])).decode()
    response.headers["Repr-Digest"] = f"sha-256=:{digest}:"
    return response


def _ensure(app: AppState, names: list[str]) -> Path:
    """The cache folder of the live version, holding the files ``names`` (of :data:`MADE`)."""
    version = app.version
    root = app.settings.dumps  # absolute: load_settings resolves it where kg runs
    folder = root / (version or "store")
    with app.dump_lock:
        listed = read_manifest(folder).get("files", {}) if folder.is_dir() else {}
        for name in names:
            if name in listed and (folder / name).is_file():
                continue
            fmt = MADE[name]
            if fmt == NANOPUB:
                from ...export.nanopubs import write_nanopub_dump  # cryptography: when asked

                # the key and the releases, as the registry reads them
                write_nanopub_dump(app.registry(), folder, gzip=True, version=version)
            else:
                licences = (app.licence_parts, app.settings.data)
                write_dump(app.store, fmt, folder, gzip=True, version=version, licences=licences)
        for old in root.iterdir():
            if old.is_dir() and old != folder:  # a dump of a version no longer served
                shutil.rmtree(old, ignore_errors=True)
    return folder
