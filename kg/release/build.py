"""Releases: the registry's content fixed under a content-addressed id.

A release holds every data graph the store holds (records, sources, agents,
evaluations, reviews, runs) as loaded. A graph version's hash is the SHA-256 of its
canonical N-Quads (RDFC-1.0), computed from the quads the mapping produces: a store
may write a typed literal in another lexical form (Oxigraph keeps
``"11.50"^^xsd:decimal`` as ``"11.5"`` and a ``positiveInteger`` as an ``integer``), so
what a store gives back is not hashed. The quads come from the data files the store's
load manifest names, each checked against the SHA-256 it had when it was loaded; a
version the archive holds already is not mapped again.

The release id is the issue date and the first 12 hex digits of the SHA-256 over the
sorted graph hashes (:func:`kg.rdf.canonical.content_hash`): the same content gives the
same id on any machine, and a release of unchanged content is the release there is.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import multiprocessing
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

import pyoxigraph as ox
from rdflib import BNode, Literal, URIRef
from rdflib.term import Node

from ..errors import InvalidDataError, ReleaseError, UsageError
from ..model.datafiles import display_name, read_data_file
from ..model.ingest import PARALLEL_FROM
from ..model.shacl import Index
from ..model.validation import engine, map_fitted
from ..rdf.canonical import content_hash, graph_version, sha256_hex
from ..rdf.namespaces import DCAT, DCTERMS, KG, PREFIXES, PROV, RDF, SPDX, XSD
from ..rdf.terms import to_quads
from ..registry import Registry
from ..store import EmbeddedStore, GraphStore
from ..store.archive import Archive, ReleaseInfo, StoredVersion
from ..store.figures import FIGURES_GRAPH, Figures
from ..store.licences import Part, licensing, parts
from ..store.load import SCHEMA_ENTRY
from ..store.ontology_graphs import ontology_graph_names, ontology_nquads

DUMP = "dump.nq.gz"
MANIFEST = "manifest.json"
NODE = "release.ttl"

Triple = tuple[Node, URIRef, Node]
Progress = Callable[[Iterable, int], Iterable]


@dataclass
class ReleaseReport:
    """What ``kg release`` did."""

    id: str
    created: bool
    graphs: int
    mapped: int  # graph versions new to the archive, mapped from their files
    previous: str | None
    seconds: float

    def summary(self) -> str:
        if not self.created:
            return f"nothing changed: the store's content is release {self.id}"
        since = f", a revision of {self.previous}" if self.previous else ", the first release"
        return (
            f"released {self.id}: {self.graphs} graph(s), {self.mapped} version(s) new to "
            f"the archive{since}, in {self.seconds:.2f} s"
        )


def issue_date(given: str | None) -> str:
    """The issue date: ``given`` (YYYY-MM-DD) or today (UTC).

    :raises UsageError: for anything but a real date in that form.
    """
    if given is None:
        return datetime.now(UTC).date().isoformat()
    try:
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", given):
            raise ValueError
        return date.fromisoformat(given).isoformat()
    except ValueError:
        raise UsageError(f"--date takes a date as YYYY-MM-DD (got {given!r})") from None


def release_id(issued: str, graph_hashes: Iterable[str]) -> str:
    """The id of a release of these graph versions issued on ``issued``."""
    return _id(issued, content_hash(graph_hashes))


def _id(issued: str, content: str) -> str:
    """The id of a release issued on ``issued`` whose content hash is ``content``."""
    return f"{issued}-{content[:12]}"


def make_release(
    registry: Registry, issued: str | None = None, note: str = "", progress: Progress | None = None
) -> ReleaseReport:
    """Release what the registry's store holds into its archive.

    :raises ReleaseError: when the store holds no data, or a data file is missing or has
        changed since it was loaded (nothing is released).
    :raises UsageError: for a malformed date.
    """
    started = time.perf_counter()
    issued = issue_date(issued)
    store, base = registry.store, registry.base
    manifest = store.manifest()
    schema_entry = manifest.get(SCHEMA_ENTRY)
    schema = schema_entry.sha256 if schema_entry is not None else ""
    members = {g: e for g, e in manifest.items() if g != SCHEMA_ENTRY}
    if not members:
        raise ReleaseError("nothing to release: the store holds no data (run 'kg load' first)")

    with Archive(registry.settings.archive_dir, write=True) as archive:
        known = archive.known_versions(schema)
        hashes: dict[str, str] = {}
        # Graphs to map again, by file (a kept upstream file holds several): each file once.
        by_file: dict[tuple[str, str], list[str]] = {}
        for graph, entry in sorted(members.items()):
            digest = known.get((graph, entry.sha256))
            if digest is not None:
                hashes[graph] = digest
            else:
                by_file.setdefault((entry.file, entry.sha256), []).append(graph)
        jobs = [(file, sha, graphs, schema, base) for (file, sha), graphs in by_file.items()]
        problems: list[str] = []

        def mapped() -> Iterator[StoredVersion]:
            for outcomes in _map_versions(jobs, progress):
                for graph, version, problem in outcomes:
                    if version is None:
                        problems.append(problem)
                    else:
                        hashes[graph] = version.hash
                        yield version

        new = archive.add_versions(mapped())
        if problems:
            raise ReleaseError(
                f"{len(problems)} data file(s) differ from what the store holds; nothing was "
                "released",
                sorted(problems),
            )

        content = content_hash(hashes.values())
        ident = _id(issued, content)
        releases = archive.releases()
        head = releases[-1] if releases else None
        same = next((r for r in releases if r.id == ident), None)
        if head is not None and head.sha256 == content:
            same = head
        if same is not None:
            return ReleaseReport(
                same.id, False, len(hashes), new, same.previous, time.perf_counter() - started
            )
        counted = all(entry.triples >= 0 for entry in members.values())
        _write_release(
            archive,
            store,
            base,
            ident,
            issued,
            note,
            head,
            content,
            hashes,
            Figures.of(members) if counted else None,
            (parts(store, registry.settings.licence), registry.settings.data),
        )
    return ReleaseReport(
        ident, True, len(hashes), new, head.id if head else None, time.perf_counter() - started
    )


# -- mapping graph versions from their files ------------------------------------------------
Job = tuple[str, str, list[str], str, str]  # file, its SHA-256, its graphs, schema, base


def _map_versions(jobs: list[Job], progress: Progress | None):
    """For each job (a file), (graph, version or None, problem) for each of its graphs; on
    every core for large batches."""
    workers = min(os.cpu_count() or 1, 8)
    stream: Iterator[list[tuple[str, StoredVersion | None, str]]]
    if len(jobs) >= PARALLEL_FROM and workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            stream = pool.imap(_map_version, jobs, chunksize=64)
            yield from (progress(stream, len(jobs)) if progress else stream)
    else:
        stream = map(_map_version, jobs)
        yield from (progress(stream, len(jobs)) if progress and jobs else stream)


def _map_version(job: Job) -> list[tuple[str, StoredVersion | None, str]]:
    """The versions of a file's graphs, mapped again from the file they were loaded from."""
    file, sha, graphs, schema, base = job
    path = Path(file)

    def failed(problem: str) -> list[tuple[str, StoredVersion | None, str]]:
        return [(graph, None, problem) for graph in graphs[:1]]  # one line per file

    try:
        raw = path.read_bytes()
    except OSError:
        return failed(
            f"{display_name(path)}: missing (the store holds its graph {graphs[0]}; run 'kg load')"
        )
    if hashlib.sha256(raw).hexdigest() != sha:
        return failed(f"{display_name(path)}: changed since it was loaded (run 'kg load' first)")
    try:
        mapped = map_fitted(read_data_file(path, raw), base).mapped
    except InvalidDataError as exc:
        return failed(f"{exc.problems[0]} (run 'kg load' first)")
    made = {str(graph): triples for graph, _, triples in mapped.graphs()}
    out: list[tuple[str, StoredVersion | None, str]] = []
    for graph in graphs:
        if graph not in made:
            holds = (
                f"now holds {mapped.graph}, not {graph}"
                if len(made) == 1
                else (f"no longer holds {graph}")
            )
            out.append((graph, None, f"{display_name(path)}: {holds} (run 'kg load' first)"))
            continue
        version = graph_version(to_quads(made[graph], graph))
        body = gzip.compress(version.nquads.encode(), compresslevel=6, mtime=0)
        out.append(
            (graph, StoredVersion(graph, sha, schema, version.hash, version.quads, body), "")
        )
    return out


