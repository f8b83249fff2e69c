"""Route checkpoint tensors (HF names) to our parameters, packing q/k/v and gate/up through the model's
`packed_modules_mapping`; every parameter must be filled exactly once, and a stray tensor is an error."""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import nn

from engine.errors import EngineError
from engine.model.linear import default_weight_loader

# Old HF checkpoints store the rotary inverse frequencies; we recompute them from the config.
_IGNORED_SUFFIXES = ("rotary_emb.inv_freq",)


def route(name: str, packed: dict[str, tuple[str, object]]) -> tuple[str, object]:
    """ "model.layers.0.self_attn.k_proj.weight" -> ("model.layers.0.self_attn.qkv_proj.weight", "k")."""
    parts = name.split(".")
    for i, part in enumerate(parts):
        if part in packed:
            target, shard = packed[part]
            return ".".join(parts[:i] + [target] + parts[i + 1 :]), shard
    return name, None


def expected_shards(model: nn.Module, packed: dict[str, tuple[str, object]]) -> set[tuple[str, object]]:
    shards_of: dict[str, list[object]] = {}
    for target, shard in packed.values():
        shards_of.setdefault(target, []).append(shard)
    want: set[tuple[str, object]] = set()
    for name, _ in model.named_parameters():  # deduplicated: a tied lm_head.weight is the embedding's
        module = name.split(".")[-2]
        want.update((name, s) for s in shards_of.get(module, [None]))
    return want


def load_weights(model: nn.Module, weights: Iterable[tuple[str, torch.Tensor]], source: str) -> None:
    packed: dict[str, tuple[str, object]] = getattr(model, "packed_modules_mapping", {})
    tied = bool(getattr(getattr(model, "config", None), "tie_word_embeddings", False))
    params = dict(model.named_parameters())
    arch = type(model).__name__
    loaded: set[tuple[str, object]] = set()
    for name, tensor in weights:
        if name.endswith(_IGNORED_SUFFIXES) or (tied and name == "lm_head.weight"):
            continue
        target, shard = route(name, packed)
        param = params.get(target)
        if param is None:
            raise EngineError(f"{source}: tensor {name} has no place in {arch}; is this a {arch} checkpoint?")
        loader = getattr(param, "weight_loader", default_weight_loader)
        try:
            with torch.no_grad():
                loader(param, tensor.to(param.dtype), shard)
        except EngineError as e:
            raise EngineError(f"{source}: {name}: {e}") from None
        loaded.add((target, shard))
    missing = sorted(f"{n}" + (f" [{s}]" if s is not None else "") for n, s in expected_shards(model, packed) - loaded)
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise EngineError(f"{source}: no weights for {shown}; the checkpoint does not match its config")
