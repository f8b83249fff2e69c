"""Shared by the tests that run Triton kernels under TRITON_INTERPRET=1: can this triton's interpreter run them?"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest
import torch


def interpreter_loop_problem() -> str | None:
    """Why this triton's interpreter cannot run `for j in range(<tensor>)` (every attention kernel loops so), or
    None. Before 3.9 it keeps scalars as 1-element arrays, and numpy 2.x refuses int() on those."""
    import triton
    import triton.language as tl

    @triton.jit
    def loop(x_ptr):
        n = tl.load(x_ptr)
        for j in range(0, n):
            tl.store(x_ptr + 1 + j, j)

    try:
        loop[(1,)](torch.tensor([2, 0, 0], dtype=torch.int32))
    except Exception as e:  # triton wraps the numpy error in its InterpreterError
        return f"triton {triton.__version__}'s interpreter fails on tensor loop bounds here ({e})"
    return None


def round_bf16_to_nearest_even(monkeypatch) -> None:  # noqa: ANN001 - pytest.MonkeyPatch, not imported here
    """triton 3.9's interpreter casts float32 -> bfloat16 by truncating the mantissa; a GPU rounds to nearest even
    (cvt.rn.bf16.f32), as torch does. Make the interpreter round as the GPU does, so kernels that round where torch
    rounds can be checked bit for bit on CPU."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter

    original = interpreter.InterpreterBuilder.cast_impl

    def cast_impl(self, src, dst_type):  # noqa: ANN001, ANN202 - triton's own signature
        if src.dtype.scalar == tl.float32 and dst_type.scalar == tl.bfloat16:
            rounded = torch.from_numpy(np.ascontiguousarray(src.data)).to(torch.bfloat16)
            return interpreter.TensorHandle(rounded.view(torch.int16).numpy().view(np.uint16), dst_type.scalar)
        return original(self, src, dst_type)

    monkeypatch.setattr(interpreter.InterpreterBuilder, "cast_impl", cast_impl)


def import_interpreted(*names: str) -> list[ModuleType]:
    """Import kernel modules with TRITON_INTERPRET=1 set (triton picks its CPU interpreter when a kernel module is
    imported), restore the variable, and skip the calling test module when triton is missing or the kernels were
    already imported for a GPU in this process."""
    saved = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "1"
    try:
        pytest.importorskip("triton", reason="triton is not installed")
        modules = [importlib.import_module(n) for n in names]
    finally:
        if saved is None:
            del os.environ["TRITON_INTERPRET"]
        else:
            os.environ["TRITON_INTERPRET"] = saved
    jitted = [
        v for m in modules for v in vars(m).values() if type(v).__name__ in ("JITFunction", "InterpretedFunction")
    ]
    if any(type(v).__name__ != "InterpretedFunction" for v in jitted):
        pytest.skip(
            "the Triton kernels were imported before TRITON_INTERPRET=1 was set in this process",
            allow_module_level=True,
        )
    return modules
