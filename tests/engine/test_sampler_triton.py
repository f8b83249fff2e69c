"""The fused Triton sampling kernel against the torch sampler (its oracle) and the exact distribution, on CPU
through triton's interpreter, plus one compile of every variant for an H100/H200 (sm_90) without a GPU.

As in test_triton_kernels.py, TRITON_INTERPRET is set while the kernel module is imported (`@triton.jit` picks the
interpreter then) and around each test (launches read it too). Every program runs in Python here, a few
milliseconds per search pass, so vocabularies and row counts stay small.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from sampling_cases import OFF, chi_square_ok, exact_distribution, rows, tensors
from triton_interp import interpreter_loop_problem

_saved = os.environ.get("TRITON_INTERPRET")
os.environ["TRITON_INTERPRET"] = "1"
try:
    pytest.importorskip("triton", reason="triton is not installed")
    from engine.kernels import triton_sampling

    LOOP_PROBLEM = interpreter_loop_problem()
finally:
    if _saved is None:
        del os.environ["TRITON_INTERPRET"]
    else:
        os.environ["TRITON_INTERPRET"] = _saved

from engine.worker.sampler import Sampler, SamplingTensors, sample_reference

if type(triton_sampling._sample_kernel).__name__ != "InterpretedFunction":
    pytest.skip(
        "the Triton kernels were imported before TRITON_INTERPRET=1 was set in this process", allow_module_level=True
    )
# Every pass of the kernel is a loop over the vocabulary; an old interpreter cannot run such loops.
pytestmark = pytest.mark.skipif(LOOP_PROBLEM is not None, reason=str(LOOP_PROBLEM))

ROOT = Path(__file__).resolve().parents[2]
V = 40
BLOCK = 16  # three blocks, the last one ragged: every pass crosses block boundaries


@pytest.fixture(autouse=True)
def interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    patch_language_once_per_launch(monkeypatch)


def patch_language_once_per_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    """triton's interpreter patches triton.language again at every device-function call (our helpers, and tl.max
    or tl.sum too), a few ms each: half of these tests' time. The launch patched the same modules already and
    device-level patches are never undone, so patching each module set once per launch leaves the same state.
    Skipped where the interpreter lacks the internals this relies on (the tests then just run slower)."""
    import inspect

    import triton.language as tl
    from triton.runtime import interpreter as interp

    original, scope_type = getattr(interp, "_patch_lang", None), getattr(interp, "_LangPatchScope", None)
    if original is None or scope_type is None or not hasattr(scope_type, "restore"):
        return
    done: set[frozenset[int]] = set()

    def patch_lang(fn: Callable[..., Any]) -> Any:
        key = frozenset(id(v) for v in fn.__globals__.values() if inspect.ismodule(v) and v in (tl, tl.core))
        if key in done:
            return scope_type()
        launch = not done  # the launch's own patch: undone when the launch ends, so forget what was patched
        done.add(key)
        scope = original(fn)
        if launch:
            restore = scope.restore

            def restore_and_forget() -> None:
                done.clear()
                restore()

            scope.restore = restore_and_forget
        return scope

    monkeypatch.setattr(interp, "_patch_lang", patch_lang)


def fused(x: torch.Tensor, t: SamplingTensors, block: int = BLOCK) -> torch.Tensor:
    return triton_sampling.sample(
        x,
        t.temperature,
        t.top_k,
        t.top_p,
        t.seeds,
        t.positions,
        has_top_k=t.need_top_k,
        has_top_p=t.need_top_p,
        block=block,
    )


def random_logits(n: int, vocab: int = V, seed: int = 0, scale: float = 3.0) -> torch.Tensor:
    return torch.randn(n, vocab, generator=torch.Generator().manual_seed(seed)) * scale


def mixed_settings(n: int, seed: int = 1) -> dict[str, torch.Tensor]:
    """Per-row temperature (every 5th row greedy), top-k in [1, V + 5] and top-p in (0, 1)."""
    g = torch.Generator().manual_seed(seed)
    temperature = torch.rand(n, generator=g) * 2 + 0.05
    temperature[::5] = 0.0
    return {
        "temperature": temperature,
        "top_k": torch.randint(1, V + 6, (n,), generator=g),
        "top_p": torch.rand(n, generator=g).clamp(min=0.05),
    }


CUTS = {"temperature": (False, False), "top-k": (True, False), "top-p": (False, True), "top-k+top-p": (True, True)}


@pytest.mark.parametrize("cuts", CUTS.values(), ids=CUTS.keys())
def test_same_tokens_as_the_torch_sampler_bf16(cuts: tuple[bool, bool]) -> None:
    """Same noise, same cuts: the kernel draws the oracle's token on every row (bf16, as the model emits)."""
    n = 16
    s = mixed_settings(n)
    t = tensors(
        n,
        s["temperature"],
        s["top_k"] if cuts[0] else None,
        s["top_p"] if cuts[1] else 1.0,
        seeds=torch.arange(n) * 7 + 3,
        positions=torch.arange(n) + 100,
    )
    x = random_logits(n).bfloat16()
    assert torch.equal(fused(x, t), sample_reference(x, t))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_same_tokens_as_the_torch_sampler_other_dtypes(dtype: torch.dtype) -> None:
    n = 8
    s = mixed_settings(n, seed=2)
    t = tensors(n, s["temperature"], s["top_k"], s["top_p"], seeds=torch.arange(n) + 50)
    x = random_logits(n, seed=3).to(dtype)
    assert torch.equal(fused(x, t), sample_reference(x, t))


