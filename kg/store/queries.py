"""SPARQL files: the canned queries of ``queries/`` and the internal ones the code runs.

Each ``.rq`` file starts with header comments::

    # title: Every result for a model
    # description: ...            (may continue on lines indented after '#')
    # param: model (literal) the model as the source names it

A parameter is bound by substitution (SEP-0007) in ``kg query``, and by a ``VALUES``
block opening the ``WHERE`` group on ``/sparql`` and for a remote store (oxigraph plans
a ``VALUES`` block, not a substitution), so its variable must be in the query's
projection. A parameter's kind says how a value given as text becomes an RDF term:
``literal`` (a string), ``iri``, ``decimal``, ``concept`` (a local name of the project's
vocabularies), or a kind of minted id (a segment of :data:`kg.kinds.SEGMENTS`:
``record``, ``source``, ...), whose IRI the registry's base gives. Values are bound as
terms (pyoxigraph writes those of a ``VALUES`` block), never pasted into the query text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from urllib.parse import quote

import pyoxigraph as ox

from ..errors import NotFoundError, UsageError
from ..kinds import SEGMENTS, minted_iri
from ..rdf.namespaces import KGV
from ..resources import resource_dir
from .field_queries import expand_fields

PARAM_KINDS = ("literal", "iri", "decimal", "concept", *SEGMENTS)
_HEADER = re.compile(r"^#\s*(title|description|param):\s*(.*)$")
_PARAM = re.compile(r"^(\w+)\s+\((\w+)\)\s*(.*)$")


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    description: str


@dataclass(frozen=True)
class SparqlFile:
    """A query file with its header."""

    name: str
    path: Path
    text: str
    title: str
    description: str
    params: tuple[Param, ...] = field(default_factory=tuple)

    def bindings(self, values: dict[str, str], base: str) -> dict[str, ox.NamedNode | ox.Literal]:
        """Terms for the given text values; every declared parameter must be given.

        :raises UsageError: for unknown or missing parameters.
        """
        known = {p.name: p for p in self.params}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise UsageError(
                f"query {self.name} has no parameter {', '.join(unknown)} "
                f"(parameters: {', '.join(known) or 'none'})"
            )
        missing = [name for name in known if name not in values]
        if missing:
            raise UsageError(
                f"query {self.name} needs --param " + ", ".join(f"{m}=..." for m in missing)
            )
        return {name: to_term(known[name].kind, value, base) for name, value in values.items()}


def to_term(kind: str, value: str, base: str) -> ox.NamedNode | ox.Literal:
    """A parameter value as an RDF term.

    :raises UsageError: when the value does not fit the kind.
    """
    try:
        if kind == "literal":
            return ox.Literal(value)
        if kind == "decimal":
            float(value)
            return ox.Literal(
                value, datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#decimal")
            )
        if kind == "iri":
            return ox.NamedNode(value)
        if kind == "concept":
            return ox.NamedNode(f"{KGV}{quote(value, safe='')}")
        if kind in SEGMENTS:
            return ox.NamedNode(minted_iri(base, kind, value))
    except ValueError:
        raise UsageError(f"{value!r} is not a valid {kind}") from None
    raise UsageError(f"unknown parameter kind {kind!r}")


def read_sparql_file(path: Path) -> SparqlFile:
    """Parse a ``.rq`` file's header; write out its field blocks (:func:`expand_fields`).

    :raises UsageError: when the header is incomplete or a parameter is malformed.
    """
    text = path.read_text(encoding="utf-8")
    header: dict[str, list[str]] = {"title": [], "description": [], "param": []}
    last = None
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        match = _HEADER.match(line)
        if match:
            last = match.group(1)
            header[last].append(match.group(2).strip())
        elif last == "description" and line[1:].strip():
            header["description"][-1] += " " + line[1:].strip()
    params = []
    for spec in header["param"]:
        match = _PARAM.match(spec)
        if not match or match.group(2) not in PARAM_KINDS:
            raise UsageError(
                f"{path}: '# param: {spec}' is not 'NAME (KIND) description' with KIND one of "
                + ", ".join(PARAM_KINDS)
            )
        params.append(Param(*match.groups()))
    if not header["title"]:
        raise UsageError(f"{path}: the header has no '# title:' line")
    return SparqlFile(
        name=path.stem,
        path=path,
        text=expand_fields(text),
        title=header["title"][0],
        description=" ".join(header["description"]),
        params=tuple(params),
    )


@cache
def canned_queries() -> dict[str, SparqlFile]:
    """The canned queries (``queries/*.rq``), by name."""
    return {p.stem: read_sparql_file(p) for p in sorted(resource_dir("queries").glob("*.rq"))}


@cache
def internal_query(name: str) -> SparqlFile:
    """A query the code runs itself (``queries/internal/NAME.rq``)."""
    path = resource_dir("queries") / "internal" / f"{name}.rq"
    if not path.is_file():
        raise NotFoundError(f"internal query {name} is missing")
    return read_sparql_file(path)


def canned_query(name: str) -> SparqlFile:
    """A canned query by name.

    :raises NotFoundError: naming the ones there are.
    """
    queries = canned_queries()
    if name not in queries:
        raise NotFoundError(f"no canned query named {name!r} (there are: {', '.join(queries)})")
    return queries[name]
