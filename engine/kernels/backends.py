"""Which kernels a model runs: the pure-torch reference or the Triton ones, picked by name.

A backend is the attention kernels plus `layers`, the ops between a decoder layer's GEMMs (RMSNorm with the residual
add, q/k norm + rotary + KV write, SiLU * up): one fused kernel each on Triton, plain torch on the reference.

    select("auto", device)   -> Triton on CUDA when triton imports (and the shapes suit it), torch otherwise
    select("triton", device) -> Triton, or one clear EngineError saying why not
    select("torch", device)  -> the reference kernels

ENGINE_FUSED_OPS=0 keeps the Triton attention but runs the layer ops as their torch references (name
"triton+eager-ops"): the eager-ops column of an ablation (tools/device_async.py), graphs and all else unchanged.
ENGINE_GEMV=0 keeps every GEMM on cuBLAS (F.linear); by default the Triton backend runs the linear layers of a
batch of up to 4 half-precision rows as a GEMV kernel (triton_gemv.py), the qkv and gate_up projections with the
RMSNorm before them fused in (ENGINE_NORM_GEMV=0 keeps the norm a kernel of its own), and gate_up with the SiLU * up
after it in its epilogue (ENGINE_ACT_GEMV=0 keeps the activation a kernel of its own). ENGINE_PDL=0 launches the
Triton kernels without programmatic dependent launch (engine/kernels/pdl.py).
ENGINE_COMPILE=1 swaps the Triton backend for its torch.compile alternative (name "triton+compile"): the layer ops
are the torch references, which the model compiles whole with Inductor (engine/model/decoder.py), the attention
runs as opaque custom ops (compile_ops.py). Off by default; the torch backend ignores it.

Triton is imported lazily (`TRITON` is built on first use): `@triton.jit` decides between GPU compilation and
the CPU interpreter when the kernel modules are imported, so importing them must wait until they are needed.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import torch
import torch.nn.functional as F

from engine.errors import EngineError
from engine.kernels import layer_reference, reference
from engine.kernels.attention_metadata import AttentionMetadata

BACKENDS = ("auto", "triton", "torch")


@dataclass(frozen=True)
class LayerKernels:
    """Signatures: engine/kernels/layer_reference.py, which is also the torch backend's implementation."""

    rms_norm: Callable[..., tuple[torch.Tensor, torch.Tensor]]  # (x, weight, eps, residual) -> (normed, residual)
    rope_write_kv: Callable[..., torch.Tensor]  # (qkv, positions, cos_sin, ..., kv_cache, slots) -> q
    silu_and_mul: Callable[[torch.Tensor], torch.Tensor]  # [T, 2 I] -> [T, I]
    # (x, weight, bias) -> x W^T + b: F.linear, or on Triton a GEMV kernel for the few rows of a small decode batch
    linear: Callable[..., torch.Tensor] = F.linear
    # (x, residual, norm_weight, eps, weight, bias) -> (rms_norm(x + residual) W^T + b, x + residual) in one kernel,
    # or None: rms_norm, then linear (see norm_linear below)
    fused_norm_linear: Callable[..., tuple[torch.Tensor, torch.Tensor]] | None = None
    # (x, residual, norm_weight, eps, gate_up_weight) -> (silu_and_mul(rms_norm(x + residual) W^T), x + residual) in
    # one kernel where it can, or None: norm_linear, then silu_and_mul
    fused_norm_linear_act: Callable[..., tuple[torch.Tensor, torch.Tensor]] | None = None

    def norm_linear(
        self,
        x: torch.Tensor,
        residual: torch.Tensor | None,
        norm_weight: torch.Tensor,
        eps: float,
        weight: torch.Tensor,
        bias: torch.Tensor | None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """A layer's RMSNorm (residual add in front) and the projection after it: (normed x W^T + b, new residual)."""
        if self.fused_norm_linear is not None:
            return self.fused_norm_linear(x, residual, norm_weight, eps, weight, bias)
        normed, residual = self.rms_norm(x, norm_weight, eps, residual)
        return self.linear(normed, weight, bias), residual

    def norm_linear_act(
        self,
        x: torch.Tensor,
        residual: torch.Tensor | None,
        norm_weight: torch.Tensor,
        eps: float,
        weight: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The MLP's RMSNorm, packed gate | up projection and SiLU * up: (activation [T, I], new residual)."""
        if self.fused_norm_linear_act is not None:
            return self.fused_norm_linear_act(x, residual, norm_weight, eps, weight)
        gate_up, residual = self.norm_linear(x, residual, norm_weight, eps, weight, None)
        return self.silu_and_mul(gate_up), residual


REFERENCE_LAYERS = LayerKernels(layer_reference.rms_norm, layer_reference.rope_write_kv, layer_reference.silu_and_mul)


@dataclass(frozen=True)
class AttentionKernels:
    write_kv: Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], None]
    paged_attention: Callable[[torch.Tensor, torch.Tensor, AttentionMetadata, float], torch.Tensor]
    prefill_attention: Callable[[torch.Tensor, torch.Tensor, torch.Tensor, AttentionMetadata, float], torch.Tensor]
    name: str = "torch"
    layers: LayerKernels = REFERENCE_LAYERS
    compile_model: bool = False  # the model wraps its decoder in torch.compile (ENGINE_COMPILE=1)


REFERENCE = AttentionKernels(reference.write_kv, reference.paged_attention, reference.prefill_attention, "torch")


def triton_interpreter_on() -> bool:
    """TRITON_INTERPRET as triton reads it: its CPU interpreter runs the kernels on CPU tensors."""
    return os.environ.get("TRITON_INTERPRET", "0").strip().lower() in ("1", "true", "on", "yes")