def test_cuts_over_the_whole_float32_range() -> None:
    """Logits from 1e-30 to 1e30 in magnitude, both signs: the search spans the whole 32-bit key space."""
    g = torch.Generator().manual_seed(4)
    x = torch.sign(torch.randn(4, V, generator=g)) * 10 ** (torch.rand(4, V, generator=g) * 60 - 30)
    x[:, :3] = x[:, :3].abs() * 1e-30  # tiny positives next to the cut of a large k
    t = tensors(4, temperature=[1.0, 1e29, 1e30, 3e29], top_k=[35, 2, OFF, 30], top_p=[1.0, 1.0, 0.7, 0.9])
    assert torch.equal(fused(x, t), sample_reference(x, t))


def test_greedy_is_the_exact_argmax_with_first_index_ties() -> None:
    x = random_logits(4).bfloat16()
    x[1, 5] = x[1, 37] = x[1].max() + 1  # a tie across blocks: the earlier index wins
    x[2, 17] = x[2, 18] = x[2].max() + 1  # a tie inside a block
    x[3] = float("-inf")  # nothing finite: index 0, as torch.argmax
    t = tensors(4, temperature=0.0, top_k=3, top_p=0.5)
    assert fused(x, t).tolist() == x.float().argmax(-1).tolist() == [x[0].float().argmax().item(), 5, 17, 0]


def test_a_row_does_not_depend_on_its_neighbours_or_its_index() -> None:
    n = 6
    s = mixed_settings(n, seed=5)
    t = tensors(n, s["temperature"], s["top_k"], s["top_p"], seeds=[9, 8, 7, 6, 5, 4], positions=[1, 2, 3, 4, 5, 6])
    x = random_logits(n, seed=6).bfloat16()
    full = fused(x, t)
    order = torch.tensor([4, 2, 0, 5, 1, 3])
    assert torch.equal(fused(x[order], rows(t, order)), full[order])
    for i in (1, 3):
        assert fused(x[i : i + 1], rows(t, [i]))[0] == full[i]


def test_row_strided_logits() -> None:
    """A view of the first V columns of a wider buffer (as a padded vocabulary gives): rows are strided."""
    wide = random_logits(4, vocab=V + 24, seed=7).bfloat16()
    x = wide[:, :V]
    t = tensors(4, temperature=[0.0, 1.0, 0.7, 1.3], top_k=[OFF, 5, 12, OFF], top_p=[1.0, 1.0, 0.8, 0.6])
    assert torch.equal(fused(x, t), sample_reference(x.contiguous(), t))


