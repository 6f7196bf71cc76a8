"""What a batch decides once all its files are in: the class checks on values other files
define, and the SHACL-SPARQL constraints, which join across files.

What it keeps of each file as files come in is small (:class:`Gathered`): each node's
types and the file stating it (a SQLite table), each file's distinct class checks, and the
triples the constraints read, the table and the triples on disk for a large batch. So a
batch's memory grows with its files' outcomes, not with their nodes or content.
"""

from __future__ import annotations

import contextlib
import io
import re
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import pyoxigraph as ox
from rdflib import URIRef

from ..errors import Problem, WorkingFilesError
from ..malloc import give_back_free_pages
from ..rdf.namespaces import RDF
from ..rdf.terms import bulk_extend, to_ox
from ..rdf.vocabulary import load_terms
from .cascades import without_cascades
from .datafiles import read_data_file
from .file_ingest import FileOutcome, Obligation, ingest_file
from .shacl import Deferred, Index
from .validation import Translator, engine, map_fitted

_IRI = re.compile(rb"<[^>]*>")


class Gathered:
    """What a batch keeps of its files as they come in, in little memory: each typed
    node's classes and the file stating it, in a SQLite table (on disk for a large batch:
    a million results type about 6.7 million nodes, 1.6 GB as Python strings), what each
    file needs of others (its distinct class checks), and the triples the SHACL-SPARQL
    constraints read, spooled to a temporary file for a large batch (kept in memory for a
    small one). A file's own lists are dropped once taken: a failure (rare) maps the file
    again for them."""

    def __init__(self, on_disk: bool, keep_nodes: bool = True):
        self._keep_nodes = keep_nodes
        self._strings: dict[str, str] = {}
        self._keys: dict[tuple[str, str], tuple[str, str]] = {}
        self._class_ids: dict[str, int] = {}
        self._class_names: list[str] = []  # by id
        self._files: list[str] = []
        #: one obligation of each (value, shape): what deciding it needs
        self.samples: dict[tuple[str, str], Obligation] = {}
        self._folder = tempfile.TemporaryDirectory(prefix="kg-ingest-") if on_disk else None
        self._sparql: BinaryIO = io.BytesIO()
        where = ":memory:"
        if self._folder is not None:  # closed by __exit__
            self._sparql = (Path(self._folder.name) / "sparql.nq").open("w+b")
            where = str(Path(self._folder.name) / "types.sqlite")
        with self._writing():
            self._db = sqlite3.connect(where, isolation_level=None)
            self._db.executescript(
                "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
                "CREATE TABLE typed (node TEXT NOT NULL, class INTEGER NOT NULL, file INTEGER);"
            )
            self._db.execute("BEGIN")  # one transaction while the files come in
        self._indexed = False

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Its own files' errors (a full disk) as one message."""
        try:
            yield
        except (OSError, sqlite3.Error) as exc:
            folder = self._folder.name if self._folder is not None else "memory"
            raise WorkingFilesError(
                f"cannot write the batch's working files in {folder}: {exc}; "
                "nothing was written to the store"
            ) from None

    def __enter__(self) -> Gathered:
        return self

    def __exit__(self, *exc: object) -> None:
        self._db.close()
        with contextlib.suppress(OSError):  # a full disk's buffered bytes: discarded anyway
            self._sparql.close()
        if self._folder is not None:
            self._folder.cleanup()

    def take(self, outcomes: Iterable[FileOutcome]) -> Iterator[FileOutcome]:
        intern = self._strings.setdefault
        for o in outcomes:
            file = len(self._files)
            self._files.append(o.path)
            with self._writing():
                self._db.executemany(
                    "INSERT INTO typed VALUES (?, ?, ?)",
                    ((node, self._class_id(cls), file) for node, cls in o.types),
                )
                self._sparql.write(o.sparql_quads)
            if self._keep_nodes:
                o.nodes = tuple(dict.fromkeys(node for node, _ in o.types))
            needs = set()
            for ob in o.obligations:
                key = (intern(ob.value, ob.value), intern(ob.shape, ob.shape))
                key = self._keys.setdefault(key, key)
                self.samples.setdefault(key, ob)
                needs.add(key)
            o.needs = tuple(needs)
            o.types, o.obligations, o.sparql_quads = [], [], b""
            yield o

    def _class_id(self, cls: str) -> int:
        found = self._class_ids.get(cls)
        if found is None:
            found = self._class_ids[cls] = len(self._class_names)
            self._class_names.append(cls)
        return found

    def _ready(self) -> sqlite3.Connection:
        """The table, indexed by node once every file is in."""
        if not self._indexed:
            with self._writing():
                if self._db.in_transaction:
                    self._db.execute("COMMIT")
                self._db.execute("CREATE INDEX typed_by_node ON typed(node)")
            self._indexed = True
        return self._db

    def add_types(self, found: dict[str, set[str]]) -> None:
        """Types of nodes no file of the batch states (what the store holds)."""
        with self._writing():
            self._ready().executemany(
                "INSERT INTO typed VALUES (?, ?, NULL)",
                ((node, self._class_id(cls)) for node, classes in found.items() for cls in classes),
            )

    def typed(self, nodes: Iterable[str]) -> set[str]:
        """Those of ``nodes`` that something types."""
        found: set[str] = set()
        listed = sorted(set(nodes))
        for start in range(0, len(listed), 500):
            part = listed[start : start + 500]
            found.update(
                n
                for (n,) in self._ready().execute(
                    f"SELECT DISTINCT node FROM typed WHERE node IN ({', '.join('?' * len(part))})",
                    part,
                )
            )
        return found

    def types_of(self, node: str) -> set[str]:
        return {
            self._class_names[i]
            for (i,) in self._ready().execute("SELECT class FROM typed WHERE node = ?", (node,))
        }

    def of_classes(self, classes: set[str]) -> Iterator[str]:
        """Every node typed with one of ``classes``."""
        ids = [self._class_ids[c] for c in classes if c in self._class_ids]
        if ids:
            yield from (
                n
                for (n,) in self._ready().execute(
                    f"SELECT DISTINCT node FROM typed WHERE class IN ({', '.join('?' * len(ids))})",
                    ids,
                )
            )

    def owner(self, node: str) -> str | None:
        """The path of the first file of the batch that states ``node``."""
        found = (
            self._ready()
            .execute(
                "SELECT file FROM typed WHERE node = ? AND file IS NOT NULL ORDER BY rowid LIMIT 1",
                (node,),
            )
            .fetchone()
        )
        return self._files[found[0]] if found else None

    def sparql_store(self) -> ox.Store:
        """A store of the triples the constraints name, from every file of the batch: on
        disk for a large batch."""
        with self._writing():
            self._sparql.flush()
            if self._folder is None:
                assert isinstance(self._sparql, io.BytesIO)
                store = ox.Store()
                store.bulk_load(self._sparql.getvalue(), format=ox.RdfFormat.N_QUADS)
                return store
            give_back_free_pages()  # what the ingest freed, before the bulk load's own peak
            store = ox.Store(str(Path(self._folder.name) / "store"))
            sparql = Path(self._folder.name) / "sparql.nq"
            bulk_extend(store, ox.parse(path=str(sparql), format=ox.RdfFormat.N_QUADS))
            return store


