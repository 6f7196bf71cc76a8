"""The reproduction runner: run a recipe where it is and write a ``kind: run`` file.

It imports only the standard library, PyYAML and the recipe (and what the recipe
imports), so that it runs alone on a GPU machine that has no rdflib or pyoxigraph::

    python3 -m kg.reproduce RECORD_ID --recipe nt-peak-memory -o run.yaml

Each stage runs in a process of its own, so that one stage's memory (or its crash)
cannot touch the next. Everything about the environment is captured here, never typed
by hand; the verdicts compare the recipe's claim measurements with the records' values,
using the tolerance fixed in the recipe: one verdict on the record named, and one on
each other claim of the recipe whose stage the run measured.
"""

from __future__ import annotations

from .recipes import Recipe, ReproduceError, find_recipe, load_recipe, parameters
from .runner import RUNNER_AGENT, main, reproduce, summary
from .verdicts import judged_records, read_claim, verdict

__all__ = [
    "RUNNER_AGENT",
    "Recipe",
    "ReproduceError",
    "find_recipe",
    "judged_records",
    "load_recipe",
    "main",
    "parameters",
    "read_claim",
    "reproduce",
    "summary",
    "verdict",
]