def test_edge_cases_of_the_cuts() -> None:
    n = 8
    x = random_logits(n, seed=8).bfloat16()
    greedy = x.float().argmax(-1)
    seeds = torch.arange(n) * 11
    assert torch.equal(fused(x, tensors(n, 1.0, top_k=1, seeds=seeds)), greedy)  # k = 1
    assert torch.equal(fused(x, tensors(n, 1.0, top_p=1e-6, seeds=seeds)), greedy)  # tiny p
    plain = fused(x, tensors(n, 0.9, seeds=seeds))
    assert torch.equal(plain, sample_reference(x, tensors(n, 0.9, seeds=seeds)))
    assert torch.equal(fused(x, tensors(n, 0.9, top_k=[V, V + 1, 10 * V, V] * 2, seeds=seeds)), plain)  # k >= V
    p_one = tensors(n, 0.9, top_k=[3] + [OFF] * (n - 1), top_p=[0.5] + [1.0] * (n - 1), seeds=seeds)  # p = 1
    assert torch.equal(fused(x, p_one)[1:], plain[1:])


def test_ties_at_a_cut_stay_together() -> None:
    x = torch.tensor([[3.0, 1.0, 2.0, 2.0, 2.0, 0.0, 2.0, -1.0]]).bfloat16().expand(32, 8).contiguous()
    t = tensors(32, temperature=1.0, top_k=2, seeds=torch.arange(32))  # the 2nd largest is a 4-way tie
    out = fused(x, t, block=4)
    assert set(out.tolist()) == {0, 2, 3, 4, 6}
    assert torch.equal(out, sample_reference(x, t))


def test_minus_infinity_logits_and_extreme_temperatures() -> None:
    n = 24
    x = torch.full((n, 20), float("-inf"), dtype=torch.bfloat16)
    x[:, 3] = x[:, 11] = 1.0
    x[:, 17] = 0.5
    out = fused(x, tensors(n, temperature=1e-30, seeds=torch.arange(n)), block=8)
    assert set(out.tolist()) == {3, 11}  # the tied maxima; never a -inf token, never 17
    t = tensors(n, temperature=1e30, top_k=2, top_p=0.9, seeds=torch.arange(n))
    assert set(fused(x, t, block=8).tolist()) == {3, 11}
    hot = fused(x, tensors(n, temperature=1e30, seeds=torch.arange(n)), block=8)
    assert set(hot.tolist()) == {3, 11, 17}  # all finite tokens, near uniform
    nothing = torch.full((2, 20), float("-inf"))
    assert all(0 <= i < 20 for i in fused(nothing, tensors(2, [1.0, 0.5], top_k=3, top_p=0.5)).tolist())


# Adjacent bfloat16 values (steps of 1/128), so each cut's search ends after one pass; T = 1/64 spreads them.
NARROW = [1.0 + i / 128 for i in (7, 6, 5, 4, 3, 1, 0, 2)]


@pytest.mark.parametrize(
    ("n", "temperature", "top_k", "top_p"),
    [(400, 1.0, None, 1.0), (240, 1 / 64, 5, 0.8)],
    ids=["temperature", "top-k+top-p"],
)
def test_draws_follow_the_exact_renormalised_distribution(
    n: int, temperature: float, top_k: int | None, top_p: float
) -> None:
    x = torch.tensor(NARROW if top_k else [2.0, 1.5, 1.125, 0.625, 0.3125, 0.0, float("-inf"), -0.875])
    t = tensors(
        n,
        temperature=temperature,
        top_k=top_k,
        top_p=top_p,
        seeds=torch.arange(n) * 7919,
        positions=torch.arange(n) % 97,
    )
    ok, why = chi_square_ok(
        fused(x.bfloat16().expand(n, 8).contiguous(), t), exact_distribution(x.tolist(), temperature, top_k, top_p)
    )
    assert ok, why


def test_no_host_synchronisation(monkeypatch: pytest.MonkeyPatch) -> None:
    x = random_logits(4, seed=9).bfloat16()
    t = tensors(4, temperature=[0.0, 1.0, 0.7, 1.2], top_k=[3, OFF, 9, 2], top_p=[1.0, 0.7, 0.9, 0.5])
    want = sample_reference(x, t)

    def forbidden(*_: object) -> None:
        raise AssertionError("host synchronisation in the fused sampler")

    for name in ("item", "tolist", "nonzero", "any", "all"):
        monkeypatch.setattr(torch.Tensor, name, forbidden)
    out = fused(x, t)
    monkeypatch.undo()
    assert torch.equal(out, want)


