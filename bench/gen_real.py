"""A synthetic corpus shaped like the real data: Every Eval Ever files (schema 0.2.0), laid
out as the origin repository, for `kg import every-eval-ever` (`bench/gen.py N --shape real`).

The proportions are the real snapshot's (d9be34d6, 35,043 results; measured with
`python bench/shape.py` and given in bench/README.md, "A million results"):

- one file is one model evaluated by one board (a source); 6.65 results a file;
- boards: 8 at 35k, growing as the square root of N; their sizes fall off as the real
  ones do (the first holds 87 % of the files, as the Open LLM Leaderboard does: 4,574 of
  5,267 files, six results each, one file per model, 1.7 % of models submitted twice;
  RewardBench-like boards 4 to 7 results; HELM-like suites 6 to 36 results of the most
  evaluated models);
- models: 142 per 1,000 results at every N (the leaderboards evaluate new models: the real
  growth is linear); developers: 766 at 35k growing as N^0.5, models per developer
  Zipf-like (drawn with exponent 0.7: the largest holds 4 % of the models, as in the
  real data), ids like Hugging Face's (``org/Name-7B-Instruct``);
- benchmarks: 90 at 35k, growing as N^0.25 (tens to a few hundred); records per
  benchmark Zipf-like, as the real ones are (slope -1.24);
- precision (bfloat16 3/4, float16 1/4) and parameters on the leaderboard's files only;
- no reviews and no runs: the snapshot has none; `kg verify --all` writes one review a
  file, as it does for the real one.

Every name says it is synthetic ("synth" in orgs, models, boards and benchmarks). Files are
written one at a time: memory does not grow with N (models and developers are functions
of their number, not lists), and the same (N, seed) gives the same bytes.
"""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path

REAL_RESULTS = 35_043
#: Files of the real boards, largest first (hfopenllm_v2, reward-bench, helm_lite,
#: helm_mmlu, helm_capabilities, helm_classic, helm_instruct): the weights of the first
#: boards; a board k beyond them weighs 4,574 k^-2.43 (the real sources' slope).
REAL_BOARD_FILES = [4574, 384, 91, 79, 68, 67, 4]
#: (folder kind, results a file (low, high), precision and parameters, suite size)
KINDS = [
    ("leaderboard", (6, 6), True, 6),
    ("reward", (4, 7), False, 11),
    ("suite", (10, 10), False, 10),
    ("suite", (36, 36), False, 36),
    ("suite", (6, 6), False, 6),
    ("suite", (15, 15), False, 15),
    ("suite", (7, 7), False, 7),
]
MODELS_PER_RESULT = 4963 / REAL_RESULTS
FILES_PER_RESULT = 5267 / REAL_RESULTS
FAMILIES = [
    ("SynthLlama-3", "LlamaForCausalLM"),
    ("SynthQwen2.5", "Qwen2ForCausalLM"),
    ("SynthMistral", "MistralForCausalLM"),
    ("SynthGemma-2", "Gemma2ForCausalLM"),
    ("SynthMixtral", "MixtralForCausalLM"),
    ("SynthPhi-3", "Phi3ForCausalLM"),
    ("SynthFalcon", "FalconForCausalLM"),
    ("SynthOLMo-2", "OlmoForCausalLM"),
]
VARIANTS = ["Instruct", "Chat", "Base", "DPO", "SFT", "Merge", "v0.1", "v2", "Coder", "Math"]
#: Parameters in billions at the real quantiles 0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1 (the
#: real minimum is -1, a placeholder; 0.5 here), and the share of models between each two.
PARAMS = [0.5, 1.277, 4.65, 8.03, 12.248, 15.21, 72.706, 140.63]
PARAM_SHARES = [0.10, 0.15, 0.25, 0.25, 0.15, 0.09, 0.01]
WORDS = [
    "Reasoning", "Math", "Code", "Knowledge", "Safety", "Chat", "Instruct", "Reading",
    "Science", "Law", "Medicine", "Translation", "Summaries", "Truthfulness", "Commonsense",
    "Logic", "Retrieval", "Dialogue", "Ethics", "Physics",
]  # fmt: skip


