"""The registry's nanopublications (docs/nanopublications.md): each record's, with the
versions its releases held, and those of the changes and runs said of it later; made on
demand, never loaded into the store, trusty, and signed where a key is set.

A record's nanopublication is made from its content alone (kg/export/nanopub.py). Where
the archive holds releases, the record's versions in them are read too, oldest first: a
version whose content differs from the one before is a nanopublication of its own that
supersedes the one before (``npx:supersedes`` in its publication info), so a record
changed between two releases gives a second nanopublication that supersedes the first,
and one that never changed keeps its first URI.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

import pyoxigraph as ox
from cryptography.hazmat.primitives.asymmetric import rsa

from ..errors import ConfigError, NotFoundError
from ..rdf.formats import media_type_of
from ..rdf.namespaces import CITO, DCTERMS, KG, PROV
from ..rdf.nanopub import NANOPUBLICATION, NP
from ..rdf.nanopub_make import load_private_key, make_trusty
from ..rdf.nanopub_signature import NPX
from ..registry import Registry
from ..store.archive import ReleaseInfo
from ..store.base import SCHEMA_ENTRY, solutions
from ..store.queries import internal_query
from ..store.records import graphs_about, record_closure
from .dump import NANOPUB_DUMP, DumpFile, Sink, write_listed
from .nanopub import pre_nanopub, quad, record_frame, stating
from .nanopub_activities import RUN, Closure, change_pres, run_pres

Made = tuple[str, list[ox.Quad]]  # (its trusty IRI, its quads)


class Publisher:
    """What makes a registry's pre-nanopublications trusty: its key and signer (where
    ``KG_NANOPUB_KEY`` names a key file), the operator's licence, and who publishes them:
    the signer where ``KG_NANOPUB_SIGNER`` names one, else the registry (its base IRI)."""

    def __init__(self, registry: Registry):
        settings = registry.settings
        self.key = None
        path = settings.nanopub_key
        if path is not None:
            try:
                self.key = _key(path, path.stat().st_mtime_ns)
            except (OSError, ValueError) as exc:
                problem = exc.strerror if isinstance(exc, OSError) else str(exc)
                raise ConfigError(
                    f"KG_NANOPUB_KEY names {path}, which gives no signing key: {problem} "
                    "(kg keys -o FILE makes one)"
                ) from None
        self.signer = settings.nanopub_signer or None
        self.licence = settings.licence
        self.agent = self.signer or registry.base

    def make(self, pre: list[ox.Quad]) -> Made:
        return make_trusty(pre, self.key, self.signer)


@lru_cache(maxsize=4)
def _key(path: Path, _changed: int) -> rsa.RSAPrivateKey:
    """The signing key in ``path``, read once while the file is unchanged (reading one
    checks the key: 50 ms, where a signature takes 1)."""
    return load_private_key(path.read_bytes())


def record_nanopub(registry: Registry, ident: str, closure: list[ox.Quad] | None = None) -> Made:
    """Record ``ident``'s nanopublication as the registry (or its release) holds it now;
    ``closure`` is the record's closure where the caller read it already.

    :raises NotFoundError: for an id no record has.
    """
    if closure is None:
        closure = _closure(registry, ident)
    return record_versions(registry, Publisher(registry), ident, closure)[-1]


class Released:
    """Which version of a record's graphs each release holds, oldest first, up to the
    registry's own release (all of them, for the live store).

    For one record (``whole=False``) the archive's index is asked for its graphs alone.
    For every record (``whole=True``) each release's manifest is read once, and the hash of
    each live graph a release holds the version of (by the file it was loaded from): a
    record whose graphs every release holds as they are now has no other version, and no
    release store is read for it.
    """

    def __init__(self, registry: Registry, whole: bool = False):
        self.registry = registry
        archive = registry.archive
        self.infos: list[ReleaseInfo] = []
        self.graphs: list[dict[str, str]] | None = None
        self.live: dict[str, str] | None = None
        if archive.index is None:
            return
        for info in archive.releases():
            self.infos.append(info)
            if info.id == registry.release:
                break
        if not whole:
            return
        self.graphs = [archive.manifest(info.id)["graphs"] for info in self.infos]
        if registry.release is None:
            manifest = registry.store.manifest()
            schema = manifest[SCHEMA_ENTRY].sha256 if SCHEMA_ENTRY in manifest else ""
            known = archive.known_versions(schema)
            self.live = {
                graph: known[(graph, entry.sha256)]
                for graph, entry in manifest.items()
                if (graph, entry.sha256) in known
            }

    def held(self, homes: list[str]) -> list[tuple[str, tuple[str | None, ...]]]:
        """Each release with the hashes of ``homes`` in it (None: not in it)."""
        if not self.infos:
            return []
        if self.graphs is not None:
            columns = [tuple(g.get(home) for home in homes) for g in self.graphs]
        else:
            history = [dict(self.registry.archive.history(home)) for home in homes]
            columns = [tuple(h.get(info) for h in history) for info in self.infos]
        return [(info.id, column) for info, column in zip(self.infos, columns, strict=True)]

    def unchanged(self, homes: list[str], held: list[tuple[str, tuple[str | None, ...]]]) -> bool:
        """Whether every release that holds the graphs ``homes`` holds them as they are
        now (known only where every release's manifest was read)."""
        if self.live is None:
            return False
        now = tuple(self.live.get(home) for home in homes)
        return None not in now and all(d == now or set(d) == {None} for _, d in held)


def record_versions(
    registry: Registry,
    publisher: Publisher,
    ident: str,
    closure: list[ox.Quad],
    released: Released | None = None,
) -> list[Made]:
    """Each version of record ``ident``'s nanopublication, oldest first: one per content
    its releases held (up to the registry's release, if it reads one) and the store holds,
    each superseding the one before; the last is the store's."""
    record = registry.iri("record", ident)
    current = pre_nanopub(closure, record, ident, publisher.licence, publisher.agent)
    contents: list[list[ox.Quad]] = []
    homes = sorted(g.value for g in stating(closure, record) if isinstance(g, ox.NamedNode))
    held = released or Released(registry)
    for pre in _released(registry, held, publisher, ident, record, homes):
        if not contents or set(pre) != set(contents[-1]):
            contents.append(pre)
    if not contents or set(current) != set(contents[-1]):
        contents.append(current)
    frame = record_frame(ident)
    made: list[Made] = []
    for pre in contents:
        if made:
            before = ox.NamedNode(made[-1][0])
            pre = [*pre, quad(frame.np, NPX + "supersedes", before, frame.pubinfo)]
        made.append(publisher.make(pre))
    return made


def _released(
    registry: Registry,
    released: Released,
    publisher: Publisher,
    ident: str,
    record: str,
    homes: list[str],
) -> Iterator[list[ox.Quad]]:
    """The record's pre-nanopublication in each release whose graphs that state it differ
    from the release before's, oldest first (none where no release differs from now)."""
    held = released.held(homes)
    if released.unchanged(homes, held):
        return
    before: tuple[str | None, ...] | None = None
    for release, digests in held:
        if any(d is not None for d in digests) and digests != before:
            store = registry.archive.release_store(release)
            try:
                quads = record_closure(store, registry.base, ident)
            except NotFoundError:
                quads = None
            if quads is not None:
                yield pre_nanopub(quads, record, ident, publisher.licence, publisher.agent)
        before = digests


def every_nanopub(
    registry: Registry, walk: Callable[[list[str]], Iterable[str]] = iter
) -> Iterator[Made]:
    """Every nanopublication of the registry: each record's versions and each change that
    ends it, record by record, then each run; ``walk`` goes through the record ids (a
    progress bar's wrapper)."""
    publisher, released = Publisher(registry), Released(registry, whole=True)
    store, base = registry.store, registry.base
    about = graphs_about(store)
    current: dict[str, str] = {}
    runs: dict[str, list[ox.Quad]] = {}
    for ident in walk(record_ids(registry)):
        quads = record_closure(store, base, ident, about)
        versions = record_versions(registry, publisher, ident, quads, released)
        yield from versions
        record = registry.iri("record", ident)
        current[record] = versions[-1][0]
        closure = Closure(quads)
        changes = change_pres(
            closure, record, ident, current[record], publisher.licence, publisher.agent
        )
        for _, pre in changes:
            yield publisher.make(pre)
        for run in closure.typed(RUN):
            if run.value not in runs:  # a run that judged several records: read once
                runs[run.value] = [q for q in quads if q.graph_name == closure.home[run]]
    made: set[str] = set()
    for graph in runs.values():
        for key, pre in run_pres(Closure(graph), publisher.licence, current.get, publisher.agent):
            if key not in made:
                made.add(key)
                yield publisher.make(pre)


def nanopub_trig(quads: list[ox.Quad]) -> bytes:
    """A nanopublication's quads as TriG, its graphs in the order a reader expects (head,
    assertion, provenance, publication info), with nanopub-java's prefixes for its own IRIs
    (``this:`` the nanopublication, ``sub:`` what is under it)."""
    order = {"Head": 0, "assertion": 1, "provenance": 2, "pubinfo": 3}
    ordered = sorted(quads, key=lambda q: order.get(str(q.graph_name).rsplit("/", 1)[-1][:-1], 4))
    typed = ox.NamedNode(NANOPUBLICATION)
    iri = next(
        (
            q.subject.value
            for q in ordered
            if q.object == typed and isinstance(q.subject, ox.NamedNode)
        ),
        None,
    )
    own = {"this": iri, "sub": iri + "/"} if iri is not None else {}
    prefixes = {
        **own,
        "np": NP,
        "npx": NPX,
        "prov": str(PROV),
        "dct": str(DCTERMS),
        "kg": str(KG),
        "cito": str(CITO),
    }
    return ox.serialize(ordered, format=ox.RdfFormat.TRIG, prefixes=prefixes) or b""


def record_ids(registry: Registry) -> list[str]:
    """The id of every record, sorted."""
    prefix = registry.iri("record", "")
    found = solutions(registry.store.query(internal_query("claims").text))
    return sorted(
        unquote(row["record"].value.removeprefix(prefix))
        for row in found
        if row["record"].value.startswith(prefix)
    )


def _closure(registry: Registry, ident: str) -> list[ox.Quad]:
    try:
        return record_closure(registry.store, registry.base, ident)
    except NotFoundError:
        raise NotFoundError(
            f"no record with id {ident!r} (a nanopublication is of a record)"
        ) from None


def write_nanopub_dump(
    registry: Registry,
    out_dir: Path,
    *,
    gzip: bool = False,
    version: str | None = None,
    walk: Callable[[list[str]], Iterable[str]] = iter,
) -> tuple[DumpFile, int]:
    """Every nanopublication (:func:`every_nanopub`) as TriG in ``out_dir/nanopubs.trig[.gz]``,
    listed in the directory's manifests like the dumps (``version``: the store version the
    manifest names, by default the store's); (the file, how many it holds)."""
    Publisher(registry)  # a key that cannot sign stops it before a file is begun
    made = 0

    def write(out: Sink) -> int:
        nonlocal made
        quads = 0
        for _, each in every_nanopub(registry, walk):
            out.write(nanopub_trig(each))
            quads += len(each)
            made += 1
        return quads

    name = NANOPUB_DUMP + (".gz" if gzip else "")
    if version is None:
        version = registry.store.version() or ""
    media_type = media_type_of("nanopub")
    entry = write_listed(out_dir, name, "nanopub", media_type, write, gzip, version)
    return entry, made
