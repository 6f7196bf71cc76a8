"""Running pyshacl, the reference engine, without parsing each SPARQL constraint again for
every focus node.

pyshacl hands rdflib a constraint's query text once per focus node, and rdflib parses
text afresh each time (pyparsing: about two thirds of a reference run over the bundled
data). Inside :func:`prepared_queries` the same text is translated once and the
prepared query reused, which rdflib supports (``prepareQuery``): the results are those
of the text, parsed once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from rdflib import plugin
from rdflib.plugins.sparql.parser import parseQuery
from rdflib.plugins.sparql.processor import SPARQLProcessor, translateQuery
from rdflib.plugins.sparql.sparql import Query
from rdflib.query import Processor
from rdflib.term import Identifier

_NAME = "sparql"


class PreparingProcessor(SPARQLProcessor):
    """rdflib's SPARQL processor, translating each query text once per context."""

    #: What was translated in the current context, by query text, base and namespaces: on
    #: the class, as rdflib makes a new processor for every query.
    prepared: ClassVar[dict[tuple, Any]] = {}

    # The signature of rdflib's SPARQLProcessor.query, which rdflib itself marks as an
    # incompatible override of Processor.query (it adds ``base``).
    def query(  # type: ignore[override]
        self,
        strOrQuery: str | Query,
        initBindings: Mapping[str, Identifier] | None = None,
        initNs: Mapping[str, Any] | None = None,
        base: str | None = None,
        DEBUG: bool = False,
    ) -> Mapping[str, Any]:
        if isinstance(strOrQuery, str):
            key = (strOrQuery, base, frozenset((initNs or {}).items()))
            if key not in self.prepared:
                self.prepared[key] = translateQuery(parseQuery(strOrQuery), base, initNs)
            strOrQuery = self.prepared[key]
        return super().query(strOrQuery, initBindings, initNs, base, DEBUG)


@contextlib.contextmanager
def prepared_queries() -> Iterator[None]:
    """Within the block, rdflib's default SPARQL processor keeps what it translated.

    >>> from rdflib import Graph
    >>> with prepared_queries():
    ...     rows = [len(Graph().query("SELECT ?x { BIND(1 AS ?x) }")) for _ in range(2)]
    ...     translated = len(PreparingProcessor.prepared)
    >>> rows, translated, len(PreparingProcessor.prepared)
    ([1, 1], 1, 0)
    """
    before = plugin.get(_NAME, Processor)
    plugin.register(_NAME, Processor, __name__, PreparingProcessor.__name__)
    try:
        yield
    finally:
        PreparingProcessor.prepared.clear()
        plugin.register(_NAME, Processor, before.__module__, before.__name__)