def zipf_index(rng: random.Random, n: int, slope: float) -> int:
    """An index in [0, n) drawn with weight (i + 1)^-slope, without a table of n weights
    (inverse transform of the continuous law): memory does not grow with n."""
    if n <= 1:
        return 0
    u = rng.random()
    if abs(slope - 1.0) < 1e-9:
        x = (n + 1) ** u
    else:
        a = 1.0 - slope
        x = (1 + u * ((n + 1) ** a - 1)) ** (1 / a)
    return min(n - 1, int(x) - 1)


class Shape:
    """The sizes of a corpus of ``n`` results: boards, models, developers, benchmarks."""

    def __init__(self, n: int, seed: int):
        self.n, self.seed = n, seed
        scale = n / REAL_RESULTS
        self.boards = max(8, round(8 * scale**0.5))
        self.models = max(10, round(MODELS_PER_RESULT * n))
        self.developers = max(5, round(766 * scale**0.5))
        self.benchmarks = max(20, round(90 * scale**0.25))
        weights = [
            REAL_BOARD_FILES[k] if k < len(REAL_BOARD_FILES) else 4574 * (k + 1) ** -2.43
            for k in range(self.boards)
        ]
        total = sum(weights)
        self.board_share = [w / total for w in weights]

    def kind(self, board: int) -> tuple[str, tuple[int, int], bool, int]:
        """The board's kind (``KINDS``): the real boards' in turn."""
        return KINDS[board % len(KINDS)]

    def suite(self, board: int) -> list[int]:
        """The benchmarks a board reports: the leaderboard the six most used, the others
        a Zipf-drawn set (popular benchmarks in many suites)."""
        size = self.kind(board)[3]
        if board == 0:
            return list(range(size))
        rng = random.Random(f"{self.seed}-suite-{board}")
        chosen: list[int] = []
        while len(chosen) < min(size, self.benchmarks):
            pick = zipf_index(rng, self.benchmarks, 0.7)
            if pick not in chosen:
                chosen.append(pick)
        return chosen

    def developer(self, d: int) -> str:
        """Developer number ``d``'s name (a Hugging Face organization)."""
        return f"synth-lab-{d:05d}"

    def model(self, m: int) -> dict[str, object]:
        """Model number ``m``: its id, developer, architecture, parameters (a function
        of m and the seed: no list of models is kept)."""
        rng = random.Random(f"{self.seed}-model-{m}")
        developer = self.developer(zipf_index(rng, self.developers, 0.7))
        family, architecture = rng.choice(FAMILIES)
        [low] = rng.choices(range(len(PARAM_SHARES)), weights=PARAM_SHARES)
        params = round(rng.uniform(PARAMS[low], PARAMS[low + 1]), 3)
        size = f"{params:.0f}B" if params >= 1 else f"{params * 1000:.0f}M"
        name = f"{family}-{size}-{rng.choice(VARIANTS)}-{m:06d}"
        return {
            "id": f"{developer}/{name}",
            "name": name,
            "developer": developer,
            "architecture": architecture,
            "params": params,
        }

    def benchmark(self, j: int) -> dict[str, object]:
        """Benchmark number ``j`` as a result of a file states it, less its score."""
        rng = random.Random(f"{self.seed}-benchmark-{j}")
        word = WORDS[j % len(WORDS)]
        name = f"Synth{word}-{j:03d}"
        return {
            "evaluation_name": name,
            "source_data": {
                "dataset_name": name,
                "source_type": "hf_dataset",
                "hf_repo": f"synthetic-benchmarks/{name.lower()}",
            },
            "metric_config": {
                "evaluation_description": f"Accuracy on {name} (synthetic)",
                "lower_is_better": rng.random() < 0.05,
                "score_type": "continuous",
                "min_score": 0.0,
                "max_score": 1.0,
            },
        }


