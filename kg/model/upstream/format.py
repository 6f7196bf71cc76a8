"""What an upstream format is: the one protocol every format package implements.

A format is another registry's kind of result file (Every Eval Ever's evaluation files,
...). claimgraph keeps such files byte for byte as evidence (:mod:`.kept`) and reads them
through the format's object, a subclass of :class:`UpstreamFormat` registered once in
:mod:`.formats`. Its operations are pure: bytes, documents and graphs in, the same out; no
store, no settings. The features (``kg import``, ``kg verify``, ``kg export``, the pages)
find a format by its name or media type in :mod:`.formats` and never name one.

The kept files of every format are JSON documents (read with their numbers as written,
:mod:`.jsondoc`), and each record's locator is an RFC 6901 JSON Pointer into its file:
what the machinery around a format (keeping, verifying, Web Annotations) relies on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...rdf.formats import Format

if TYPE_CHECKING:
    import pyoxigraph as ox
    from rdflib import URIRef

    from ...rdf.facts import Facts
    from ..mapping.context import Origins, Triple
    from ..standing import Standing
    from .kept import KeptFile

    #: A kept file as graphs: its triples, their origins, and its graphs as (IRI, label,
    #: end of its triples), the file's own graph first.
    Mapped = tuple[list[Triple], Origins, list[tuple[URIRef, str, int]]]


@dataclass
class Checked:
    """A file read and checked: the document (None when it is not JSON), its problems as
    (pointer, message), and the places it has fields the known schema does not describe."""

    doc: Any
    problems: list[tuple[str, str]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    #: Its schema version's schema is known only in part, or not at all (a newer version):
    #: it is held to the nearest known one with unknown fields allowed (and counted).
    newer: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems


class UpstreamFormat(ABC):
    """One upstream format: what it is called, and the pure operations claimgraph needs of
    it. A format package makes one instance; :func:`kg.model.upstream.formats.register`
    makes it known to every feature."""

    #: Its name: ``kg import NAME``, the import records' ``format``, ``kg export --format``.
    name: str
    #: How it is called in titles ("Every Eval Ever").
    title: str
    #: The repository its files come from when ``--origin`` names no other.
    home: str
    #: Its row in the table of formats: the media type and suffix of a record exported in it
    #: (``/record/ID.eee.json``), and the names ``--format`` and ``?format=`` accept.
    media_type: Format
    #: The folder of an origin repository that holds its files (``data/``): a file's path
    #: in the origin starts with it, and sources are found by it (:mod:`.sources`).
    results_root: str
    #: The schema versions it knows (a file of another is held to the nearest one below it,
    #: leniently).
    schema_versions: tuple[str, ...]
    #: The kinds of node that export as one of its files.
    exported_kinds: tuple[str, ...] = ("record", "evaluation")
    #: ``kg import NAME``'s help (click's: a first line, then paragraphs).
    import_help: str = ""
    #: What ``kg export --format NAME`` writes, for the option's help.
    export_help: str = ""

    @abstractmethod
    def check(self, raw: bytes) -> Checked:
        """Read and check one file's bytes: the document and every problem, by pointer."""

    @abstractmethod
    def label(self, import_name: str, upstream_path: str, doc: Any, where: str) -> str:
        """What a problem at ``where`` in a file belongs to, as messages name it
        (``record <id>``, ``evaluation <id>``)."""

    @abstractmethod
    def results(self, doc: Any) -> int:
        """How many results (records) a document holds."""

    @abstractmethod
    def map(
        self, kept: KeptFile, base: str, as_written: frozenset[tuple[str, str, str]] = frozenset()
    ) -> Mapped:
        """One kept (and checked) file as graphs, the file's own first. A value the shapes
        refused in an earlier mapping, named in ``as_written`` by (subject, predicate,
        JSON Pointer), is kept as written in place of its typed statement
        (:func:`kg.model.validation.map_fitted`)."""

    @abstractmethod
    def shared_nodes(self, doc: dict[str, Any]) -> dict[str, Any]:
        """What a checked document names of the nodes its import states once: ``model``
        (a key), ``benchmarks`` (dicts with ``id``, as the import record lists them),
        ``source`` (a dict with ``id``, ``title`` and optionally ``publisher``, ``url``,
        as its source file states it, and ``pointers``: the JSON Pointer of each), and
        ``pointers``: where the file gives the ``model``; optionally ``model_facts`` (the
        model's ``id`` as written, ``name``, ``developer``, ``params_billions``) and
        ``datasets`` ((benchmark id, Hugging Face data set repository or None) per result),
        which the import record states once where the files agree (docs/links.md)."""

    @abstractmethod
    def export(
        self,
        facts: Facts,
        records: list[ox.NamedNode],
        standings: Mapping[str, Standing] | None = None,
    ) -> str:
        """The text of one file holding ``records`` (one record, or those of one
        evaluation), read from ``facts``: their graphs, their evaluation's, source's and
        import's. A record whose standing is not current says so."""

    @abstractmethod
    def value_as_written(self, value: Any) -> str | None:
        """A value found in a document (at a record's pointer) as written, what the record's
        printed value is checked against; None when it is not a value (a number)."""

    def out_of_range(self, doc: dict[str, Any]) -> list[str]:
        """The pointers of a checked document's scores that lie outside the range their
        metric declares (kept and loaded, counted in the import's summary); a format that
        declares no ranges has none."""
        return []


__all__ = ["Checked", "UpstreamFormat"]
