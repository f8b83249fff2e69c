"""HF directories: safetensors (single or sharded), tokenizer files, and what goes wrong with them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from engine.errors import EngineError
from engine.model import load_model


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def test_sharded_checkpoint_loads_the_same_weights(tiny_qwen3_dir: Path, tmp_path: Path) -> None:
    sharded = _copy(tiny_qwen3_dir, tmp_path / "sharded")
    tensors = load_file(sharded / "model.safetensors")
    (sharded / "model.safetensors").unlink()
    names = sorted(tensors)
    shards = {"model-00001-of-00002.safetensors": names[::2], "model-00002-of-00002.safetensors": names[1::2]}
    for file, part in shards.items():
        save_file({n: tensors[n] for n in part}, sharded / file)
    weight_map = {n: f for f, part in shards.items() for n in part}
    (sharded / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    whole = load_model(str(tiny_qwen3_dir), dtype="float32").model.state_dict()
    split = load_model(str(sharded), dtype="float32").model.state_dict()
    assert whole.keys() == split.keys()
    assert all(torch.equal(whole[k], split[k]) for k in whole)


def test_packed_weights_hold_the_checkpoint_projections(tiny_qwen3_dir: Path) -> None:
    tensors = load_file(tiny_qwen3_dir / "model.safetensors")
    model = load_model(str(tiny_qwen3_dir), dtype="float32").model
    qkv = model.model.layers[1].self_attn.qkv_proj.weight
    pre = "model.layers.1."
    expected = torch.cat([tensors[pre + f"self_attn.{p}_proj.weight"] for p in "qkv"])
    assert torch.equal(qkv, expected)
    gate_up = model.model.layers[1].mlp.gate_up_proj.weight
    assert torch.equal(gate_up, torch.cat([tensors[pre + "mlp.gate_proj.weight"], tensors[pre + "mlp.up_proj.weight"]]))


def test_bfloat16_weights_with_a_float32_rotary_cache(tiny_llama_dir: Path) -> None:
    model = load_model(str(tiny_llama_dir), dtype="bfloat16").model
    assert {p.dtype for p in model.parameters()} == {torch.bfloat16}
    assert model.model.rotary_emb.cos_sin_cache.dtype == torch.float32
    assert torch.get_default_dtype() == torch.float32  # building the model restored the process default


def test_hf_tokenizer_matches_transformers(tiny_qwen3_dir: Path) -> None:
    from transformers import AutoTokenizer

    ours = load_model(str(tiny_qwen3_dir), dtype="float32").tokenizer
    theirs = AutoTokenizer.from_pretrained(tiny_qwen3_dir)
    text = "def wrap(text, width=70):\n    return TextWrapper(width=width).wrap(text)  # <|im_end|>"
    assert ours.encode(text) == theirs.encode(text)
    assert ours.decode(ours.encode(text)) == theirs.decode(theirs.encode(text), skip_special_tokens=True)
    chat = [{"role": "user", "content": "hello"}]
    assert ours.apply_chat_template(chat) == theirs.apply_chat_template(
        chat, tokenize=False, add_generation_prompt=True
    )
    assert ours.eos_token_ids == {theirs.convert_tokens_to_ids("<|im_end|>"), 2}


def test_directory_without_tokenizer_loads_without_one(tiny_llama_dir: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    for f in ("config.json", "model.safetensors"):
        shutil.copy(tiny_llama_dir / f, bare / f)
    assert load_model(str(bare), dtype="float32").tokenizer is None


def test_pickled_weights_are_refused(tiny_llama_dir: Path, tmp_path: Path) -> None:
    d = tmp_path / "pickles"
    d.mkdir()
    shutil.copy(tiny_llama_dir / "config.json", d / "config.json")
    (d / "pytorch_model.bin").write_bytes(b"not loaded")
    with pytest.raises(EngineError, match=r"has no \*\.safetensors weights; found pytorch_model.bin, but pickled"):
        load_model(str(d))


def test_wrong_shape_and_missing_tensor_are_named(tiny_qwen3_dir: Path, tmp_path: Path) -> None:
    d = _copy(tiny_qwen3_dir, tmp_path / "broken")
    tensors = load_file(d / "model.safetensors")
    tensors["model.layers.0.mlp.up_proj.weight"] = torch.zeros(3, 3)
    save_file(tensors, d / "model.safetensors")
    with pytest.raises(EngineError, match=r"model.layers.0.mlp.up_proj.weight: weight shape \(3, 3\) does not fit"):
        load_model(str(d))
    del tensors["model.layers.0.mlp.up_proj.weight"]
    save_file(tensors, d / "model.safetensors")
    with pytest.raises(EngineError, match=r"no weights for model.layers.0.mlp.gate_up_proj.weight \[1\]"):
        load_model(str(d))
    tensors["model.layers.0.mlp.up_proj.weight"] = torch.zeros(128, 64)
    tensors["model.layers.0.mlp.fc9.weight"] = torch.zeros(1)
    save_file(tensors, d / "model.safetensors")
    with pytest.raises(EngineError, match=r"tensor model.layers.0.mlp.fc9.weight has no place in Qwen3ForCausalLM"):
        load_model(str(d))
