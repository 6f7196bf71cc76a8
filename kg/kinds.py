"""The kinds of node the registry mints IRIs for: one table that every list of kinds reads.

A kind is the ``kind:`` of a data file (``record``, ``source``, ...) or a node no file
defines (a ``release``). Its minted IRIs are ``<base><segment>/<id>``; kinds may share a
segment (reviews and runs are both ``activity``), so what the web app routes, the
prefixes output uses and the ids a query parameter takes are segments, each once.
Adding a kind of node is adding a row to :data:`KINDS`; the mapping, the loader, the
queries, the output, the releases, the web app and the CLI take it from there.

This module is the ground layer: it imports nothing of kg.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote


@dataclass(frozen=True)
class Kind:
    """One kind of node. Rows that share a segment agree on what belongs to the segment
    (citable, shared, browsed, history_rank): those are properties of its IRIs."""

    #: The ``kind:`` of its data files, or the name of a kind no file defines.
    name: str
    #: The path segment of its minted IRIs: ``<base><segment>/<id>``.
    segment: str
    #: Its folder in a data directory (``data/records/``), when it comes from data files.
    directory: str | None = None
    #: Exported as a citation (CSL-JSON, BibTeX, RIS), by ``kg export`` and its pages.
    citable: bool = False
    #: Many records link to one node of it: the web app keeps its graphs once read.
    shared: bool = False
    #: Its pages are the browser's ``/<segment>/<id>`` (a release has pages of its own).
    browsed: bool = True
    #: Where a difference between releases and ``kg history --kind`` list it; None for a
    #: node no release holds a graph of.
    history_rank: int | None = None
    #: Where a message listing the kinds of data file (``unknown kind``) names it.
    file_rank: int | None = None
    #: Its files are kept from another registry as they were published (JSON, byte for
    #: byte) and mapped by their format, not YAML files with a ``kind:`` key.
    upstream: bool = False


#: Every kind of node, in display order (docs/records.md, the prefixes of written RDF, the
#: kinds a query parameter takes).
KINDS: tuple[Kind, ...] = (
    Kind("record", "record", "records", citable=True, history_rank=0, file_rank=0),
    Kind("source", "source", "sources", citable=True, shared=True, history_rank=1, file_rank=2),
    Kind("agent", "agent", "agents", shared=True, history_rank=3, file_rank=3),
    Kind("evaluation", "evaluation", "evaluations", shared=True, history_rank=2, file_rank=1),
    Kind("review", "activity", "reviews", history_rank=4, file_rank=4),
    Kind("run", "activity", "runs", history_rank=4, file_rank=5),
    Kind("standing", "activity", "standing", history_rank=4, file_rank=8),
    Kind("release", "release", browsed=False),
    # Results other registries publish (docs/imports.md): the import that kept them, and
    # the files, each an evaluation whose results are records. Models and benchmarks are
    # nodes no file defines alone: every evaluation of them says what they are.
    Kind("import", "import", "imports", history_rank=5, file_rank=6),
    Kind(
        "upstream",
        "evaluation",
        "upstream",
        shared=True,
        history_rank=2,
        file_rank=7,
        upstream=True,
    ),
    Kind("model", "model"),
    Kind("benchmark", "benchmark"),
)

_BY_NAME = {kind.name: kind for kind in KINDS}


def by_name(name: str) -> Kind:
    """The kind called ``name`` (a ``kind:`` of a data file, or ``release``).

    :raises KeyError: for a name no row has (callers check names users give against
        :data:`FILE_KINDS` or :data:`SEGMENTS` first).
    """
    return _BY_NAME[name]


def by_segment(segment: str) -> tuple[Kind, ...]:
    """The kinds whose IRIs have ``segment`` (none for an unknown one), in display order."""
    return tuple(kind for kind in KINDS if kind.segment == segment)


def by_directory(directory: str) -> Kind | None:
    """The kind whose data files live in a folder called ``directory``, if any."""
    return next((kind for kind in KINDS if kind.directory == directory), None)


def data_directory(name: str) -> str:
    """The folder of a data directory that holds the files of kind ``name``.

    :raises KeyError: when the kind has no data files.
    """
    directory = by_name(name).directory
    if directory is None:
        raise KeyError(f"kind {name!r} has no data files")
    return directory


def segments(**having: bool) -> tuple[str, ...]:
    """The segments of the kinds whose fields have the given values (all kinds when none
    is given), each once, in display order: ``segments(citable=True)``."""
    return tuple(
        dict.fromkeys(
            kind.segment
            for kind in KINDS
            if all(getattr(kind, field) == value for field, value in having.items())
        )
    )


#: Plurals that are not the word with an "s".
_PLURALS = {"activity": "activities"}


def graph_noun(segment: str, n: int) -> str:
    """What a summary calls ``n`` graphs of ``segment``: the segment's own word for the
    kinds that come from data files, a "graph" of it for the others.

    >>> graph_noun("record", 1), graph_noun("activity", 3), graph_noun("model", 2)
    ('record', 'activities', 'model graphs')
    """
    if any(kind.directory for kind in by_segment(segment)):
        return segment if n == 1 else _PLURALS.get(segment, f"{segment}s")
    return f"{segment} graph" if n == 1 else f"{segment} graphs"


def iri_prefix(base: str, segment: str) -> str:
    """What every minted IRI of ``segment`` starts with."""
    return f"{base}{segment}/"


def minted_iri(base: str, segment: str, ident: str) -> str:
    """The IRI the registry mints for id ``ident`` of ``segment`` (the id percent-encoded)."""
    return f"{iri_prefix(base, segment)}{quote(ident, safe='')}"


#: The kinds of YAML data file (their ``kind:``), in the order messages list them.
FILE_KINDS: tuple[str, ...] = tuple(
    kind.name
    for kind in sorted(
        (k for k in KINDS if k.file_rank is not None and not k.upstream),
        key=lambda k: k.file_rank or 0,
    )
)
#: The folders of a data directory that hold kept upstream files.
UPSTREAM_DIRECTORIES: tuple[str, ...] = tuple(
    k.directory for k in KINDS if k.upstream and k.directory is not None
)
#: Every segment of minted IRIs, each once, in display order.
SEGMENTS: tuple[str, ...] = segments()
#: The segments of the graphs releases hold, in the order differences list them.
HISTORY_SEGMENTS: tuple[str, ...] = tuple(
    dict.fromkeys(
        kind.segment
        for kind in sorted(
            (k for k in KINDS if k.history_rank is not None), key=lambda k: k.history_rank or 0
        )
    )
)


def kind_and_id(graph: str, base: str) -> tuple[str, str]:
    """("record", "<id>") for a registry graph IRI; ("", IRI) for anything else.

    >>> kind_and_id("https://claimgraph.example/record/x", "https://claimgraph.example/")
    ('record', 'x')
    """
    if graph.startswith(base) and "/" in graph[len(base) :]:
        kind, ident = graph[len(base) :].split("/", 1)
        return kind, ident
    return "", graph
