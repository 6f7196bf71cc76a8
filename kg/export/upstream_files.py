"""Upstream formats' files of the registry's records: of one record or evaluation, or of all.

``kg export ID --format FORMAT`` (``every-eval-ever``, or any format registered in
:mod:`kg.model.upstream.formats`) writes the file of one record (or, for an evaluation's
id, of all its records); ``kg export --all --format FORMAT -o DIR`` writes one file per
evaluation: an imported one at its path in the origin repository
(``DIR/data/hfopenllm_v2/.../x.json``), the records of any other evaluation (or a record
without one) as ``DIR/claimgraph/<evaluation or record id>.json``. This module reads the
store; the format writes the file from the quads read (its ``export``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import pyoxigraph as ox

from ..errors import NotFoundError
from ..model.standing import Standing
from ..model.upstream.format import UpstreamFormat
from ..rdf.facts import Facts
from ..registry import Registry
from ..store.base import solutions
from ..store.licences import licensing, parts
from ..store.queries import internal_query, to_term
from ..store.records import record_and_standing
from ..store.standing import standings

Progress = Callable[[Iterable, int], Iterable]
#: What ``export_all`` writes beside the files: the licences of the parts they hold.
LICENCES = "LICENSES.json"


@dataclass(frozen=True)
class _Group:
    """The records one file holds, and the graphs it is written from."""

    records: list[ox.NamedNode]
    graphs: list[str]
    path: str  # where the file goes, relative to the output folder


def export_one(registry: Registry, ident: str, fmt: UpstreamFormat) -> bytes:
    """The file in format ``fmt`` of record ``ident``, or of evaluation ``ident``'s records.

    :raises NotFoundError: when neither a record nor an evaluation has the id.
    """
    try:
        quads, found = record_and_standing(registry.store, registry.base, ident)
        record = ox.NamedNode(registry.iri("record", ident))
        return fmt.export(Facts(quads), [record], {record.value: found}).encode()
    except NotFoundError:
        pass
    evaluation = to_term("evaluation", ident, registry.base)
    assert isinstance(evaluation, ox.NamedNode)  # an IRI kind's term is always an IRI
    groups = _groups(registry, evaluation)
    if not groups:
        raise NotFoundError(f"no record or evaluation with id {ident!r}")
    [group] = groups
    return _document(registry, group, standings(registry.store), fmt).encode()


def export_all(
    registry: Registry, output: Path, fmt: UpstreamFormat, progress: Progress | None = None
) -> int:
    """Write a file per evaluation (and per record without one) under ``output``, with
    ``LICENSES.json`` (which licence applies to which part) and the notice text of each
    upstream licence (``LICENSE-<import>``): the files hold the upstream's values. Return
    how many files were written."""
    output.mkdir(parents=True, exist_ok=True)
    found = parts(registry.store, registry.settings.licence)
    told = licensing((found, registry.settings.data), output)
    (output / LICENCES).write_text(json.dumps(told, indent=2) + "\n")
    groups = _groups(registry, None)
    every = standings(registry.store)
    stream = progress(groups, len(groups)) if progress else groups
    for group in stream:
        target = output / group.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_document(registry, group, every, fmt), encoding="utf-8")
    return len(groups)


def _document(
    registry: Registry, group: _Group, found: Mapping[str, Standing], fmt: UpstreamFormat
) -> str:
    return fmt.export(Facts(registry.store.quads(group.graphs)), group.records, found)


def _groups(registry: Registry, evaluation: ox.NamedNode | None) -> list[_Group]:
    rows: Iterable[ox.QuerySolution]
    if evaluation is not None:
        rows = solutions(
            registry.store.query(
                internal_query("evaluation-records").text, {"evaluation": evaluation}
            )
        )
    else:
        rows = sorted(
            solutions(registry.store.query(internal_query("records-by-evaluation").text)),
            key=lambda r: (r["evaluation"].value if r["evaluation"] else "", r["id"].value),
        )
    found: dict[str, _Group] = {}
    for row in rows:
        record, owner = row["record"], row["evaluation"]
        key = (owner or record).value
        group = found.get(key)
        if group is None:
            extra = [t.value for t in (owner, row["source"], row["import"]) if t]
            name = unquote(key.rsplit("/", 1)[-1])
            path = (
                row["path"].value
                if row["path"] is not None and row["import"] is not None
                else f"claimgraph/{name}.json"
            )
            group = found[key] = _Group([], extra, path)
        group.records.append(record)
        group.graphs.append(record.value)
    return list(found.values())
