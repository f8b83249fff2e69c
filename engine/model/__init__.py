"""engine.model: model configs, the Qwen3 / Llama models, loaders (HF safetensors, GGUF, dummy) and the tokenizer.

loaded = load_model("Qwen3-0.6B", load_format="dummy", device="cuda")
hidden = loaded.model(input_ids, positions, attn_metadata, kv_caches)   # [T, H]
logits = loaded.model.compute_logits(hidden[last_token_rows])           # [N, V], the model dtype
"""

from engine.model.config import ModelConfig, shipped_config_names
from engine.model.loader import LoadedModel, default_model_path, get_model_config, load_model
from engine.model.tokenizer import IncrementalDetokenizer, Tokenizer

__all__ = [
    "IncrementalDetokenizer",
    "LoadedModel",
    "ModelConfig",
    "Tokenizer",
    "default_model_path",
    "get_model_config",
    "load_model",
    "shipped_config_names",
]
