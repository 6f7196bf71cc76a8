"""Release pages: ``/release/<id>`` (the release node, as HTML or RDF) and its files
(``/release/<id>/<file>``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from flask import Response, request, send_file

from ...errors import NotFoundError
from ...kinds import kind_and_id
from ...rdf.negotiation import negotiate, split_suffix
from ...registry import Registry
from ...release.history import ReleaseDiff, diff_releases
from ...store.archive import ReleaseInfo
from ...store.licences import NOTICE_PREFIX
from ...store.records import describe
from ..http.cache import YEAR
from ..http.documents import RDF_DOCUMENTS, as_document, document_quads, node_stem
from ..http.request_rules import params
from ..state import state
from .answers import HTML, RDF_OFFERED, data_answer, render_page

#: The files of a release that can be downloaded, with their media types.
FILES = {
    "dump.nq.gz": "application/gzip",
    "manifest.json": "application/json",
    "release.ttl": "text/turtle",
}
#: Members listed on a release's page (all of them are in its manifest and dump).
LISTED = 500


@dataclass(frozen=True)
class ReleasePage:
    """What ``release.html`` shows."""

    info: ReleaseInfo
    manifest: dict[str, Any]
    following: str | None
    changes: ReleaseDiff | None
    kinds: list[tuple[str, int]]
    members: list[tuple[str, str, str]]
    more: int
    alternates: dict[str, str]


def release(name: str) -> Response:
    app = state()
    archive = app.archive
    ident, _, file = name.partition("/")
    if file:
        archive.release(ident)  # an unknown or malformed id is 404
        # besides its FILES, the notices of the upstream licences its manifest names
        notice = (
            file.startswith(NOTICE_PREFIX)
            and "/" not in file
            and (archive.release_dir(ident) / file).is_file()
        )
        if file not in FILES and not notice:
            raise NotFoundError(f"a release has no file {file!r} ({', '.join(FILES)})")
        response = send_file(
            archive.release_dir(ident) / file,
            mimetype=FILES.get(file, "text/plain"),
            download_name=f"claimgraph-{ident}-{file}",
            max_age=YEAR,
        )
        response.cache_control.immutable = True  # a release's files never change
        return response
    ident, suffix = split_suffix(ident)
    info = archive.release(ident)
    media_type = negotiate(
        request.headers.get("Accept"), RDF_OFFERED, suffix or params().get("format")
    )
    base = app.settings.base
    if media_type != "text/html":
        index = archive.index
        assert index is not None  # a release was found in it
        quads = describe(index, base, "release", ident)
        # the release node lives in the archive's index, not in a store of records
        index_registry = Registry(app.settings, read_only=True, store=index, archive=archive)
        if media_type in RDF_DOCUMENTS:
            topic = index_registry.iri("release", ident)
            quads = [*quads, *document_quads(node_stem("release", ident), topic)]
        answer = data_answer(index_registry, "release", ident, quads, media_type)
        return as_document(answer, node_stem("release", ident), media_type)
    manifest = archive.manifest(ident)
    members = [(*kind_and_id(graph, base), digest) for graph, digest in manifest["graphs"].items()]
    order = [r.id for r in archive.releases()]
    position = order.index(ident)
    following = order[position + 1] if position + 1 < len(order) else None
    changes = (
        diff_releases(app.registry(), info.previous, ident, details=False)
        if info.previous
        else None
    )
    context = ReleasePage(
        info=info,
        manifest=manifest,
        following=following,
        changes=changes,
        kinds=sorted(Counter(kind for kind, _, _ in members).items()),
        members=members[:LISTED],
        more=max(0, len(members) - LISTED),
        alternates={fmt: f"/release/{ident}.{fmt}" for fmt in ("ttl", "jsonld", "nt", "nq")},
    )
    return as_document(render_page("release.html", context), node_stem("release", ident), HTML)
