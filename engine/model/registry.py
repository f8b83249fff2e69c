"""Architecture key -> model class, and building a model directly in its dtype on its device."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch

from engine.model.config import ModelConfig
from engine.model.decoder import DecoderForCausalLM
from engine.model.llama import LlamaForCausalLM
from engine.model.qwen3 import Qwen3ForCausalLM

MODEL_CLASSES: dict[str, type[DecoderForCausalLM]] = {"qwen3": Qwen3ForCausalLM, "llama": LlamaForCausalLM}


@contextmanager
def _defaults(dtype: torch.dtype, device: torch.device) -> Iterator[None]:
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            yield
    finally:
        torch.set_default_dtype(old)


def build_model(config: ModelConfig, dtype: torch.dtype, device: torch.device) -> DecoderForCausalLM:
    """Uninitialised weights (torch.empty), allocated once where they will live; the rotary cache stays float32."""
    with _defaults(dtype, device):
        model = MODEL_CLASSES[config.architecture](config)
    return model.eval().requires_grad_(False)
