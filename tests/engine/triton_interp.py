"""Shared by the tests that run Triton kernels under TRITON_INTERPRET=1: can this triton's interpreter run them?"""
from __future__ import annotations

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
    except Exception as e:   # triton wraps the numpy error in its InterpreterError
        return f"triton {triton.__version__}'s interpreter fails on tensor loop bounds here ({e})"
    return None
