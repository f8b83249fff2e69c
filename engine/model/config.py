"""ModelConfig: the model shape the engine needs, read from any HF config.json (transformers 4.x or 5.x layout).

Shipped configs (Qwen3 0.6B/1.7B/4B/8B, as published on the Hub) live in `configs/*.json` as data; they are what
`--load-format dummy` builds when given a name like "Qwen3-0.6B", "Qwen/Qwen3-0.6B" or "qwen3-0.6b".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from engine.config import DTYPES, dtype_name
from engine.errors import EngineError

# HF `architectures[0]` -> our architecture key (the model class registry is keyed by the same names).
ARCHITECTURES: dict[str, str] = {"Qwen3ForCausalLM": "qwen3", "LlamaForCausalLM": "llama"}


@dataclass(frozen=True)
class RopeScaling:
    """Llama-3 style frequency scaling (rope_type "llama3"), the only scaling the engine implements."""

    factor: float
    low_freq_factor: float
    high_freq_factor: float
    original_max_position_embeddings: int


@dataclass(frozen=True)
class ModelConfig:
    architecture: str  # "qwen3" | "llama"
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    rope_theta: float
    rms_norm_eps: float
    tie_word_embeddings: bool
    max_position_embeddings: int
    bos_token_id: int | None = None
    eos_token_ids: tuple[int, ...] = ()
    torch_dtype: str = "bfloat16"  # the checkpoint's dtype, as recorded (engine/config.py resolves "auto")
    attention_bias: bool = False
    rope_scaling: RopeScaling | None = None
    name: str = ""  # where it came from: a shipped name, a path
    hf_config: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def hf_architecture(self) -> str:
        return next(k for k, v in ARCHITECTURES.items() if v == self.architecture)

    @property
    def q_size(self) -> int:
        return self.num_attention_heads * self.head_dim

    @property
    def kv_size(self) -> int:
        return self.num_key_value_heads * self.head_dim

    def kv_cache_bytes_per_token(self, dtype_bytes: int) -> int:
        """K and V of one token across all layers, e.g. 114,688 B for Qwen3-0.6B in bf16."""
        return 2 * self.num_hidden_layers * self.kv_size * dtype_bytes

    def num_parameters(self) -> int:
        """Weights the forward pass reads (embedding counted once when tied), for roofline bounds."""
        h, layers = self.hidden_size, self.num_hidden_layers
        attn = h * (self.q_size + 2 * self.kv_size) + self.q_size * h
        if self.attention_bias:
            attn += self.q_size + 2 * self.kv_size + h
        qk_norm = 2 * self.head_dim if self.architecture == "qwen3" else 0
        per_layer = attn + qk_norm + 3 * h * self.intermediate_size + 2 * h
        embed = self.vocab_size * h * (1 if self.tie_word_embeddings else 2)
        return layers * per_layer + embed + h

    @classmethod
    def from_hf_dict(cls, d: dict[str, Any], source: str) -> ModelConfig:
        """`source` names the file in messages, e.g. "/models/qwen/config.json"."""
        archs = d.get("architectures") or []
        arch = archs[0] if archs else d.get("model_type", "<none>")
        if arch not in ARCHITECTURES:
            raise EngineError(f"unknown architecture {arch} in {source}; supported: {', '.join(ARCHITECTURES)}")
        missing = [
            k
            for k in ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size")
            if k not in d
        ]
        if missing:
            raise EngineError(f"{source} lacks {', '.join(missing)}; a {arch} config.json needs them")
        if d.get("mlp_bias"):
            raise EngineError(f"{source} sets mlp_bias=true, which the engine does not implement")
        heads = int(d["num_attention_heads"])
        rope = d.get("rope_parameters") or {}  # transformers 5 keeps theta and scaling together here
        theta = d.get("rope_theta", rope.get("rope_theta", 10000.0))
        eos = d.get("eos_token_id")
        eos_ids = tuple(int(e) for e in (eos if isinstance(eos, list) else [eos])) if eos is not None else ()
        dtype = str(d.get("torch_dtype") or d.get("dtype") or "bfloat16").removeprefix("torch.")
        return cls(
            architecture=ARCHITECTURES[arch],
            hidden_size=int(d["hidden_size"]),
            num_hidden_layers=int(d["num_hidden_layers"]),
            num_attention_heads=heads,
            num_key_value_heads=int(d.get("num_key_value_heads") or heads),
            head_dim=int(d.get("head_dim") or d["hidden_size"] // heads),
            intermediate_size=int(d["intermediate_size"]),
            vocab_size=int(d["vocab_size"]),
            rope_theta=float(theta),
            rms_norm_eps=float(d.get("rms_norm_eps", 1e-6)),
            tie_word_embeddings=bool(d.get("tie_word_embeddings", False)),
            max_position_embeddings=int(d.get("max_position_embeddings", 2048)),
            bos_token_id=None if d.get("bos_token_id") is None else int(d["bos_token_id"]),
            eos_token_ids=eos_ids,
            torch_dtype=dtype_name(DTYPES[dtype]) if dtype in DTYPES else "bfloat16",
            attention_bias=bool(d.get("attention_bias", False)),
            rope_scaling=_rope_scaling(d.get("rope_scaling") or rope or None, source),
            name=source,
            hf_config=dict(d),
        )


def _rope_scaling(s: dict[str, Any] | None, source: str) -> RopeScaling | None:
    if not s:
        return None
    kind = s.get("rope_type", s.get("type", "default"))
    if kind == "default":
        return None
    if kind != "llama3":
        raise EngineError(f"rope scaling type {kind!r} in {source} is not supported; supported: llama3 (or none)")
    try:
        return RopeScaling(
            float(s["factor"]),
            float(s["low_freq_factor"]),
            float(s["high_freq_factor"]),
            int(s["original_max_position_embeddings"]),
        )
    except KeyError as e:
        raise EngineError(f"llama3 rope scaling in {source} lacks {e.args[0]}") from None


def shipped_config_names() -> list[str]:
    return sorted(
        p.name.removesuffix(".json")
        for p in resources.files("engine.model").joinpath("configs").iterdir()
        if p.name.endswith(".json")
    )


def shipped_name(name: str) -> str | None:
    """ "Qwen/Qwen3-0.6B", "qwen3-0.6b" and "Qwen3-0.6B" all name configs/Qwen3-0.6B.json."""
    key = name.rsplit("/", 1)[-1].lower()
    return next((n for n in shipped_config_names() if n.lower() == key), None)


def read_config_json(path: Path) -> ModelConfig:
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise EngineError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
    if not isinstance(data, dict):
        raise EngineError(f"{path}: expected a JSON object of model settings")
    return ModelConfig.from_hf_dict(data, str(path))
