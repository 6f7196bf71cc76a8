"""Bulk dumps of the whole store, streamed, with a SHA-256 manifest.

The store's quads are read one at a time (:meth:`GraphStore.quads`) and written as they
come by pyoxigraph's streaming serializers: N-Quads; TriG and JSON-LD with one graph block
(one ``{"@id": graph, "@graph": [...]}`` object, expanded: full IRIs, no context) per run
of quads of a named graph. Nothing holds the whole graph, so memory stays flat however big
the store is. A gzip dump is written with a zero timestamp and no file name in its header,
so the same store gives the same bytes (and the same SHA-256) every time.

A dump directory holds the dump files and two manifests of them: ``manifest.json`` (each
file's SHA-256, size, quads, format, and the store version dumped) and ``SHA256SUMS``
(for ``sha256sum -c``). Dumping another format of the same store version into the
directory adds to the manifest; a dump of another version starts it afresh.

The manifest also says which licence applies to which part of what is dumped
(:mod:`kg.store.licences`: an import's upstream licence, the operator's setting for the
rest, the quotations' rights), and the notice text of each upstream licence is copied
beside the dumps (``LICENSE-<import>``, listed in both manifests).
"""

from __future__ import annotations

import datetime as dt
import gzip as gz
import hashlib
import itertools
import json
import operator
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Protocol

import pyoxigraph as ox

from .. import __version__
from ..errors import UsageError
from ..rdf.formats import FORMATS, Format
from ..store import GraphStore
from ..store.licences import Part, licensing

#: Dump formats: name -> the format (its file suffix, pyoxigraph format and media type).
DUMP_FORMATS: dict[str, Format] = {fmt.dump: fmt for fmt in FORMATS if fmt.dump}
STEM = "claimgraph"
MANIFEST = "manifest.json"
#: The file of every nanopublication (kg.export.nanopubs), listed beside the dumps.
NANOPUB_DUMP = "nanopubs.trig"
SUMS = "SHA256SUMS"


@dataclass(frozen=True)
class DumpFile:
    """One dump file as the manifest lists it."""

    name: str
    format: str
    media_type: str
    gzip: bool
    sha256: str
    bytes: int
    quads: int


def dump_name(fmt: str, gzip: bool) -> str:
    """The file name of a dump: ``claimgraph.nq``, ``claimgraph.jsonld.gz``, ...

    :raises UsageError: for a format that is not a dump format.
    """
    if fmt not in DUMP_FORMATS:
        raise UsageError(f"unknown dump format {fmt!r} (one of: {', '.join(DUMP_FORMATS)})")
    return f"{STEM}.{DUMP_FORMATS[fmt].name}" + (".gz" if gzip else "")


class Sink(Protocol):
    """Where a dump is written: a file, or gzip over one."""

    def write(self, data: bytes, /) -> int: ...


class _HashingWriter:
    """A binary sink that hashes and counts what passes through to ``out``."""

    def __init__(self, out: IO[bytes]):
        self.out = out
        self.sha = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> int:
        self.sha.update(data)
        self.size += len(data)
        return self.out.write(data)

    def flush(self) -> None:
        self.out.flush()


#: The dumps a server offers: file name -> format. Always gzipped: whole registries.
SERVED: dict[str, str] = {dump_name(fmt, gzip=True): fmt for fmt in DUMP_FORMATS}


def write_dump(
    store: GraphStore,
    fmt: str,
    out_dir: Path,
    *,
    gzip: bool = False,
    version: str = "",
    licences: tuple[list[Part], Path] | None = None,
) -> DumpFile:
    """Stream every quad of ``store`` into ``out_dir/claimgraph.<ext>[.gz]`` and list the file
    in the directory's manifests. The file appears whole or not at all (written aside,
    then renamed). ``version`` names the store version dumped, for the manifest;
    ``licences``, the store's parts (:func:`kg.store.licences.parts`) and the data folder
    their notices are in, for the manifest's licences and the notice files.

    :raises UsageError: for a format that is not a dump format.
    """
    name = dump_name(fmt, gzip)
    dumped = DUMP_FORMATS[fmt]

    def write(out: Sink) -> int:
        counter = itertools.count()
        # Counted in C (zip, map, itemgetter): no Python call per quad.
        quads = map(operator.itemgetter(0), zip(store.quads(), counter, strict=False))
        # the stub asks for IO[bytes]; pyoxigraph writes to anything with write()
        ox.serialize(quads, output=out, format=dumped.rdf)  # type: ignore[arg-type]
        return next(counter)

    return write_listed(out_dir, name, fmt, dumped.media_type, write, gzip, version, licences)


def write_listed(
    out_dir: Path,
    name: str,
    fmt: str,
    media_type: str,
    write: Callable[[Sink], int],
    gzip: bool,
    version: str,
    licences: tuple[list[Part], Path] | None = None,
) -> DumpFile:
    """Write ``out_dir/name`` with ``write`` (which gives the number of quads it wrote),
    gzipped where asked, whole or not at all, and list it in the directory's manifests."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / name
    temporary = out_dir / f".{name}.{os.getpid()}.tmp"
    try:
        with temporary.open("wb") as raw:
            sink = _HashingWriter(raw)
            if gzip:
                with gz.GzipFile(
                    filename="", mode="wb", fileobj=sink, mtime=0, compresslevel=6
                ) as packed:
                    count = write(packed)
            else:
                count = write(sink)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    entry = DumpFile(
        name=name,
        format=fmt,
        media_type=media_type,
        gzip=gzip,
        sha256=sink.sha.hexdigest(),
        bytes=sink.size,
        quads=count,
    )
    _record(out_dir, entry, version, licences)
    return entry


def read_manifest(out_dir: Path) -> dict:
    """The manifest of a dump directory (empty when there is none)."""
    path = out_dir / MANIFEST
    return json.loads(path.read_text()) if path.is_file() else {}


def _record(
    out_dir: Path, entry: DumpFile, version: str, licences: tuple[list[Part], Path] | None
) -> None:
    """Add ``entry`` to the directory's manifest.json and SHA256SUMS (written aside, then
    renamed, so a reader never sees half of one), with the licences and their notices."""
    manifest = read_manifest(out_dir)
    if manifest.get("store_version") != version:
        manifest = {}
    files = {**manifest.get("files", {}), entry.name: asdict(entry)}
    told = {"licences": manifest.get("licences", []), "notices": manifest.get("notices", {})}
    if licences is not None:
        told = licensing(licences, out_dir)
    manifest = {
        "generator": f"claimgraph {__version__}",
        "store_version": version,
        "updated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "files": dict(sorted(files.items())),
        **told,
    }
    sums = "".join(
        f"{digest}  {name}\n"
        for name, digest in sorted(
            [*((n, f["sha256"]) for n, f in manifest["files"].items()), *told["notices"].items()]
        )
    )
    for path, text in (
        (out_dir / MANIFEST, json.dumps(manifest, indent=2) + "\n"),
        (out_dir / SUMS, sums),
    ):
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_text(text)
        os.replace(temporary, path)
