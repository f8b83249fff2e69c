"""ModelConfig from config.json (transformers 4.x and 5.x layouts) and the shipped Qwen3 configs."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from engine.errors import EngineError
from engine.model import get_model_config, shipped_config_names
from engine.model.config import ModelConfig, RopeScaling

# From the published Qwen3 config.json files: hidden, layers, heads, intermediate, tied head.
QWEN3 = {
    "Qwen3-0.6B": (1024, 28, 16, 3072, True),
    "Qwen3-1.7B": (2048, 28, 16, 6144, True),
    "Qwen3-4B": (2560, 36, 32, 9728, True),
    "Qwen3-8B": (4096, 36, 32, 12288, False),
}


@pytest.mark.parametrize("name", QWEN3)
def test_shipped_qwen3_configs(name: str) -> None:
    cfg = get_model_config(name)
    assert (
        cfg.hidden_size,
        cfg.num_hidden_layers,
        cfg.num_attention_heads,
        cfg.intermediate_size,
        cfg.tie_word_embeddings,
    ) == QWEN3[name]
    assert (cfg.architecture, cfg.num_key_value_heads, cfg.head_dim, cfg.vocab_size) == ("qwen3", 8, 128, 151936)
    assert (cfg.rope_theta, cfg.rms_norm_eps, cfg.max_position_embeddings) == (1e6, 1e-6, 40960)
    assert cfg.eos_token_ids == (151645,) and cfg.bos_token_id == 151643 and cfg.rope_scaling is None
    assert cfg.name == name


@pytest.mark.parametrize("spelling", ["Qwen3-0.6B", "Qwen/Qwen3-0.6B", "qwen3-0.6b", "QWEN3-0.6B"])
def test_shipped_names_are_case_and_org_insensitive(spelling: str) -> None:
    assert get_model_config(spelling).hidden_size == 1024
    assert set(QWEN3) <= set(shipped_config_names())


@pytest.mark.parametrize("name", QWEN3)
def test_parameter_count_equals_transformers(name: str) -> None:
    """Counted on the meta device, so no memory is used; 0.6B gives the published 596,049,920."""
    from transformers import Qwen3Config, Qwen3ForCausalLM

    cfg = get_model_config(name)
    with torch.device("meta"):
        hf = Qwen3ForCausalLM(Qwen3Config(**cfg.hf_config))
    assert cfg.num_parameters() == sum(p.numel() for p in hf.parameters())
    assert cfg.kv_cache_bytes_per_token(2) == 2 * cfg.num_hidden_layers * 8 * 128 * 2


def test_transformers_4_and_5_layouts_agree() -> None:
    common = {
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 128,
        "vocab_size": 100,
    }
    scaling = {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 64,
    }
    v4 = ModelConfig.from_hf_dict(
        {**common, "rope_theta": 5e5, "rope_scaling": scaling, "torch_dtype": "float16", "eos_token_id": [7, 9]},
        "v4/config.json",
    )
    v5 = ModelConfig.from_hf_dict(
        {**common, "rope_parameters": {**scaling, "rope_theta": 5e5}, "dtype": "float16", "eos_token_id": [7, 9]},
        "v5/config.json",
    )
    assert replace(v4, name="") == replace(v5, name="")  # the raw dict is not compared
    assert v4.rope_scaling == RopeScaling(8.0, 1.0, 4.0, 64) and v4.rope_theta == 5e5
    assert v4.head_dim == 16 and v4.num_key_value_heads == 4 and v4.eos_token_ids == (7, 9)
    assert v4.torch_dtype == "float16" and v4.bos_token_id is None


def test_unknown_architecture_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["GPT2LMHeadModel"], "hidden_size": 8}))
    with pytest.raises(EngineError) as err:
        get_model_config(str(tmp_path))
    assert str(err.value) == (
        f"unknown architecture GPT2LMHeadModel in {tmp_path}/config.json; supported: Qwen3ForCausalLM, LlamaForCausalLM"
    )


def test_unsupported_rope_scaling_is_named(tmp_path: Path) -> None:
    cfg = {
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 128,
        "vocab_size": 100,
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0},
    }
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(EngineError, match=r"rope scaling type 'yarn' in .*config.json is not supported"):
        get_model_config(str(tmp_path))


def test_broken_json_points_at_the_line(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{\n  "hidden_size": 64,\n  oops\n}')
    with pytest.raises(EngineError, match=r"config.json:3: not valid JSON"):
        get_model_config(str(tmp_path))
