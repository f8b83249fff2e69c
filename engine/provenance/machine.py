"""The `machine` block of result.json: what the figures were measured on."""

from __future__ import annotations

import os
import platform
import subprocess
from typing import Any

import torch


def _driver_version() -> str | None:
    """NVIDIA driver version from nvidia-smi (None where there is none or it fails)."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    return lines[0] if lines else None


def _triton_version() -> str | None:
    try:
        import triton
    except ImportError:
        return None
    return getattr(triton, "__version__", None)


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info(device: torch.device | str) -> dict[str, Any]:
    device = torch.device(device)
    on_cuda = device.type == "cuda"
    return {
        "gpu": torch.cuda.get_device_name(device) if on_cuda else None,
        "gpu_count": torch.cuda.device_count() if torch.cuda.is_available() else 0,
        "driver": _driver_version() if on_cuda else None,
        "cuda": torch.version.cuda if on_cuda else None,
        "torch": torch.__version__,
        "triton": _triton_version(),
        "python": platform.python_version(),
        "device": str(device),
        "cpu": _cpu_name(),
        "cpu_count": os.cpu_count(),
    }
