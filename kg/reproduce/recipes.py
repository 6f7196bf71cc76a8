"""Recipes: finding one, reading what it declares, and its parameters."""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ..resources import resource_dir

#: What every recipe module declares (docs/runs.md).
DECLARES = ("NAME", "STAGES", "CLAIMS", "TOLERANCE", "PARAMETERS", "run")
#: What each of a recipe's claims names.
CLAIM_KEYS = ("stage", "quantity", "unit")


class ReproduceError(Exception):
    """The run could not be set up (an unknown recipe, record, stage or parameter)."""


@dataclass
class Recipe:
    """A recipe module and where it came from."""

    module: ModuleType
    path: Path

    @property
    def name(self) -> str:
        return self.module.NAME

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()

    @property
    def claims(self) -> dict[str, dict[str, str]]:
        """Record id -> the measurement its claim is about (stage, quantity, unit)."""
        return self.module.CLAIMS


def recipes_dir() -> Path:
    return resource_dir("recipes")


def load_recipe(path: Path) -> Recipe:
    """The recipe in ``path``.

    :raises ReproduceError: when it is not one (a name it must declare is missing).
    """
    spec = importlib.util.spec_from_file_location(f"kg_recipe_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ReproduceError(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for attribute in DECLARES:
        if not hasattr(module, attribute):
            raise ReproduceError(f"{path}: a recipe needs {attribute}")
    for record, claim in module.CLAIMS.items():
        missing = [k for k in CLAIM_KEYS if k not in claim]
        if missing or claim["stage"] not in module.STAGES:
            raise ReproduceError(
                f"{path}: the claim of {record} needs a stage of STAGES, a "
                f"quantity and a unit (got {claim})"
            )
    return Recipe(module, path)


def find_recipe(record: str, name: str | None) -> Recipe:
    """The recipe called ``name``, or the one whose claims include ``record``.

    :raises ReproduceError: when there is none (or several, without a name).
    """
    recipes = [
        load_recipe(p) for p in sorted(recipes_dir().glob("*.py")) if not p.name.startswith("_")
    ]
    if name is not None:
        chosen = [r for r in recipes if r.name == name]
    else:
        chosen = [r for r in recipes if record in r.claims]
    if len(chosen) != 1:
        known = ", ".join(f"{r.name} (records {', '.join(r.claims)})" for r in recipes)
        what = f"named {name!r}" if name else f"for record {record!r}"
        raise ReproduceError(f"no single recipe {what}; recipes: {known or 'none'}")
    return chosen[0]


def parameters(recipe: Recipe, given: dict[str, str]) -> dict[str, str]:
    """Every parameter of ``recipe``: the given value, else its default.

    :raises ReproduceError: for a name the recipe has no parameter of.
    """
    unknown = sorted(set(given) - set(recipe.module.PARAMETERS))
    if unknown:
        raise ReproduceError(
            f"recipe {recipe.name} has no parameter {', '.join(unknown)} "
            f"(parameters: {', '.join(recipe.module.PARAMETERS)})"
        )
    return {
        name: given.get(name, default)
        for name, (default, _note) in recipe.module.PARAMETERS.items()
    }