def class_problems(
    good: list[FileOutcome], gathered: Gathered, failed_nodes: set[str], base: str, eng
) -> list[Problem]:
    """The class checks on values other files define, decided once per value and shape
    against every type the batch (and the store) declares."""
    shapes = {str(k): c for k, c in eng._compiled.items()}
    decided: dict[tuple[str, str], list[str]] = {}  # many files refer to the same few nodes
    types: dict[str, set[str]] = {}
    problems: list[Problem] = []
    for o in good:
        failing = set()
        for key in o.needs:
            value, shape = key
            if value not in types:
                types[value] = gathered.types_of(value)
            if value in failed_nodes and not types[value]:
                continue
            components = decided.get(key)
            if components is None:
                sample = gathered.samples[key]
                item = Deferred(
                    URIRef(sample.focus), URIRef(sample.path), URIRef(value), shapes[shape]
                )
                components = decided[key] = eng.check_deferred(
                    item, [URIRef(t) for t in types[value]]
                )
            if components:
                failing.add(key)
        if failing:  # rare: the file's obligations again, each with its focus and path
            failed = [
                Deferred(
                    URIRef(ob.focus), URIRef(ob.path), URIRef(ob.value), shapes[ob.shape]
                ).result(component)
                for ob in ingest_file((Path(o.path), base)).obligations
                if (ob.value, ob.shape) in failing
                for component in decided[(ob.value, ob.shape)]
            ]
            problems += _translate(o, failed, base)
    return problems


