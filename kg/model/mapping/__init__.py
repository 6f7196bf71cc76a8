"""Mapping data files to RDF: one named graph per file, built as RDF terms."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rdflib import URIRef

from ...errors import InvalidDataError
from ...kinds import by_directory, by_name, minted_iri
from ...rdf.namespaces import DCTERMS
from ...rdf.vocabulary import Vocabulary, load_terms
from ..datafiles import DataFile
from .context import MapContext, Node, Origins, Triple
from .imports import map_import
from .record import map_record
from .review import map_review_file
from .run import map_run
from .shared import map_agent, map_evaluation, map_source
from .standing import map_standing

#: kind of file (kg.kinds.FILE_KINDS) -> its mapper
MAPPERS: dict[str, Callable[[Node], None]] = {
    "record": map_record,
    "evaluation": map_evaluation,
    "source": map_source,
    "agent": map_agent,
    "review": map_review_file,
    "run": map_run,
    "standing": map_standing,
    "import": map_import,
}


def intended_iris(path: Path, datafile: DataFile | None, base: str) -> list[str]:
    """The IRIs a file that could not be read or mapped was meant to define: its own kind
    with the id written in it where it could be read, and the id its name implies (an id
    names its file, so what refers to the file's old id means this file too). References
    to them are then not reported as dangling on top of the file's own problem."""
    kind = by_name(datafile.kind) if datafile is not None else by_directory(path.parent.name)
    if kind is None:
        return []
    ident = datafile.content.get("id") if datafile is not None else None
    written = [ident] if isinstance(ident, str) and ident.strip() else []
    return [minted_iri(base, kind.segment, i) for i in dict.fromkeys([*written, path.stem])]


@dataclass
class MappedFile:
    """One data file as RDF: its named graph's IRI, triples, and where each came from.

    A YAML data file is one graph. A kept upstream file is several (its evaluation, then
    one per result): ``parts`` names each graph with its label and the end of its triples
    in ``triples``, in order; ``graph`` is the first."""

    file: DataFile
    graph: URIRef
    triples: list[Triple]
    origins: Origins
    keys: set[str]
    parts: list[tuple[URIRef, str, int]] | None = None

    @property
    def label(self) -> str:
        return self.file.label

    def graphs(self) -> list[tuple[URIRef, str, list[Triple]]]:
        """Each graph of the file: (IRI, label, its triples)."""
        if self.parts is None:
            return [(self.graph, self.label, self.triples)]
        out, start = [], 0
        for graph, label, end in self.parts:
            out.append((graph, label, self.triples[start:end]))
            start = end
        return out


def map_file(
    datafile: DataFile,
    base: str,
    terms: Vocabulary | None = None,
    as_written: frozenset[tuple[str, str, str]] = frozenset(),
) -> MappedFile:
    """Map one data file to its named graph.

    The graph's IRI is the minted IRI of the file's main node (for a record, the claim).
    A kept upstream file's values named in ``as_written`` are kept as written
    (:func:`kg.model.validation.map_fitted`, which readers of kept files use).

    :raises InvalidDataError: for problems the YAML's structure shows (unknown keys,
        a list where one value belongs, an empty value, a missing id). Everything a
        shape can judge is left to the shapes.
    """
    parts: list[tuple[URIRef, str, int]] | None  # (graph, label, end): see MappedFile
    if datafile.upstream is not None:  # mapped by its format (the formats build on this)
        from ..upstream.formats import get

        fmt = get(datafile.upstream.format)
        triples, origins, parts = (
            fmt.map(datafile.upstream, base, as_written)
            if as_written
            else fmt.map(datafile.upstream, base)
        )
        return MappedFile(datafile, parts[0][0], triples, origins, set(), parts)
    mapper = MAPPERS[datafile.kind]
    ctx = MapContext(base, datafile.name, datafile.label, terms or load_terms())
    ident = datafile.content.get("id")
    if not isinstance(ident, str) or not ident.strip():
        ctx.problem("id", "missing 'id' (every data file names what it holds by an id)")
        raise InvalidDataError(ctx.problems)
    subject = ctx.iri(by_name(datafile.kind).segment, ident)
    ctx.name_blank_nodes(str(subject))
    node = Node(ctx, subject, datafile.content, "")
    ctx.origins.nodes[subject] = ""
    node.declare("kind")
    node.literal("id", DCTERMS.identifier)
    mapper(node)
    node.done()
    if ctx.problems:
        raise InvalidDataError(ctx.problems)
    parts = None
    if ctx.graph_starts:
        starts = [(subject, datafile.label, 0), *ctx.graph_starts]
        ends = [start for _, _, start in starts[1:]] + [len(ctx.triples)]
        parts = [(graph, label, end) for (graph, label, _), end in zip(starts, ends, strict=True)]
    return MappedFile(datafile, subject, ctx.triples, ctx.origins, ctx.keys, parts)


__all__ = ["MAPPERS", "MappedFile", "intended_iris", "map_file"]
