"""The `engine` and `model` blocks that bench evidence and GET /v1/engine report: every resolved setting, plus what
the runner resolved at build time (KV blocks, attention kernels, graph mode)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import torch

from engine.config import EngineConfig
from engine.engine_core import EngineCore


def engine_settings(core: EngineCore) -> dict[str, Any]:
    """EngineConfig's fields (all but the model, which the model block names) as JSON values, resolved."""
    cfg = core.config
    out = {f.name: _jsonable(getattr(cfg, f.name)) for f in fields(EngineConfig) if f.name != "model"}
    out["num_blocks"] = core.num_blocks  # resolved by profiling when not given
    out["attention_kernels"] = core.runner.attention_kernels.name  # what "auto" resolved to
    out["graph_mode"] = core.runner.graph_mode  # what enforce_eager resolved to: off | capture | replay
    return out


def model_block(name: str, load_format: str, dtype: torch.dtype | str, hf_config: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "load_format": load_format, "dtype": str(dtype).removeprefix("torch."), "config": hf_config}


def _jsonable(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v).removeprefix("torch.")