def gemv_enabled() -> bool:
    return os.environ.get("ENGINE_GEMV", "1").strip().lower() not in ("0", "false", "off", "no")


def norm_gemv_enabled() -> bool:
    return os.environ.get("ENGINE_NORM_GEMV", "1").strip().lower() not in ("0", "false", "off", "no")


def act_gemv_enabled() -> bool:
    return os.environ.get("ENGINE_ACT_GEMV", "1").strip().lower() not in ("0", "false", "off", "no")


def _triton_kernels() -> AttentionKernels:
    from engine.kernels import triton_act, triton_gemv, triton_norm, triton_rope_kv
    from engine.kernels import triton_attention as ta

    gemv = gemv_enabled()
    linear = triton_gemv.linear if gemv else F.linear
    fused = triton_gemv.norm_linear if gemv and norm_gemv_enabled() else None
    fused_act = triton_gemv.norm_linear_act if fused is not None and act_gemv_enabled() else None
    layers = LayerKernels(
        triton_norm.rms_norm, triton_rope_kv.rope_write_kv, triton_act.silu_and_mul, linear, fused, fused_act
    )
    return AttentionKernels(ta.write_kv, ta.paged_attention, ta.prefill_attention, "triton", layers)


def compile_requested() -> bool:
    return os.environ.get("ENGINE_COMPILE", "0").strip().lower() in ("1", "true", "on", "yes")


def fused_ops_enabled() -> bool:
    return os.environ.get("ENGINE_FUSED_OPS", "1").strip().lower() not in ("0", "false", "off", "no")


def _eager_ops_kernels(kernels: AttentionKernels) -> AttentionKernels:
    rope_write_kv = functools.partial(layer_reference.rope_write_kv, write_kv=kernels.write_kv)
    layers = LayerKernels(layer_reference.rms_norm, rope_write_kv, layer_reference.silu_and_mul)
    return replace(kernels, name="triton+eager-ops", layers=layers)


def _compiled_kernels() -> AttentionKernels:
    from engine.kernels import compile_ops

    rope_write_kv = functools.partial(layer_reference.rope_write_kv, write_kv=compile_ops.write_kv)
    layers = LayerKernels(layer_reference.rms_norm, rope_write_kv, layer_reference.silu_and_mul)
    return AttentionKernels(
        compile_ops.write_kv,
        compile_ops.paged_attention,
        reference.prefill_attention,
        "triton+compile",
        layers,
        compile_model=True,
    )


def __getattr__(name: str) -> Any:  # PEP 562: `backends.TRITON` imports triton only when first asked for
    if name == "TRITON":
        return _triton_kernels()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def triton_unavailable(device: torch.device, head_dim: int | None = None, block_size: int | None = None) -> str | None:
    """Why the Triton kernels cannot run here (one sentence), or None when they can."""
    device = torch.device(device)
    if device.type == "cpu" and not triton_interpreter_on():
        return "the Triton kernels need a CUDA device (or TRITON_INTERPRET=1 for triton's slow CPU interpreter)"
    if device.type not in ("cpu", "cuda"):
        return f"the Triton kernels run on cuda, not {device.type}"
    if head_dim is not None and (head_dim < 16 or head_dim > 256 or head_dim & (head_dim - 1)):
        return f"the Triton kernels need head_dim a power of two in 16..256, this model has {head_dim}"
    if block_size is not None and (block_size < 16 or block_size & (block_size - 1)):
        return f"the Triton kernels need block_size a power of two >= 16, got {block_size}"
    try:
        importlib.import_module("triton")
    except Exception as e:  # a broken install fails in more ways than ImportError
        return f"triton does not import ({type(e).__name__}: {e})"
    return None


def require_triton(device: torch.device, head_dim: int | None = None, block_size: int | None = None) -> None:
    """Raise one clear EngineError when attention_backend='triton' cannot run here."""
    why_not = triton_unavailable(device, head_dim, block_size)
    if why_not is not None:
        raise EngineError(f"attention_backend='triton' cannot run: {why_not}; use --attention-backend torch (or auto)")


def check_backend_name(name: str) -> None:
    if name not in BACKENDS:
        raise EngineError(f"attention_backend must be one of {', '.join(BACKENDS)}, got {name!r}")


def select(
    name: str, device: torch.device, *, head_dim: int | None = None, block_size: int | None = None
) -> AttentionKernels:
    """The kernels `name` asks for on `device`; "auto" falls back to torch where Triton cannot run."""
    check_backend_name(name)
    if name == "torch":
        return REFERENCE
    device = torch.device(device)
    if name == "auto" and (device.type != "cuda" or triton_unavailable(device, head_dim, block_size) is not None):
        return REFERENCE  # auto never picks the CPU interpreter: it is for tests
    require_triton(device, head_dim, block_size)
    kernels = _triton_kernels()
    on_cpu = device.type == "cpu"
    if _interpreted() != on_cpu:  # fixed when the kernel modules were first imported in this process
        if name == "auto":
            return REFERENCE
        built, fix = (
            ("a GPU", "set TRITON_INTERPRET=1") if on_cpu else ("the CPU interpreter", "unset TRITON_INTERPRET")
        )
        raise EngineError(
            f"the Triton kernels in this process were built for {built} when first imported, so they "
            f"cannot run on {device.type}; {fix} before starting Python"
        )
    if compile_requested():
        return _compiled_kernels()
    return kernels if fused_ops_enabled() else _eager_ops_kernels(kernels)


def _interpreted() -> bool:
    """Whether the imported kernels are triton's interpreted functions (decided at import, see the docstring)."""
    from engine.kernels.triton_unified import _unified_kernel

    return type(_unified_kernel).__name__ == "InterpretedFunction"