# -- writing a release --------------------------------------------------------------------
def release_iri(base: str, ident: str) -> str:
    return f"{base}release/{ident}"


def release_triples(
    base: str,
    ident: str,
    issued: str,
    note: str,
    previous: ReleaseInfo | None,
    content: str,
    hashes: dict[str, str],
) -> list[Triple]:
    """The release node: a prov:Bundle and dcat:Dataset, its members with their hashes."""
    release = URIRef(release_iri(base, ident))
    # Blank-node labels made from the content, so the same release is the same text.
    checksum = BNode(f"c{sha256_hex(ident)[:24]}")
    dump = URIRef(f"{release}/{DUMP}")
    triples: list[Triple] = [
        (release, RDF.type, PROV.Bundle),
        (release, RDF.type, DCAT.Dataset),
        (release, DCTERMS.identifier, Literal(ident)),
        (release, DCTERMS.title, Literal(f"claimgraph release {ident}")),
        (release, DCTERMS.issued, Literal(issued, datatype=XSD.date)),
    ]
    if note:
        triples.append((release, DCTERMS.description, Literal(note)))
    if previous is not None:
        triples.append((release, PROV.wasRevisionOf, URIRef(previous.iri)))
    triples += [(release, SPDX.checksum, checksum), (release, DCAT.distribution, dump)]
    members = [(BNode(f"v{digest}"), graph, digest) for graph, digest in sorted(hashes.items())]
    triples += [(release, DCTERMS.hasPart, member) for member, _, _ in members]
    triples += [
        (checksum, RDF.type, SPDX.Checksum),
        (checksum, SPDX.algorithm, SPDX.checksumAlgorithm_sha256),
        (checksum, SPDX.checksumValue, Literal(content)),
        (dump, RDF.type, DCAT.Distribution),
        (dump, DCAT.downloadURL, dump),
        (dump, DCAT.mediaType, Literal("application/n-quads")),
        (dump, DCAT.compressFormat, Literal("application/gzip")),
    ]
    for member, graph, digest in members:
        triples += [
            (member, PROV.specializationOf, URIRef(graph)),
            (member, KG.graphHash, Literal(digest)),
        ]
    return triples


