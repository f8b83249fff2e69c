"""The small-batch GEMV kernel (engine/kernels/triton_gemv.py) against F.linear, on CPU through triton's interpreter,
and the dispatch around it: which inputs it takes, which it leaves to F.linear, and that a model's linear layers
run the backend's GEMM.

As test_layer_kernels.py: TRITON_INTERPRET=1 is set while the kernel module is imported and around each test.
The kernel sums in float32 in another order than the reference and rounds once, so a half-precision output is within
one unit in the last place of F.linear's float32 result rounded to the same dtype.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from triton_interp import import_interpreted, interpreter_loop_problem, round_bf16_to_nearest_even

(triton_gemv,) = import_interpreted("engine.kernels.triton_gemv")


@pytest.fixture(autouse=True)
def interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    round_bf16_to_nearest_even(monkeypatch)


def skip_without_loops() -> None:
    """The kernel loops over K with a scalar argument as its bound, which triton's interpreter before 3.9 cannot run
    (asked with TRITON_INTERPRET=1 set, as the autouse fixture has it)."""
    if problem := interpreter_loop_problem():
        pytest.skip(problem)


def reference(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None) -> torch.Tensor:
    return F.linear(x.double(), w.double(), None if b is None else b.double()).to(x.dtype)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize(
    "m,n,k,bias",
    [
        (1, 64, 128, False),  # wide: one K slice, the unmasked loop
        (1, 48, 5000, False),  # narrow with K > 4096 not a multiple of 2048: masked 2048-long slices
        (1, 37, 1000, True),  # ragged N and K, a bias
        (3, 96, 200, False),  # rows not a power of two (narrow: wide weights take one row only)
        (4, 16, 4096, True),  # the largest batch the kernel takes; narrow: 2048-long K slices
        (2, 1, 17, False),  # one output column
    ],
)
def test_gemv_matches_f_linear(m: int, n: int, k: int, bias: bool, dtype: torch.dtype) -> None:
    skip_without_loops()
    g = torch.Generator().manual_seed(m * 1000 + n + k)
    x = torch.randn(m, k, generator=g).to(dtype)
    w = (torch.randn(n, k, generator=g) / k**0.5).to(dtype)
    b = torch.randn(n, generator=g).to(dtype) if bias else None
    assert triton_gemv.runs_gemv(x, w)
    got = triton_gemv.linear(x, w, b)
    want = reference(x, w, b)
    assert got.shape == (m, n) and got.dtype == dtype
    ulp = 2**-7 if dtype == torch.bfloat16 else 2**-10
    torch.testing.assert_close(got.float(), want.float(), atol=1e-3, rtol=ulp)


def test_gemv_reads_strided_rows() -> None:
    skip_without_loops()
    """A row slice of a wider activation buffer (row stride > K) is read in place."""
    g = torch.Generator().manual_seed(7)
    wide = torch.randn(4, 160, generator=g).to(torch.bfloat16)
    x = wide[:, 16:144]
    w = (torch.randn(48, 128, generator=g) / 12).to(torch.bfloat16)
    torch.testing.assert_close(triton_gemv.linear(x, w).float(), reference(x, w, None).float(), atol=1e-3, rtol=2**-7)


def test_gemv_leaves_the_rest_to_f_linear() -> None:
    """float32 (exact-parity runs), more than MAX_ROWS rows, 3-D inputs and large wide weights keep cuBLAS's F.linear."""
    w16 = torch.randn(8, 32).to(torch.bfloat16)
    assert not triton_gemv.runs_gemv(torch.randn(2, 32), torch.randn(8, 32))
    assert not triton_gemv.runs_gemv(torch.randn(triton_gemv.MAX_ROWS + 1, 32).to(torch.bfloat16), w16)
    assert not triton_gemv.runs_gemv(torch.randn(1, 2, 32).to(torch.bfloat16), w16)
    assert not triton_gemv.runs_gemv(torch.zeros(0, 32).to(torch.bfloat16), w16)
    big = torch.empty(triton_gemv.MAX_WEIGHT_BYTES // 2 // 64 + 1, 64, dtype=torch.bfloat16)
    assert not triton_gemv.runs_gemv(torch.randn(1, 64).to(torch.bfloat16), big)
    x = torch.randn(9, 32).to(torch.bfloat16)  # no kernel launch: F.linear
    torch.testing.assert_close(triton_gemv.linear(x, w16), F.linear(x, w16))


def test_launch_shape_follows_the_measured_dispatch() -> None:
    """One row: every narrow weight (N <= K) and wide ones up to 16 MiB; two to four rows: small narrow weights only;
    five rows and more: cuBLAS. Narrow tiles are 4 columns over 2048-long K slices (the padded row when K <= 4096 is
    not a multiple of 2048), wide ones 8 columns over up to 1024."""
    mib = 1 << 20
    assert triton_gemv.launch_shape(1, 1024, 2048, 4 * mib) == (4, 2048)  # 0.6B o_proj
    assert triton_gemv.launch_shape(1, 1024, 3072, 6 * mib) == (4, 4096)  # 0.6B down_proj
    assert triton_gemv.launch_shape(1, 2560, 9728, 48 * mib) == (4, 2048)  # 4B down_proj: large, narrow
    assert triton_gemv.launch_shape(1, 4096, 1024, 8 * mib) == (8, 1024)  # 0.6B qkv: small, wide
    assert triton_gemv.launch_shape(1, 19456, 2560, 95 * mib) is None  # 4B gate_up: large, wide
    assert triton_gemv.launch_shape(4, 1024, 2048, 4 * mib) == (4, 2048)
    assert triton_gemv.launch_shape(4, 4096, 1024, 8 * mib) is None  # wide at four rows
    assert triton_gemv.launch_shape(2, 2560, 4096, 20 * mib) is None  # large narrow at two rows
    assert triton_gemv.launch_shape(5, 1024, 2048, 4 * mib) is None
    assert triton_gemv.launch_shape(0, 1024, 2048, 4 * mib) is None


def test_model_linear_layers_run_the_backend_gemm() -> None:
    """set_attention_kernels hands every Linear (QKV, o, gate/up, down) the backend's GEMM."""
    from dataclasses import replace

    from engine.kernels.backends import REFERENCE, LayerKernels
    from engine.model.config import ModelConfig
    from engine.model.decoder import DecoderForCausalLM
    from engine.model.linear import Linear
    from engine.model.tiny import TINY_QWEN3

    calls: list[tuple[int, ...]] = []

    def counting_linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:
        calls.append(tuple(w.shape))
        return F.linear(x, w, b)

    model = DecoderForCausalLM(ModelConfig.from_hf_dict(TINY_QWEN3, "tiny"))
    layers = LayerKernels(
        REFERENCE.layers.rms_norm, REFERENCE.layers.rope_write_kv, REFERENCE.layers.silu_and_mul, counting_linear
    )
    model.set_attention_kernels(replace(REFERENCE, layers=layers))
    linears = [m for m in model.modules() if isinstance(m, Linear)]
    assert linears and all(m.ops.linear is counting_linear for m in linears)
    linears[0](torch.randn(2, linears[0].weight.shape[1]))
    assert calls == [tuple(linears[0].weight.shape)]


@pytest.mark.parametrize(
    "m,n,k,with_residual",
    [
        (1, 64, 128, True),  # wide, one K slice
        (1, 48, 5000, True),  # narrow, masked 2048-long slices: the norm's pass walks several
        (3, 96, 200, False),  # layer 0: no residual yet, x is the residual stream
        (4, 16, 4096, True),  # four rows
    ],
)
def test_norm_linear_fused_equals_norm_kernel_then_gemv(m: int, n: int, k: int, with_residual: bool) -> None:
    """The fused kernel gives exactly what the RMSNorm kernel followed by the GEMV kernel gives (the normed row is
    rounded where the norm kernel rounds it), and the residual stream x + residual it writes is the norm kernel's."""
    skip_without_loops()
    from engine.kernels import triton_norm

    g = torch.Generator().manual_seed(m * 7 + n + k)
    x = torch.randn(m, k, generator=g).to(torch.bfloat16)
    residual = torch.randn(m, k, generator=g).to(torch.bfloat16) if with_residual else None
    norm_w = (1 + 0.1 * torch.randn(k, generator=g)).to(torch.bfloat16)
    w = (torch.randn(n, k, generator=g) / k**0.5).to(torch.bfloat16)
    normed, want_residual = triton_norm.rms_norm(x, norm_w, 1e-6, residual)
    want = triton_gemv.linear(normed, w)
    got, got_residual = triton_gemv.norm_linear(x, residual, norm_w, 1e-6, w)
    assert torch.equal(got, want)
    assert torch.equal(got_residual, want_residual)
    if residual is None:
        assert got_residual is x


def test_norm_linear_falls_back_where_the_gemv_does_not_run() -> None:
    """Shapes the GEMV leaves to cuBLAS (here: float32) take the norm kernel, then F.linear: same contract."""
    from engine.kernels import layer_reference

    g = torch.Generator().manual_seed(3)
    x, residual = torch.randn(6, 32, generator=g), torch.randn(6, 32, generator=g)
    norm_w, w = torch.randn(32, generator=g), torch.randn(8, 32, generator=g)
    got, got_residual = triton_gemv.norm_linear(x, residual, norm_w, 1e-6, w)
    normed, want_residual = layer_reference.rms_norm(x, norm_w, 1e-6, residual)
    torch.testing.assert_close(got, F.linear(normed, w))
    torch.testing.assert_close(got_residual, want_residual)


def test_layer_kernels_compose_norm_and_linear_without_a_fused_kernel() -> None:
    """A backend without a fused kernel (the torch reference) runs its norm, then its GEMM."""
    from engine.kernels.backends import REFERENCE_LAYERS
    from engine.kernels import layer_reference

    g = torch.Generator().manual_seed(5)
    x, residual = torch.randn(3, 16, generator=g), torch.randn(3, 16, generator=g)
    norm_w, w, b = torch.randn(16, generator=g), torch.randn(4, 16, generator=g), torch.randn(4, generator=g)
    got, got_residual = REFERENCE_LAYERS.norm_linear(x, residual, norm_w, 1e-6, w, b)
    normed, want_residual = layer_reference.rms_norm(x, norm_w, 1e-6, residual)
    torch.testing.assert_close(got, F.linear(normed, w, b))
    torch.testing.assert_close(got_residual, want_residual)


@pytest.mark.parametrize(
    "m,i,k,with_residual",
    [
        (1, 32, 128, True),  # wide gate | up, one K slice
        (1, 24, 5000, True),  # narrow halves, masked K slices; 24 columns: the last program's are partly masked
        (2, 40, 200, False),  # layer 0: no residual yet
        (4, 8, 4096, True),  # four rows
    ],
)
def test_norm_linear_act_equals_norm_gemv_then_silu_kernel(m: int, i: int, k: int, with_residual: bool) -> None:
    """The gate_up GEMV with SiLU * up in its epilogue gives exactly what the fused norm GEMV followed by the SiLU
    kernel gives (both halves rounded where the [M, 2 I] product is, the SiLU where triton_act rounds it), and the
    same residual stream."""
    skip_without_loops()
    from engine.kernels import triton_act

    g = torch.Generator().manual_seed(m * 11 + i + k)
    x = torch.randn(m, k, generator=g).to(torch.bfloat16)
    residual = torch.randn(m, k, generator=g).to(torch.bfloat16) if with_residual else None
    norm_w = (1 + 0.1 * torch.randn(k, generator=g)).to(torch.bfloat16)
    w = (torch.randn(2 * i, k, generator=g) / k**0.5 * 4).to(torch.bfloat16)
    gate_up, want_residual = triton_gemv.norm_linear(x, residual, norm_w, 1e-6, w)
    want = triton_act.silu_and_mul(gate_up)
    got, got_residual = triton_gemv.norm_linear_act(x, residual, norm_w, 1e-6, w)
    assert got.shape == (m, i)
    assert torch.equal(got, want)
    assert torch.equal(got_residual, want_residual)
    assert (got != 0).any()  # not a zero output that would also match a zero product


def test_norm_linear_act_falls_back_where_the_gemv_does_not_run() -> None:
    """Float32 (and more than four rows) take the norm kernel, the GEMM and the SiLU kernel: the reference result."""
    from engine.kernels import layer_reference

    g = torch.Generator().manual_seed(9)
    x, residual = torch.randn(6, 32, generator=g), torch.randn(6, 32, generator=g)
    norm_w, w = torch.randn(32, generator=g), torch.randn(16, 32, generator=g)
    got, got_residual = triton_gemv.norm_linear_act(x, residual, norm_w, 1e-6, w)
    normed, want_residual = layer_reference.rms_norm(x, norm_w, 1e-6, residual)
    torch.testing.assert_close(got, layer_reference.silu_and_mul(F.linear(normed, w)))
    torch.testing.assert_close(got_residual, want_residual)


def test_reference_layers_compose_norm_linear_and_activation() -> None:
    """A backend without the fused kernel runs norm_linear, then its silu_and_mul."""
    from engine.kernels import layer_reference
    from engine.kernels.backends import REFERENCE_LAYERS

    g = torch.Generator().manual_seed(13)
    x, residual = torch.randn(3, 16, generator=g), torch.randn(3, 16, generator=g)
    norm_w, w = torch.randn(16, generator=g), torch.randn(10, 16, generator=g)
    got, got_residual = REFERENCE_LAYERS.norm_linear_act(x, residual, norm_w, 1e-6, w)
    normed, want_residual = layer_reference.rms_norm(x, norm_w, 1e-6, residual)
    torch.testing.assert_close(got, layer_reference.silu_and_mul(F.linear(normed, w)))
    torch.testing.assert_close(got_residual, want_residual)


def test_a_fused_gemv_takes_wide_weights_at_one_row_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wide weight over the size limit stays on cuBLAS, fused or not, by default (the fused GEMV lost there in the
    step); with FUSED_WIDE a norm-fused GEMV takes it at one row, and at two rows it stays on cuBLAS either way."""
    big = triton_gemv.MAX_WEIGHT_BYTES + 2
    monkeypatch.setattr(triton_gemv, "FUSED_WIDE", False)
    assert triton_gemv.launch_shape(1, 6144, 2560, big) is None
    assert triton_gemv.launch_shape(1, 6144, 2560, big, fused=True) is None
    monkeypatch.setattr(triton_gemv, "FUSED_WIDE", True)
    assert triton_gemv.launch_shape(1, 6144, 2560, big) is None
    assert triton_gemv.launch_shape(1, 6144, 2560, big, fused=True) == (8, 1024)
    assert triton_gemv.launch_shape(2, 6144, 2560, big, fused=True) is None
