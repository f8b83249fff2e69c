"""engine: a reference LLM inference engine (PyTorch + Triton) with vLLM's API shape.

from engine import LLM, SamplingParams
outputs = LLM("Qwen3-0.6B", load_format="dummy").generate(["Hello"], SamplingParams(temperature=0))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real types for type checkers; at run time __getattr__ below imports them
    from engine.args import EngineArgs
    from engine.config import EngineConfig
    from engine.llm import LLM
    from engine.outputs import CompletionOutput, RequestMetrics, RequestOutput
    from engine.sampling_params import SamplingParams

# Every name loads on first use, so `import engine.cli` needs no torch: without the `engine` extra the command
# line says which extra to install (engine/utils.py) instead of failing on an import.
_EXPORTS = {
    "LLM": "engine.llm",
    "SamplingParams": "engine.sampling_params",
    "RequestOutput": "engine.outputs",
    "CompletionOutput": "engine.outputs",
    "RequestMetrics": "engine.outputs",
    "EngineArgs": "engine.args",
    "EngineConfig": "engine.config",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = ["LLM", "CompletionOutput", "EngineArgs", "EngineConfig", "RequestMetrics", "RequestOutput", "SamplingParams"]