def test_every_variant_compiles_for_sm90() -> None:
    """The interpreter runs Python; this runs triton's real front end and ptxas for an H100/H200, without a GPU:
    every variant compiles, and with Qwen3's vocabulary (a multiple of 16, so the launch marks V and the row stride
    divisible by 16) the logits are read in 16-byte vectors."""
    script = textwrap.dedent("""
        import itertools
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource, compile
        from engine.kernels import triton_sampling as ts
        sig = {"out_ptr": "*i64", "logits_ptr": None, "temperature_ptr": "*fp32", "top_k_ptr": "*i64",
               "top_p_ptr": "*fp32", "seed_ptr": "*i64", "position_ptr": "*i64", "V": "i32", "stride_row": "i32"}
        sig.update({name: "constexpr" for name in ("HAS_TOP_K", "HAS_TOP_P", "SHIFT", "BLOCK", "NUM_PIVOTS")})
        aligned = {(i,): [["tt.divisibility", 16]] for i, name in enumerate(sig) if name.endswith("_ptr")
                   or name in ("V", "stride_row")}
        for dtype, shift, has_k, has_p in [("bf16", 16, k, p) for k, p in itertools.product((0, 1), (0, 1))] + [
                ("fp32", 0, 1, 1), ("fp16", 13, 1, 1)]:
            sig["logits_ptr"] = "*" + dtype
            consts = {"HAS_TOP_K": bool(has_k), "HAS_TOP_P": bool(has_p), "SHIFT": shift,
                      "BLOCK": ts.DEFAULT_BLOCK, "NUM_PIVOTS": ts.NUM_PIVOTS}
            kernel = compile(ASTSource(ts._sample_kernel, sig, consts, attrs=aligned),
                             target=GPUTarget("cuda", 90, 32), options={"num_warps": ts.DEFAULT_NUM_WARPS})
            assert kernel.asm["cubin"], (dtype, has_k, has_p)
            assert "ld.global.v4" in kernel.asm["ptx"], f"{dtype} logits are not read in 16-byte vectors"
        print("compiled")
    """)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(PYTHONPATH=str(ROOT), TRITON_DEFAULT_FP_FUSION="1")
    try:
        import triton.backends.nvidia.compiler  # noqa: F401
    except ImportError as e:
        pytest.skip(f"triton's CUDA back end is not importable here ({e})")
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0 and "compiled" in done.stdout, done.stderr[-3000:]


class InterpretedSampler(Sampler):
    """The engine's Sampler, taking its CUDA path on CPU tensors (the kernel is interpreted here)."""

    def runs_fused(self, logits: torch.Tensor) -> bool:
        return self.fused


def test_the_sampler_runs_the_kernel_and_warms_every_variant(monkeypatch: pytest.MonkeyPatch) -> None:
    launched: list[tuple[bool, bool]] = []
    original = triton_sampling.sample

    def sample(*args: Any, has_top_k: bool, has_top_p: bool, **kwargs: Any) -> torch.Tensor:
        launched.append((has_top_k, has_top_p))
        return original(*args, has_top_k=has_top_k, has_top_p=has_top_p, **kwargs)

    monkeypatch.setattr(triton_sampling, "sample", sample)
    x = random_logits(6, seed=10).bfloat16()
    t = tensors(6, temperature=[0.0, 1.0, 0.5, 0.0, 2.0, 0.8], top_k=[OFF, 4, OFF, 2, 9, OFF], top_p=0.7)
    assert torch.equal(InterpretedSampler(fused=True)(x, t), sample_reference(x, t))
    assert launched == [(True, True)]
    InterpretedSampler(fused=True).warm_up(x)
    assert sorted(launched[1:]) == [(False, False), (False, True), (True, False), (True, True)]
    launched.clear()
    InterpretedSampler(fused=False).warm_up(x)  # ENGINE_FUSED_SAMPLER=0: nothing to compile
    assert torch.equal(InterpretedSampler(fused=False)(x, t), sample_reference(x, t))
    assert launched == []
