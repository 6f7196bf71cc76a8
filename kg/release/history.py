"""History: what changed between releases, and the versions of one record.

Statements are shown so that a person can read a difference: a graph's own node is
left implicit, its fragments (``#row-1``) and other registry IRIs are written short,
and a blank node is written as the path that leads to it from a named node
(``kg:reportedValue / qudt:numericValue = "11.49"^^xsd:decimal``). A value changed
inside a blank node is then one statement removed and one added, whatever labels the
blank nodes had.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import pyoxigraph as ox

from ..kinds import HISTORY_SEGMENTS, iri_prefix, kind_and_id
from ..model.standing import Standing
from ..rdf.namespaces import PREFIXES, RDF, XSD_STRING
from ..registry import Registry
from ..store.archive import ReleaseInfo
from ..store.standing import standing

_RDF_TYPE = f"{RDF}type"
_PREFIXES = {**PREFIXES, "rdf": str(RDF)}


@dataclass
class GraphChange:
    """One graph that differs between two versions of the registry."""

    graph: str
    kind: str
    ident: str
    old: str | None  # hash
    new: str | None
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    #: A record's standing in the release (the rule over the release's data; None for
    #: another kind of graph, or a release that dropped it).
    standing: Standing | None = None

    @property
    def status(self) -> str:
        return "added" if self.old is None else "removed" if self.new is None else "changed"


@dataclass
class ReleaseDiff:
    old: str
    new: str
    changes: list[GraphChange]

    def count(self, status: str, kind: str | None = None) -> int:
        return sum(
            1 for c in self.changes if c.status == status and (kind is None or c.kind == kind)
        )


@dataclass
class HistoryEntry:
    """A release and what it held of one graph."""

    release: ReleaseInfo
    hash: str | None
    status: str  # added, changed, unchanged, removed
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    #: A record's standing in the release; None for another kind of graph (a source has
    #: no standing) or a release that dropped it.
    standing: Standing | None = None


def statements(quads: Iterable[ox.Quad], graph: str, base: str) -> Counter[str]:
    """The statements of a graph version as lines a person reads (a multiset)."""
    quads = list(quads)
    parents: dict[ox.BlankNode, list[tuple[object, ox.NamedNode]]] = defaultdict(list)
    described = set()
    for q in quads:
        described.add(q.subject)
        if isinstance(q.object, ox.BlankNode):
            parents[q.object].append((q.subject, q.predicate))
    paths: dict[object, str] = {}

    def path(node, seen: frozenset = frozenset()) -> str:
        if node in paths:
            return paths[node]
        if isinstance(node, ox.NamedNode):
            text = _name(node.value, graph, base)
        elif node in seen or not parents.get(node):
            text = "[]"
        else:  # the shortest (then first) way to it from a named node
            text = min(
                (
                    _join(path(s, seen | {node}), _name(p.value, graph, base))
                    for s, p in parents[node]
                ),
                key=lambda t: (len(t), t),
            )
        paths[node] = text
        return text

    lines: Counter[str] = Counter()
    for q in quads:
        if isinstance(q.object, ox.BlankNode) and q.object in described:
            continue  # its own statements show the path to it
        subject = _join(path(q.subject), _name(q.predicate.value, graph, base))
        lines[f"{subject} = {_value(q.object, graph, base)}"] += 1
    return lines


def diff_versions(
    old: Iterable[ox.Quad], new: Iterable[ox.Quad], graph: str, base: str
) -> tuple[list[str], list[str]]:
    """(statements removed, statements added) from one version of a graph to another."""
    before, after = statements(old, graph, base), statements(new, graph, base)
    return sorted((before - after).elements()), sorted((after - before).elements())


def diff_releases(registry: Registry, old: str, new: str, details: bool = True) -> ReleaseDiff:
    """Graphs added, removed and changed from release ``old`` to ``new`` (with the
    statements of each changed graph unless ``details`` is False).

    :raises NotFoundError: for a release the archive does not hold.
    """
    archive, base = registry.archive, registry.base
    before = archive.manifest(archive.release(old).id)["graphs"]
    after = archive.manifest(archive.release(new).id)["graphs"]
    changes = []
    for graph in sorted(set(before) | set(after)):
        a, b = before.get(graph), after.get(graph)
        if a == b:
            continue
        kind, ident = kind_and_id(graph, base)
        change = GraphChange(graph, kind, ident, a, b)
        if details and a is not None and b is not None:
            change.removed, change.added = diff_versions(
                archive.version_quads(a), archive.version_quads(b), graph, base
            )
        changes.append(change)
    changes.sort(key=lambda c: (_kind_rank(c.kind), c.kind, c.ident))
    return ReleaseDiff(old, new, changes)


def graph_history(registry: Registry, graph: str) -> list[HistoryEntry]:
    """Each release that held ``graph`` or dropped it, oldest first, with what changed."""
    archive, base = registry.archive, registry.base
    entries = []
    previous: str | None = None
    for release, digest in archive.history(graph):
        if digest is None:
            if previous is not None:
                entries.append(HistoryEntry(release, None, "removed"))
        elif previous is None:
            entries.append(HistoryEntry(release, digest, "added"))
        elif digest == previous:
            entries.append(HistoryEntry(release, digest, "unchanged"))
        else:
            removed, added = diff_versions(
                archive.version_quads(previous), archive.version_quads(digest), graph, base
            )
            entries.append(HistoryEntry(release, digest, "changed", removed, added))
        previous = digest
    if graph.startswith(iri_prefix(base, "record")):
        for entry in entries:
            if entry.hash is not None:
                entry.standing = standing(archive.release_store(entry.release.id), graph)
    return entries


def _kind_rank(kind: str) -> int:
    return HISTORY_SEGMENTS.index(kind) if kind in HISTORY_SEGMENTS else len(HISTORY_SEGMENTS)


def _join(subject: str, predicate: str) -> str:
    return f"{subject} / {predicate}" if subject else predicate


def _name(iri: str, graph: str, base: str) -> str:
    """An IRI written short: "" for the graph's own node, "#x" for its fragments, a path
    for the registry's IRIs, a prefixed name for known vocabularies."""
    if iri == graph:
        return ""
    if iri.startswith(graph + "#"):
        return iri[len(graph) :]
    if iri.startswith(base):
        return iri[len(base) :]
    return _compact(iri)


def _compact(iri: str) -> str:
    if iri == _RDF_TYPE:
        return "a"
    for prefix, namespace in _PREFIXES.items():
        if iri.startswith(namespace) and "/" not in iri[len(namespace) :]:
            return f"{prefix}:{iri[len(namespace) :]}"
    return f"<{iri}>"


def _value(term, graph: str, base: str) -> str:
    if isinstance(term, ox.Literal):
        text = json.dumps(term.value, ensure_ascii=False)
        if term.language:
            return f"{text}@{term.language}"
        if term.datatype.value != XSD_STRING:
            return f"{text}^^{_compact(term.datatype.value)}"
        return text
    if isinstance(term, ox.BlankNode):
        return "[]"
    if term.value == graph:
        return graph[len(base) :] if graph.startswith(base) else _compact(graph)
    return _name(term.value, graph, base)
