"""Programmatic dependent launch (PDL, compute capability 9.0+): a kernel of the step starts while the kernel before
it in the stream is still finishing, and waits on the GPU, not the host, for that kernel's writes.

A decode step at batch 1 is some 300 short kernels (docs/device-checks/20261203-step-profile): each one's launch,
block ramp-up and first memory round trip used to wait for the whole previous kernel to drain. With PDL a kernel
launched with `launch_pdl=True` may be scheduled once every block of the kernel before it has called
`gdc_launch_dependents()` (or exited); it then does whatever does not depend on that kernel (computing addresses,
reading weights, which nothing in a step writes) and calls `gdc_wait()`, which returns once the kernel before it has
completed and its memory is visible, before it reads or writes anything else. A kernel's completion implies its
own wait returned, so the order is transitive through the whole step; a kernel launched without PDL (cuBLAS, torch
ops) waits for everything before it as usual. CUDA graph capture keeps these as programmatic edges.

The contract every kernel here keeps when launched with USE_PDL: no load of data another kernel may write, and no
store at all, before `gdc_wait()`. ENGINE_PDL=0 turns it off (an A/B in one run); it is off wherever the hardware
or triton's CPU interpreter cannot do it.
"""

from __future__ import annotations

import functools
import os

import torch


def requested() -> bool:
    return os.environ.get("ENGINE_PDL", "1").strip().lower() not in ("0", "false", "off", "no")


@functools.cache
def _capable(index: int) -> bool:
    """Hopper or newer, and a triton whose CUDA launcher takes `launch_pdl` (3.3 and later)."""
    try:
        from triton.backends.nvidia.compiler import CUDAOptions
    except ImportError:
        return False
    fields = getattr(CUDAOptions, "__dataclass_fields__", {})
    return "launch_pdl" in fields and torch.cuda.get_device_capability(index)[0] >= 9


def enabled(device: torch.device) -> bool:
    """Launch the step's Triton kernels with PDL on this device."""
    if device.type != "cuda" or not requested():
        return False
    if os.environ.get("TRITON_INTERPRET", "0").strip().lower() in ("1", "true", "on", "yes"):
        return False
    return _capable(device.index if device.index is not None else torch.cuda.current_device())


def options(device: torch.device) -> dict[str, bool]:
    """Launch keywords and the USE_PDL constexpr for a kernel launched on `device`."""
    on = enabled(device)
    return {"USE_PDL": True, "launch_pdl": True} if on else {"USE_PDL": False}
