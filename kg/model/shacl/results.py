"""What validation reports: SHACL results, and class checks left for later."""

from __future__ import annotations

from dataclasses import dataclass, field

from rdflib import URIRef
from rdflib.term import Node as Term

from .shapes import Constraints


@dataclass(frozen=True)
class Result:
    """One SHACL validation result."""

    focus: Term
    path: URIRef | None
    value: Term | None
    component: str  # local name of the constraint component
    shape: Term
    message: str = ""


@dataclass(frozen=True)
class Deferred:
    """A class check on a value defined in another file, decided once every file is read."""

    focus: Term
    path: URIRef | None
    value: URIRef
    constraints: Constraints = field(hash=False, compare=False)

    def result(self, component: str) -> Result:
        return Result(
            self.focus,
            self.path,
            self.value,
            component,
            self.constraints.shape,
            self.constraints.message,
        )