def files_of(shape: Shape) -> list[int]:
    """How many files each board gets, so that the results add up to about N."""
    mean_results = [sum(shape.kind(b)[1]) / 2 for b in range(shape.boards)]
    per_file = sum(s * r for s, r in zip(shape.board_share, mean_results, strict=True))
    files = shape.n / per_file
    return [max(1, round(files * s)) for s in shape.board_share]


def next_model(rng: random.Random, head: int, evaluated: set[int]) -> int:
    """A model of the other boards' ``head`` this board has not evaluated yet: drawn
    Zipf-like (the known models are in many suites), else the first not taken."""
    for _ in range(50):
        m = zipf_index(rng, head, 0.5)
        if m not in evaluated:
            break
    else:
        m = next(i for i in range(head + len(evaluated) + 1) if i not in evaluated)
    evaluated.add(m)
    return m


def generate_real(n: int, seed: int, out: Path) -> dict[str, int]:
    """Write about ``n`` results as Every Eval Ever files under ``out``/data (and a
    LICENSE), one file at a time; returns the counts written."""
    rng = random.Random(seed)
    shape = Shape(n, seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "LICENSE").write_text(
        "MIT License\n\nSynthetic data generated by claimgraph's bench/gen.py for "
        "benchmarks; no real evaluation.\n\nPermission is hereby granted, free of charge, "
        "to any person obtaining a copy of this software and associated documentation "
        'files (the "Software"), to deal in the Software without restriction.\n'
    )
    counts = {"files": 0, "results": 0, "bytes": 0}
    leaderboard_models = 0  # the leaderboard's next new model
    # The other boards evaluate models of their own (real: 470 models outside the
    # leaderboard, 693 files), the most known ones in many suites.
    head = max(20, round(0.0175 * n))
    plan = files_of(shape)
    benchmarks = {j: shape.benchmark(j) for j in range(shape.benchmarks)}
    for board, nfiles in enumerate(plan):
        kind, (low, high), facts, _ = shape.kind(board)
        suite = shape.suite(board)
        folder = f"synth-{kind}-{board:03d}"
        meta = {
            "source_name": f"Synthetic {kind} {board}",
            "source_type": "documentation",
            "source_organization_name": f"Synthetic Evaluators {board}",
            "evaluator_relationship": "third_party",
        }
        evaluated: set[int] = set()  # a board evaluates a model once (its files at most)
        for _ in range(nfiles):
            if board == 0:
                resubmit = leaderboard_models > 0 and rng.random() < 0.017
                m = rng.randrange(leaderboard_models) if resubmit else leaderboard_models
                leaderboard_models += not resubmit
            else:
                m = next_model(rng, head, evaluated) + shape.models
            model = shape.model(m)
            count = min(len(suite), rng.randint(low, high))
            stamp = f"{1770000000 + counts['files']}.{rng.randrange(10**6):06d}"
            info: dict[str, object] = {
                "name": model["name"],
                "id": model["id"],
                "developer": model["developer"],
                "inference_platform": "unknown",
            }
            if facts:
                info["additional_details"] = {
                    "precision": "bfloat16" if rng.random() < 0.75 else "float16",
                    "architecture": model["architecture"],
                    "params_billions": model["params"],
                }
            doc = {
                "schema_version": "0.2.0",
                "evaluation_id": f"{folder}/{str(model['id']).replace('/', '_')}/{stamp}",
                "retrieved_timestamp": stamp,
                "source_metadata": meta,
                "model_info": info,
                "evaluation_results": [
                    {**benchmarks[j], "score_details": {"score": round(rng.random(), 4)}}
                    for j in suite[:count]
                ],
            }
            path = (
                out
                / "data"
                / folder
                / str(model["developer"])
                / str(model["name"])
                / f"{uuid.UUID(int=rng.getrandbits(128), version=4)}.json"
            )
            path.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps(doc, indent=2)
            path.write_text(text)
            counts["files"] += 1
            counts["results"] += count
            counts["bytes"] += len(text)
    return counts
