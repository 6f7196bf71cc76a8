"""Every Eval Ever (github.com/evaleval/every_eval_ever): one JSON file is one evaluation
of one model by one source, holding its results. :mod:`.checks` reads and checks a file,
:mod:`.schema` is its JSON Schema, :mod:`.identity` the rules that name its nodes,
:mod:`.mapping` and :mod:`.records` a file as graphs, :mod:`.export` records written back
as a file. :data:`EVERY_EVAL_EVER` is the format, as :mod:`kg.model.upstream.formats`
registers it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ....rdf.formats import Format
from ..format import Checked, UpstreamFormat
from ..jsondoc import JsonNumber
from . import checks, identity, mapping, meanings
from .export import eee_file, text
from .schema import KNOWN

if TYPE_CHECKING:
    import pyoxigraph as ox

    from ....rdf.facts import Facts
    from ...standing import Standing
    from ..format import Mapped
    from ..kept import KeptFile


class EveryEvalEver(UpstreamFormat):
    """Every Eval Ever's evaluation files (schemas 0.2.0, 0.2.2 and 0.3.0; newer versions
    read leniently)."""

    name = "every-eval-ever"
    title = "Every Eval Ever"
    home = "https://github.com/evaleval/every_eval_ever"
    media_type = Format("eee.json", "application/x-every-eval-ever+json", ("every-eval-ever",))
    results_root = identity.RESULTS_ROOT
    schema_versions = tuple(".".join(map(str, v)) for v in KNOWN)
    import_help = """Import Every Eval Ever files (github.com/evaleval/every_eval_ever).

    SOURCES are the repository's folder (holding data/), its data/ folder or folders in
    it, single .json files under a data/ folder, or a .tar.gz of the repository. Each
    result in evaluation_results[] becomes a record whose locator is a JSON Pointer into
    its kept file. Importing the same bytes again changes nothing. An import adds and
    replaces files; it removes the files imported before that SOURCES do not hold only
    with --prune (SOURCES are then a whole newer snapshot): try --dry-run first.

    \b
    Example:
      kg import every-eval-ever every-eval-ever-d9be34d6.tar.gz \\
          --origin evaleval/every_eval_ever@d9be34d60cb3820833034e33a437ba4b9e4d472f
      kg import every-eval-ever ~/src/every_eval_ever/data/helm_lite
      kg import every-eval-ever every-eval-ever-d9be34d6.tar.gz --prune --dry-run
    """
    export_help = (
        "a record, or an evaluation's records, as an Every Eval Ever file (at the schema "
        "version it was imported at, else 0.2.0; with --all: a file per evaluation)"
    )

    def check(self, raw: bytes) -> Checked:
        return checks.check(raw)

    def label(self, import_name: str, upstream_path: str, doc: Any, where: str) -> str:
        return identity.label_for(import_name, upstream_path, doc, where)

    def results(self, doc: Any) -> int:
        results = doc.get("evaluation_results") if isinstance(doc, dict) else None
        return len(results) if isinstance(results, list) else 0

    def map(
        self, kept: KeptFile, base: str, as_written: frozenset[tuple[str, str, str]] = frozenset()
    ) -> Mapped:
        return mapping.map_every_eval_ever(kept, base, as_written)

    def shared_nodes(self, doc: dict[str, Any]) -> dict[str, Any]:
        return mapping.shared_nodes(doc)

    def export(
        self,
        facts: Facts,
        records: list[ox.NamedNode],
        standings: Mapping[str, Standing] | None = None,
    ) -> str:
        return text(eee_file(facts, records, standings))

    def value_as_written(self, value: Any) -> str | None:
        return value.lexeme if isinstance(value, JsonNumber) else None

    def out_of_range(self, doc: dict[str, Any]) -> list[str]:
        return meanings.out_of_range(doc)


#: The format, registered by :mod:`kg.model.upstream.formats`.
EVERY_EVAL_EVER = EveryEvalEver()

__all__ = ["EVERY_EVAL_EVER", "EveryEvalEver"]
