"""How the nodes of Every Eval Ever files are named: stable, readable ids from what the
files say (docs/imports.md gives the rules and why).

>>> slug("Gemma-2-Ataraxy v2f/9B")
'gemma-2-ataraxy-v2f-9b'
>>> model_key("Qwen/Qwen1.5-14B") == model_key("qwen/qwen1.5-14b")
True
>>> source_id("crfm", "helm_lite")
'crfm-helm-lite'
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter

#: The folder of an Every Eval Ever repository that holds the result files.
RESULTS_ROOT = "data/"
#: Ids stay within the registry's id pattern (at most 200 characters).
_READABLE = 120
_NOT_ID = re.compile(r"[^a-z0-9]+")


def slug(text: str, limit: int = 60) -> str:
    """Lowercase ASCII letters and digits joined by single hyphens, at most ``limit`` long."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    word = _NOT_ID.sub("-", ascii_text.lower()).strip("-")
    return word[:limit].rstrip("-") or "x"


def _digest(*parts: str, length: int) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:length]


def model_key(model_id: str) -> str:
    """A model's identity: its id as the source gives it (``org/name``), Unicode-normalized
    (NFC), without surrounding white space and case-folded, since sources differ in case
    only (``Qwen/Qwen1.5-14B``, ``qwen/qwen1.5-14b``). The model node's IRI is
    ``<base>model/<key, percent-encoded>``."""
    return unicodedata.normalize("NFC", model_id.strip()).casefold()


def benchmark_key(dataset: str, name: str, description: str, lower_is_better: bool) -> str:
    """A benchmark's identity: the data set, the result's name, the metric's description
    and its direction, each case-folded with white space collapsed. A quantity relative to
    a suite (HELM's "Mean win rate") names the suite as its data set (``helm_lite``,
    ``helm_mmlu``), so the same name in two suites is two benchmarks; the same data set and
    metric reported by two sources (MMLU's "EM on MMLU" in HELM Lite and HELM Classic) is
    one."""

    def norm(text: str) -> str:
        return " ".join(text.split()).casefold()

    return "\0".join(
        (norm(dataset), norm(name), norm(description), "lower" if lower_is_better else "higher")
    )


def benchmark_id(dataset: str, name: str, key: str) -> str:
    """``<data set>-<name>-<6 hex digits of the key's SHA-256>`` (the name once when it
    is the data set's): readable, and unique for every key."""
    words = slug(dataset, 50)
    if slug(name, 50) != words:
        words = f"{words}-{slug(name, 50)}"
    return f"{words}-{_digest(key, length=6)}"


def source_id(organization: str, name: str) -> str:
    """The source (a leaderboard or harness): ``<organization>-<source name>``."""
    return f"{slug(organization, 40)}-{slug(name, 60)}" if name else slug(organization, 40)


def file_id(import_name: str, upstream_path: str) -> str:
    """An upstream file's evaluation: the readable part of its path in the origin
    repository (suite, developer and model folders; the file's own name, a UUID, left
    out) and 8 hex digits of the SHA-256 of the import's name and the whole path, which
    tell apart the files of one model (a model submitted twice). The same path gives the
    same id in every snapshot, whatever the file holds."""
    inner = upstream_path.removeprefix(RESULTS_ROOT)
    folders = inner.split("/")[:-1] or [inner]
    readable = slug("-".join(folders), _READABLE)
    return f"eee-{readable}-{_digest(import_name, upstream_path, length=8)}"


def result_ids(evaluation: str, names: list[str]) -> list[str]:
    """The records of a file's results, in order: ``<evaluation id>-<result name>``, with
    ``-2``, ``-3``, ... for a name that comes again in the same file."""
    seen: Counter[str] = Counter()
    ids: list[str] = []
    taken: set[str] = set()
    for name in names:
        word = slug(name, 60)
        while True:
            seen[word] += 1
            ident = f"{evaluation}-{word}" + (f"-{seen[word]}" if seen[word] > 1 else "")
            if ident not in taken:
                break
        taken.add(ident)
        ids.append(ident)
    return ids


def label_for(import_name: str, upstream_path: str, doc: object, where: str) -> str:
    """How a message names what a problem at ``where`` belongs to: the record of the result
    it is in (``record <id>``), else the file's evaluation (``evaluation <id>``)."""
    evaluation = file_id(import_name, upstream_path)
    results = doc.get("evaluation_results") if isinstance(doc, dict) else None
    parts = where.split("/")
    if (
        isinstance(results, list)
        and len(parts) > 2
        and parts[1] == "evaluation_results"
        and parts[2].isdigit()
        and int(parts[2]) < len(results)
    ):
        names = [r.get("evaluation_name") if isinstance(r, dict) else None for r in results]
        ids = result_ids(
            evaluation,
            [n if isinstance(n, str) and n.strip() else f"result-{i}" for i, n in enumerate(names)],
        )
        return f"record {ids[int(parts[2])]}"
    return f"evaluation {evaluation}"