def sparql_problems(
    good: list[FileOutcome], gathered: Gathered, base: str, external: dict[str, set[str]]
) -> list[Problem]:
    eng = engine()
    focus_by_shape: dict = {}
    for shape in eng.node_shapes:
        if shape.sparql:
            classes = {str(c) for t in shape.targets for c in eng._subclasses(t)}
            focus = {URIRef(n) for n in gathered.of_classes(classes)}
            if focus:
                focus_by_shape[shape.shape] = focus
    if not focus_by_shape:
        return []
    # The triples the constraints name (rdf:type included), from every file of the batch.
    store = gathered.sparql_store()
    extra = [(s, p, o) for s, p, o in load_terms().graph if p in eng.sparql_predicates]
    extra += [
        (URIRef(node), RDF.type, URIRef(cls))
        for node, classes in external.items()
        for cls in classes
    ]
    store.extend(
        ox.Quad(to_ox(s), to_ox(p), to_ox(o), ox.DefaultGraph())  # type: ignore[arg-type]
        for s, p, o in extra
    )
    by_path = {o.path: o for o in good}
    remapped: dict[str, Index] = {}

    def file_index(node) -> tuple[FileOutcome | None, Index]:
        path = gathered.owner(str(node))
        if path is None or path not in by_path:
            return None, Index()
        if path not in remapped:  # rare: only for a violation
            index = Index()
            index.add_all(map_fitted(read_data_file(Path(path)), base).mapped.triples)
            remapped[path] = index
        return by_path[path], remapped[path]

    def written(node, predicate):
        _, index = file_index(node)
        return list(index.spo.get(node, {}).get(predicate, ()))

    found: dict[str, tuple[FileOutcome, list]] = {}
    for result in eng.sparql_results(store, focus_by_shape, written):
        outcome, _ = file_index(result.focus)
        if outcome is not None:
            found.setdefault(outcome.path, (outcome, []))[1].append(result)
    del store
    own = {o.path for o in good if o.problems}  # files failing on their own already
    refers = {
        path: {o for n in _iris(path, base) if (o := gathered.owner(n)) is not None}
        for path in own | set(found)
    }
    kept = without_cascades(
        {path: r for path, (_, r) in found.items()}, refers, joins=lambda _: True, troubled=own
    )
    return [p for path, results in kept.items() for p in _translate(found[path][0], results, base)]


def _iris(path: str, base: str) -> set[str]:
    """The IRIs the triples a file gives the SPARQL constraints name (the file read again:
    only a failing file's are asked for)."""
    quads = ingest_file((Path(path), base)).sparql_quads
    return {m[1:-1].decode() for m in _IRI.findall(quads)}


def _translate(outcome: FileOutcome, results: list, base: str) -> list[Problem]:
    """Results about one file in terms of the file: map it again for its origins."""
    mapped = map_fitted(read_data_file(Path(outcome.path)), base).mapped
    return Translator([mapped], load_terms().graph).problems(results)
