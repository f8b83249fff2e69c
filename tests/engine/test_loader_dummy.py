"""--load-format dummy: seeded random weights from a config, no weights or tokenizer needed."""

from __future__ import annotations

from pathlib import Path

import torch

from engine.model import load_model
from engine.model.dummy import DUMMY_HIGH, DUMMY_LOW


def test_dummy_weights_are_deterministic_per_seed(tiny_qwen3_dir: Path) -> None:
    a = load_model(str(tiny_qwen3_dir), load_format="dummy", dtype="float32", seed=7)
    b = load_model(str(tiny_qwen3_dir / "config.json"), load_format="dummy", dtype="float32", seed=7)
    c = load_model(str(tiny_qwen3_dir), load_format="dummy", dtype="float32", seed=8)
    sa, sb, sc = (m.model.state_dict() for m in (a, b, c))
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert not torch.equal(
        sa["model.layers.0.self_attn.qkv_proj.weight"], sc["model.layers.0.self_attn.qkv_proj.weight"]
    )
    assert a.tokenizer is None and a.name == "tiny-qwen3"


def test_dummy_weights_are_small_and_norms_are_one(tiny_llama_dir: Path) -> None:
    model = load_model(str(tiny_llama_dir), load_format="dummy", dtype="bfloat16", seed=0).model
    for name, p in model.named_parameters():
        if name.endswith("norm.weight"):
            assert torch.all(p == 1.0), name
        else:
            assert DUMMY_LOW <= p.min().item() and p.max().item() <= DUMMY_HIGH, name
            assert p.float().std().item() > 1e-4, name  # really random, not a constant
    assert next(model.parameters()).dtype == torch.bfloat16


def test_dummy_model_runs_a_forward_pass(tiny_llama_dir: Path, paged_runner: type) -> None:
    model = load_model(str(tiny_llama_dir), load_format="dummy", dtype="float32", seed=0).model
    with torch.no_grad():
        logits = paged_runner(model).step([(0, [5, 6, 7]), (1, [9])])
    assert logits.shape == (4, 1000) and torch.isfinite(logits).all()
