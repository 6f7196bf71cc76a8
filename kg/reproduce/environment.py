"""What a run ran on, read from the machine: never typed by hand."""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import socket
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from .recipes import Recipe


def capture_environment(recipe: Recipe) -> dict[str, Any]:
    """Python, platform, CPU, RAM, GPU, driver, CUDA, a hash of the host name, and the
    versions of PyYAML and the recipe's ``REQUIRES``."""
    env: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_count": str(os.cpu_count() or 0),
        "ram": _meminfo_total(),
        "host_sha256": hashlib.sha256(socket.gethostname().encode()).hexdigest(),
    }
    env.update(_gpu())
    names = ["pyyaml", *getattr(recipe.module, "REQUIRES", ())]
    packages = []
    for name in names:
        try:
            packages.append({"name": name, "version": metadata.version(name)})
        except metadata.PackageNotFoundError:
            packages.append({"name": name, "version": "not installed"})
    env["packages"] = packages
    return env


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _meminfo_total() -> str:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 2**20:.1f} GiB (MemTotal at start)"
    return "unknown"


def _gpu() -> dict[str, str]:
    """GPU model, count and memory from torch; driver from nvidia-smi (absent: said so)."""
    out = {"gpu_model": "none", "gpu_count": "0"}
    try:
        import torch
    except ImportError:
        return out
    out["cuda"] = torch.version.cuda or "none (CPU build of torch)"
    if not torch.cuda.is_available():
        return out
    props = torch.cuda.get_device_properties(0)
    out.update(
        gpu_model=props.name,
        gpu_count=str(torch.cuda.device_count()),
        gpu_memory=f"{props.total_memory / 2**30:.1f} GiB",
    )
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        smi = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        out["driver"] = smi.stdout.strip().splitlines()[0]
    return out
