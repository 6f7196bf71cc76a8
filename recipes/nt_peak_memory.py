"""Recipe nt-peak-memory: peak GPU memory of NT 2.5B masked-LM training, stage by stage.

Re-measures Saadat and Fellay (2026), Figure 3 and Section 3.3: training peak GPU
memory of the Nucleotide Transformer 2.5B (multi-species) at sequence length 1000
and batch size 16, under the paper's progression of optimizations:

    baseline -> + FlashAttention -> + gradient checkpointing
             -> + DeepSpeed ZeRO stage 2 with CPU optimizer offload

The model is built from its published architecture with random weights: peak memory
does not depend on weight values, so nothing is downloaded. The data are uniform
random DNA (seed 42) cut into non-overlapping 6-mers, the way NT tokenizes.

The sentence it re-measures prints two numbers, "the NT 2.5B checkpoint (33.88 → 11.49
GB)": the recipe declares both claims, the stage before ZeRO offload and the stage with
it, and one run gives a verdict on each.

What the paper states is a default here; what it leaves open (precision, optimizer,
masking rate, token ids, number of steps) is a named parameter, recorded in every
run. Model size and sequence length are parameters too, so the same code runs tiny on
a CPU (where no GPU memory can be measured: those measurements are reported as
skipped, with the reason).

This file imports nothing of claimgraph: it runs alone on the GPU machine, with torch,
transformers and (for the last stage) deepspeed.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable

NAME = "nt-peak-memory"
TITLE = "NT 2.5B training peak GPU memory under progressive optimizations"
STAGES = ("baseline", "flash-attention", "checkpointing", "deepspeed-zero2-offload")
#: The records whose claims this recipe re-measures, and which measurement each claim is
#: about: peak *allocated* memory (the paper's Appendix A.3), printed as GB. The paper's
#: 11.49 GB is "stage + DeepSpeed"; its 33.88 GB, the first value of the same printed
#: pair, is read (by claimgraph's transcriber) as the stage before it.
CLAIMS = {
    "saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-flashattention-checkpointing-zero2":
        {"stage": "deepspeed-zero2-offload", "quantity": "peak-allocated", "unit": "gigabyte"},
    "saadat-fellay-claimgraph-20261201-result-nt-2-5b-training-peak-memory-flashattention-checkpointing":
        {"stage": "checkpointing", "quantity": "peak-allocated", "unit": "gigabyte"},
}
#: Fixed before any GPU run, for every claim: the measurement agrees with the claim when it
#: is within 10 % of it. Allocator and library versions move peak memory by a few percent;
#: a different precision or sharding choice moves it by tens of percent.
TOLERANCE = "0.10"
#: The precision settings: what each keeps in which type. The paper states none of them;
#: each is a plausible reading of it (docs/runs.md says why). In the DeepSpeed stage every
#: setting but fp32 is DeepSpeed's bf16 mode: bf16 weights and gradients on the GPU, fp32
#: master weights and AdamW moments offloaded to the CPU.
PRECISIONS = {
    "fp32": "fp32 weights, gradients and AdamW moments, fp32 compute",
    "amp-bf16": "fp32 weights, gradients and AdamW moments, bf16 compute (autocast)",
    "bf16": "bf16 weights, gradients and AdamW moments (torch.optim.AdamW on a bf16 model)",
    "bf16-fp32-adam": "bf16 weights and gradients, fp32 AdamW moments (an optimizer that keeps "
                      "its state in fp32, as 32-bit optimizers for bf16 models do)",
    "bf16-fp32-master": "bf16 weights and gradients, fp32 master weights and AdamW moments "
                        "(mixed precision with master weights, on the GPU)",
}
#: Packages whose versions every run records.
REQUIRES = ("torch", "transformers", "deepspeed", "numpy")

#: name -> (default, where the value comes from)
PARAMETERS: dict[str, tuple[str, str]] = {
    "model": ("nt-2.5b", "stated: NT 2.5B multi-species (ESM architecture); 'tiny' for CPU tests"),
    "sequence_length": ("1000", "stated: sequence length 1000, taken as tokens (CLS included)"),
    "batch_size": ("16", "stated: batch size 16"),
    "seed": ("42", "stated: synthetic uniform random DNA sequences, seed 42"),
    "precision": ("bf16", "open: the paper does not state the precision of weights, gradients "
                          "and optimizer states; " + "; ".join(
                              f"{name} = {what}" for name, what in PRECISIONS.items())),
    "optimizer": ("adamw", "open: the paper does not name the optimizer; AdamW is the usual one"),
    "learning_rate": ("1e-5", "open: does not change memory"),
    "mask_probability": ("0.15", "open: masked-LM masking rate, BERT's and ESM's default"),
    "kmer_offset": ("5", "open: token id of the first 6-mer (after the special tokens)"),
    "steps": ("3", "open: training steps measured per stage"),
    "device": ("cuda", "where to run; on 'cpu' the memory measurements are skipped"),
}

#: The published architecture (config.json of InstaDeepAI/nucleotide-transformer-2.5b-
#: multi-species) and a tiny one with the same shape of code path.
MODELS = {
    "nt-2.5b": {"hidden_size": 2560, "num_hidden_layers": 32, "num_attention_heads": 20,
                "intermediate_size": 10240},
    "tiny": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
             "intermediate_size": 128},
}
VOCAB_SIZE = 4105
MASK_TOKEN_ID = 2
PAD_TOKEN_ID = 1
CLS_TOKEN_ID = 3
GB, GIB = 1e9, 2 ** 30


class Skipped(Exception):
    """A stage (or measurement) that cannot run here, with the reason."""


def esm_config(model: str, sequence_length: int, attention: str):
    from transformers import EsmConfig

    if model not in MODELS:
        raise ValueError(f"unknown model {model!r} (one of: {', '.join(MODELS)})")
    config = EsmConfig(
        vocab_size=VOCAB_SIZE, max_position_embeddings=max(1002, sequence_length + 2),
        position_embedding_type="absolute", token_dropout=True, emb_layer_norm_before=False,
        layer_norm_eps=1e-12, mask_token_id=MASK_TOKEN_ID, pad_token_id=PAD_TOKEN_ID,
        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, tie_word_embeddings=False,
        **MODELS[model],
    )
    config._attn_implementation = attention
    return config


def synthetic_batch(params: dict[str, str], device: str):
    """Uniform random DNA (seeded), as non-overlapping 6-mers, with masked-LM labels."""
    import torch

    rng = random.Random(int(params["seed"]))
    batch, length = int(params["batch_size"]), int(params["sequence_length"])
    offset = int(params["kmer_offset"])
    index = {a: i for i, a in enumerate("ACGT")}
    rows = []
    for _ in range(batch):
        dna = "".join(rng.choice("ACGT") for _ in range(6 * (length - 1)))
        kmers = [dna[i:i + 6] for i in range(0, len(dna), 6)]
        ids = [CLS_TOKEN_ID]
        for kmer in kmers:
            value = 0
            for base in kmer:
                value = value * 4 + index[base]
            ids.append(offset + value)
        rows.append(ids)
    input_ids = torch.tensor(rows, dtype=torch.long, device=device)
    generator = torch.Generator(device="cpu").manual_seed(int(params["seed"]))
    mask = torch.rand(input_ids.shape, generator=generator).to(device) < float(
        params["mask_probability"])
    mask[:, 0] = False
    labels = torch.where(mask, input_ids, torch.full_like(input_ids, -100))
    masked = torch.where(mask, torch.full_like(input_ids, MASK_TOKEN_ID), input_ids)
    return masked, labels


def run(stage: str, params: dict[str, str], log: Callable[[str], None]) -> list[dict[str, str]]:
    """Train ``steps`` masked-LM steps at ``stage`` and return its measurements.

    :raises Skipped: when the stage cannot run here (no GPU, no deepspeed).
    """
    import torch

    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r} (one of: {', '.join(STAGES)})")
    level = STAGES.index(stage)
    device = params["device"]
    cuda = device.startswith("cuda")
    if cuda and not torch.cuda.is_available():
        raise Skipped("no CUDA device is available")
    precision = params["precision"]
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r} (one of: {', '.join(PRECISIONS)})")
    if params["optimizer"] != "adamw":
        raise ValueError("only the adamw optimizer is implemented")
    use_flash = level >= 1
    use_checkpointing = level >= 2
    use_deepspeed = level >= 3

    torch.manual_seed(int(params["seed"]))
    config = esm_config(params["model"], int(params["sequence_length"]),
                        "sdpa" if use_flash else "eager")
    from transformers import EsmForMaskedLM

    started = time.perf_counter()
    with torch.device(device):
        model = EsmForMaskedLM(config)
    if precision.startswith("bf16") and not use_deepspeed:
        model = model.to(torch.bfloat16)
    if use_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.train()
    parameters = sum(p.numel() for p in model.parameters())
    log(f"{stage}: built {params['model']} ({parameters:,} parameters) on {device} "
        f"in {time.perf_counter() - started:.1f} s")

    if use_deepspeed:
        engine, step = _deepspeed(model, params, precision, log)
    else:
        optimizer = _optimizer(model, precision, float(params["learning_rate"]))
        log(f"{stage}: {precision}: {PRECISIONS[precision]}; optimizer "
            f"{type(optimizer).__name__}")
        engine, step = model, _plain_step(model, optimizer, precision, cuda)

    input_ids, labels = synthetic_batch(params, device)
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    attention = _attention_context(use_flash, cuda, precision)
    losses = []
    started = time.perf_counter()
    for _ in range(int(params["steps"])):
        with attention():
            losses.append(step(input_ids, labels))
    if cuda:
        torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    log(f"{stage}: {params['steps']} steps in {seconds:.1f} s, losses {losses}")

    measurements = [
        {"stage": stage, "quantity": "parameters", "value": str(parameters), "unit": "count"},
        {"stage": stage, "quantity": "final-loss", "value": f"{losses[-1]:.4f}",
         "unit": "unitless"},
    ]
    if cuda:
        allocated = torch.cuda.max_memory_allocated()
        reserved = torch.cuda.max_memory_reserved()
        for quantity, value in (("peak-allocated", allocated), ("peak-reserved", reserved)):
            measurements.append({"stage": stage, "quantity": quantity,
                                 "value": f"{value / GB:.2f}", "unit": "gigabyte"})
            measurements.append({"stage": stage, "quantity": quantity,
                                 "value": f"{value / GIB:.2f}", "unit": "gibibyte"})
        log(f"{stage}: peak allocated {allocated / GB:.2f} GB, reserved {reserved / GB:.2f} GB")
    else:
        log(f"{stage}: GPU memory not measured: the stage ran on {device}")
    del engine, model
    if cuda:
        torch.cuda.empty_cache()
    return measurements


def gpu_only_quantities() -> tuple[str, ...]:
    """The quantities only a CUDA device can measure (reported as skipped elsewhere)."""
    return ("peak-allocated", "peak-reserved")


def _optimizer(model, precision: str, lr: float):
    """torch.optim.AdamW, whose moments take the parameters' type, except where a setting
    keeps fp32 state beside bf16 parameters."""
    import torch

    if precision == "bf16-fp32-adam":
        return fp32_state_adamw(model.parameters(), lr, master=False)
    if precision == "bf16-fp32-master":
        return fp32_state_adamw(model.parameters(), lr, master=True)
    return torch.optim.AdamW(model.parameters(), lr=lr)


def fp32_state_adamw(parameters, lr: float, master: bool, betas=(0.9, 0.999), eps=1e-8,
                     weight_decay=1e-2):
    """AdamW (torch.optim.AdamW's update and defaults) whose moments are fp32 whatever the
    parameters' type: the update is computed in fp32 and rounded into the parameter. With
    ``master`` it also keeps an fp32 copy of each parameter, steps that copy and rounds it
    into the parameter. It steps one tensor at a time, as a fused kernel does (its
    temporaries are one tensor's, never a copy of the whole model); bitsandbytes' 32-bit
    AdamW keeps the same state for a bf16 model."""
    import torch

    class AdamWFp32State(torch.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                      "weight_decay": weight_decay})

        @torch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if not state:  # lazily, at the first step, as torch's optimizers do
                        state["step"] = 0
                        state["exp_avg"] = torch.zeros_like(p, dtype=torch.float32)
                        state["exp_avg_sq"] = torch.zeros_like(p, dtype=torch.float32)
                        if master:
                            state["master"] = p.detach().to(torch.float32, copy=True)
                    state["step"] += 1
                    t = state["step"]
                    grad = p.grad.to(torch.float32)
                    target = state["master"] if master else p
                    target.mul_(1 - group["lr"] * group["weight_decay"])
                    state["exp_avg"].lerp_(grad, 1 - beta1)
                    state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                    del grad
                    denom = state["exp_avg_sq"].sqrt().div_(math.sqrt(1 - beta2 ** t))
                    target.addcdiv_(state["exp_avg"], denom.add_(group["eps"]),
                                    value=-group["lr"] / (1 - beta1 ** t))
                    if master:
                        p.copy_(target)
            return None

    return AdamWFp32State(parameters)


def _plain_step(model, optimizer, precision: str, cuda: bool):
    import torch

    def step(input_ids, labels) -> float:
        autocast = torch.autocast(device_type="cuda" if cuda else "cpu", dtype=torch.bfloat16,
                                  enabled=precision == "amp-bf16")
        with autocast:
            loss = model(input_ids=input_ids, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return round(float(loss), 4)
    return step


def _deepspeed(model, params: dict[str, str], precision: str, log):
    try:
        import deepspeed
    except ImportError:
        raise Skipped("deepspeed is not installed here") from None
    if not params["device"].startswith("cuda"):
        raise Skipped("DeepSpeed ZeRO offload needs a CUDA device")
    # One GPU needs no launcher: the process group of one is set up from the environment.
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 1000))
    for name, value in (("RANK", "0"), ("LOCAL_RANK", "0"), ("WORLD_SIZE", "1")):
        os.environ.setdefault(name, value)
    deepspeed.init_distributed("nccl")
    config = {
        "train_micro_batch_size_per_gpu": int(params["batch_size"]),
        "gradient_accumulation_steps": 1,
        "optimizer": {"type": "AdamW", "params": {"lr": float(params["learning_rate"])}},
        "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu",
                                                                "pin_memory": True},
                              "contiguous_gradients": True, "overlap_comm": False},
        # Every setting but fp32 is DeepSpeed's bf16 mode here: its master weights and
        # moments are fp32, and offloaded.
        "bf16": {"enabled": precision != "fp32"},
        "steps_per_print": 10 ** 9,
    }
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                      config=config)
    log(f"deepspeed {deepspeed.__version__}: ZeRO-2, optimizer offloaded to CPU, "
        f"bf16={config['bf16']['enabled']}")

    def step(input_ids, labels) -> float:
        loss = engine(input_ids=input_ids, labels=labels).loss
        engine.backward(loss)
        engine.step()
        return round(float(loss), 4)
    return engine, step


def _attention_context(use_flash: bool, cuda: bool, precision: str):
    """FlashAttention without the flash-attn package: PyTorch's flash SDPA kernel, which
    needs half precision; in fp32 the best SDPA kernel PyTorch has is used instead."""
    import contextlib

    if not (use_flash and cuda and precision != "fp32"):
        return contextlib.nullcontext
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return lambda: sdpa_kernel([SDPBackend.FLASH_ATTENTION])
