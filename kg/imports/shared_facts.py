"""What an import's files say of the models and benchmarks they name, agreed over the files,
as the import record states it once (docs/links.md gives the rules):

- a model's label and developer: the name (``model_info.name``) and developer the files give
  most often, the first in sorted order on a tie;
- its parameter count (``params_billions``): where every file that gives one gives the same
  number (files that disagree leave it out; each evaluation keeps its own);
- its Hugging Face repository: the id as written by the files of a source whose own file
  says that it names models by their Hugging Face repository id (``model_registry:
  huggingface``, a curator's statement), where those files write it one way;
- a benchmark's Hugging Face data set repository: where every result of the benchmark names
  the same ``hf_repo``.

An id that is not of a repository id's form is left out (the mapping would not link it).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from ..model.mapping.links import HUGGING_FACE as HUGGING_FACE_URL
from ..model.mapping.links import link
from ..model.yamltext import YamlError, parse_yaml

#: The value of a source file's ``model_registry`` that makes its model ids links.
HUGGING_FACE = "huggingface"


@dataclass
class SharedFacts:
    """The facts of every file of an import, gathered (:meth:`add`), then agreed."""

    names: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    developers: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    params: defaultdict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    #: model key -> source id -> the ids as that source's files write it
    written: defaultdict[str, defaultdict[str, set[str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(set))
    )
    #: benchmark id -> the data set repositories its results name (None: names none)
    datasets: defaultdict[str, set[str | None]] = field(default_factory=lambda: defaultdict(set))

    def add(self, shared: dict[str, Any]) -> None:
        """One file's shared nodes (``UpstreamFormat.shared_nodes``); a format that gives no
        ``model_facts`` or ``datasets`` adds nothing of them."""
        key, facts = shared["model"], shared.get("model_facts") or {}
        if "name" in facts:
            self.names[key][facts["name"]] += 1
        if "developer" in facts:
            self.developers[key][facts["developer"]] += 1
        if "params_billions" in facts:
            self.params[key].append(facts["params_billions"])
        if "id" in facts:
            self.written[key][shared["source"]["id"]].add(facts["id"])
        for bench, repo in shared.get("datasets") or []:
            self.datasets[bench].add(repo)

    def model_entry(self, key: str, registries: dict[str, str]) -> dict[str, str]:
        """The import record's entry of the model ``key``; ``registries`` gives each
        source's ``model_registry`` (sources without one left out)."""
        entry = {"id": key}
        for name, counts in (("label", self.names[key]), ("developer", self.developers[key])):
            if counts:
                entry[name] = min(counts.items(), key=lambda item: (-item[1], item[0]))[0]
        params = self.params[key]
        if params and len({_number(p) for p in params}) == 1 and _number(params[0]) is not None:
            entry["params_billions"] = params[0]
        hf = {
            written
            for source, ids in self.written[key].items()
            if registries.get(source) == HUGGING_FACE
            for written in ids
        }
        if len(hf) == 1 and link("hf", repo := hf.pop(), HUGGING_FACE_URL) is not None:
            entry["hf_repo"] = repo
        return entry

    def dataset_repo(self, bench: str) -> str | None:
        """The Hugging Face data set repository every result of ``bench`` names, if one."""
        repos = self.datasets.get(bench, set())
        repo = next(iter(repos)) if len(repos) == 1 else None
        return repo if repo is not None and link("hf", repo, HUGGING_FACE_URL) else None


def model_registries(sources_dir: Path, idents: list[str]) -> dict[str, str]:
    """Each source's ``model_registry`` as its file in ``sources_dir`` states it (a
    curator's statement; files that do not exist yet, or say nothing, are left out)."""
    found: dict[str, str] = {}
    for ident in idents:
        path = sources_dir / f"{ident}.yaml"
        try:
            content = parse_yaml(path.read_text(encoding="utf-8"))
        except (OSError, YamlError):
            continue
        registry = content.get("model_registry") if isinstance(content, dict) else None
        if isinstance(registry, str):
            found[ident] = registry
    return found


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


__all__ = ["HUGGING_FACE", "SharedFacts", "model_registries"]
