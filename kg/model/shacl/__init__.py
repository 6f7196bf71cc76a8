"""A fast SHACL engine for the constraint components claimgraph's shapes use.

pyshacl is the reference: it reads the same shapes and gives the same results (a
differential test holds the two together over the seed, generated corpora and every
broken variant). This engine exists for speed: the shapes are compiled once into
plain Python checks over an index of the batch, and SHACL-SPARQL constraints run once
per batch in pyoxigraph instead of being parsed again for every focus node.

Supported: targets by class (with rdfs:subClassOf from the ontology), property shapes
with a predicate path, and sh:minCount, sh:maxCount, sh:datatype, sh:pattern,
sh:minInclusive (a number), sh:class, sh:node, sh:hasValue, sh:nodeKind, sh:or,
sh:message, and sh:sparql (SELECT) on node shapes. A shape using anything else is refused
when it is compiled, so the engine can never silently skip a constraint.

Modules, as pySHACL divides the work: :mod:`.parser` reads the shapes graph into the
compiled form of :mod:`.shapes`, one object per parameter of a constraint component
(:mod:`.components`, with the lexical forms of :mod:`.datatypes`); :mod:`.engine` runs
them over an :mod:`.index` of the batch, and :mod:`.sparql` the SHACL-SPARQL constraints;
:mod:`.results` is what comes out.
"""

from .datatypes import datatype_ok, lexical_ok
from .engine import Engine
from .index import Index, Overlay
from .results import Deferred, Result
from .shapes import UnsupportedShape

__all__ = [
    "Deferred",
    "Engine",
    "Index",
    "Overlay",
    "Result",
    "UnsupportedShape",
    "datatype_ok",
    "lexical_ok",
]