def check_release_node(triples: list[Triple], previous: ReleaseInfo | None) -> None:
    """The release node passes the shapes (the previous release is known to be one).

    :raises ReleaseError: listing what does not.
    """
    index = Index()
    index.add_distinct(triples)
    if previous is not None:
        index.add(URIRef(previous.iri), RDF.type, PROV.Bundle)
    focus = {s for s, p, o in triples if p == RDF.type}
    results = engine().validate(index, focus)
    if results:
        raise ReleaseError(
            "the release node does not pass the shapes",
            [f"{r.focus} {r.path}: {r.message or r.component} ({r.value})" for r in results],
        )


def _write_release(
    archive: Archive,
    store: GraphStore,
    base: str,
    ident: str,
    issued: str,
    note: str,
    previous: ReleaseInfo | None,
    content: str,
    hashes: dict[str, str],
    figures: Figures | None,
    licences: tuple[list[Part], Path],
) -> None:
    """The release's files (its parts' licences too) and store, then its index node (commit)."""
    triples = release_triples(base, ident, issued, note, previous, content, hashes)
    check_release_node(triples, previous)
    iri = release_iri(base, ident)
    quads = list(to_quads(triples, iri))

    final = archive.release_dir(ident)
    work = final.with_name(f".{ident}.tmp")
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(final, ignore_errors=True)  # left by a release that never reached the index
    work.mkdir(parents=True)
    order = sorted(hashes)
    digest = hashlib.sha256()
    size = 0
    with (work / DUMP).open("wb") as out:
        # Each version is a gzip member: the dump is their concatenation, never recompressed.
        for body in archive.version_bodies(hashes[g] for g in order):
            out.write(body)
            digest.update(body)
            size += len(body)
    turtle = ox.serialize(
        [ox.Triple(q.subject, q.predicate, q.object) for q in quads],
        format=ox.RdfFormat.TURTLE,
        prefixes=PREFIXES,
    )
    assert turtle is not None  # no output given: the bytes are returned
    (work / NODE).write_bytes(turtle)
    (work / MANIFEST).write_text(
        json.dumps(
            {
                "id": ident,
                "iri": iri,
                "issued": issued,
                "note": note,
                "previous": previous.id if previous else None,
                "sha256": content,
                "base": base,
                "dump": {
                    "file": DUMP,
                    "sha256": digest.hexdigest(),
                    "bytes": size,
                    "media_type": "application/n-quads",
                    "compression": "gzip",
                },
                "graphs": {g: hashes[g] for g in order},
                **licensing(licences, work),
            },
            indent=1,
        )
    )
    if not store.snapshot(work / "store"):
        build_release_store(work / "store", work / DUMP, order, figures, base)
    os.replace(work, final)
    index = archive.index
    assert index is not None
    index.replace_graphs({iri: quads})


def build_release_store(
    target: Path, dump: Path, graphs: list[str], figures: Figures | None = None, base: str = ""
) -> None:
    """A release's store built from its dump, the ontology and its ``figures`` (under
    ``base``; kg.store.figures), for a store that cannot
    :meth:`~kg.store.base.GraphStore.snapshot` itself."""
    with tempfile.NamedTemporaryFile(prefix="kg-release-", suffix=".nq") as plain:
        with gzip.open(dump) as source:
            shutil.copyfileobj(source, plain)
        plain.write(ontology_nquads())
        named = [*graphs, *sorted(ontology_graph_names())]
        if figures is not None:
            plain.write(figures.nquads(base))
            named.append(FIGURES_GRAPH)
        plain.flush()
        with EmbeddedStore(target) as writer:
            writer.load_nquads(Path(plain.name), named)
