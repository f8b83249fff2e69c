"""GGUF files written here from the tiny HF models, the way llama.cpp's converter writes them (its tensor names,
Llama q/k rows permuted for interleaved rotary, F32/F16/BF16/Q8_0/Q4_0/Q4_1 tensors, a byte-level BPE vocabulary),
must load into the same model as the HF directory."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from engine.errors import EngineError
from engine.model import get_model_config, load_model

# llama.cpp's names (gguf-py tensor_mapping), written out independently of the loader's table.
BLOCK = {
    "input_layernorm": "attn_norm",
    "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output",
    "self_attn.q_norm": "attn_q_norm",
    "self_attn.k_norm": "attn_k_norm",
    "post_attention_layernorm": "ffn_norm",
    "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}
TOP = {
    "model.embed_tokens.weight": "token_embd.weight",
    "model.norm.weight": "output_norm.weight",
    "lm_head.weight": "output.weight",
}


def llama_cpp_permute(w: np.ndarray, n_head: int) -> np.ndarray:
    """convert_hf_to_gguf.py LlamaModel.permute: HF rotate-half rows -> interleaved pairs."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def gguf_name(hf: str) -> str:
    if hf in TOP:
        return TOP[hf]
    _, _, layer, rest = hf.split(".", 3)
    module, kind = rest.rsplit(".", 1)
    return f"blk.{layer}.{BLOCK[module]}.{kind}"


def write_gguf(hf_dir: Path, out: Path, arch: str, qtype: str = "F32", name: str | None = None) -> Path:
    import gguf

    cfg = json.loads((hf_dir / "config.json").read_text())
    vocab = json.loads((hf_dir / "tokenizer.json").read_text())["model"]
    tokens = sorted(vocab["vocab"], key=vocab["vocab"].get)
    w = gguf.GGUFWriter(out, arch)
    w.add_name(name or hf_dir.name)
    w.add_block_count(cfg["num_hidden_layers"])
    w.add_context_length(cfg["max_position_embeddings"])
    w.add_embedding_length(cfg["hidden_size"])
    w.add_feed_forward_length(cfg["intermediate_size"])
    w.add_head_count(cfg["num_attention_heads"])
    w.add_head_count_kv(cfg["num_key_value_heads"])
    w.add_key_length(cfg["head_dim"])
    w.add_rope_freq_base(cfg["rope_parameters"]["rope_theta"])
    w.add_layer_norm_rms_eps(cfg["rms_norm_eps"])
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types([3 if t.startswith("<|") else 1 for t in tokens])
    w.add_token_merges([" ".join(m) if isinstance(m, list) else m for m in vocab["merges"]])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    quant = getattr(gguf.GGMLQuantizationType, qtype)
    for hf, t in sorted(load_file(hf_dir / "model.safetensors").items()):
        a = t.float().numpy()
        if arch == "llama" and ".q_proj." in hf:
            a = llama_cpp_permute(a, cfg["num_attention_heads"])
        elif arch == "llama" and ".k_proj." in hf:
            a = llama_cpp_permute(a, cfg["num_key_value_heads"])
        if a.ndim == 2 and qtype != "F32":  # llama.cpp keeps norms (1-D) in F32
            w.add_tensor(gguf_name(hf), gguf.quants.quantize(a, quant), raw_dtype=quant)
        else:
            w.add_tensor(gguf_name(hf), a)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return out


@pytest.fixture(scope="module")
def written(tiny_qwen3_dir: Path, tiny_llama_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("gguf")
    return {
        "qwen3": write_gguf(tiny_qwen3_dir, root / "tiny-qwen3.gguf", "qwen3"),
        "llama": write_gguf(tiny_llama_dir, root / "tiny-llama.gguf", "llama"),
    }


@pytest.mark.parametrize("arch", ["qwen3", "llama"])
def test_f32_gguf_loads_the_hf_weights_exactly(
    arch: str, written: dict[str, Path], request: pytest.FixtureRequest
) -> None:
    hf_dir = request.getfixturevalue(f"tiny_{arch}_dir")
    ours = load_model(str(written[arch]), dtype="float32")
    ref = load_model(str(hf_dir), dtype="float32")
    got, want = ours.model.state_dict(), ref.model.state_dict()
    assert got.keys() == want.keys()
    assert [k for k in got if not torch.equal(got[k], want[k])] == []
    assert ours.config.tie_word_embeddings == ref.config.tie_word_embeddings
    text = "def wrap(text, width=70):"
    assert ours.tokenizer.encode(text) == ref.tokenizer.encode(text)
    assert ours.tokenizer.eos_token_ids == {2}


def test_qwen3_gguf_gives_the_same_logits(written: dict[str, Path], tiny_qwen3_dir: Path, paged_runner: type) -> None:
    ours, ref = (load_model(str(p), dtype="float32").model for p in (written["qwen3"], tiny_qwen3_dir))
    with torch.no_grad():
        chunks = [(0, [5, 17, 300, 2]), (1, [9])]
        torch.testing.assert_close(paged_runner(ours).step(chunks), paged_runner(ref).step(chunks), atol=0, rtol=0)


@pytest.mark.parametrize("qtype,tol", [("F16", 1e-3), ("BF16", 1e-2), ("Q8_0", 2e-2), ("Q4_0", 0.2), ("Q4_1", 0.2)])
def test_quantised_gguf_dequantises_close_to_the_weights(
    qtype: str, tol: float, tiny_qwen3_dir: Path, tmp_path: Path
) -> None:
    path = write_gguf(tiny_qwen3_dir, tmp_path / f"q-{qtype}.gguf", "qwen3", qtype)
    got = load_model(str(path), dtype="float32").model.state_dict()
    want = load_model(str(tiny_qwen3_dir), dtype="float32").model.state_dict()
    for k in want:
        assert (got[k] - want[k]).abs().max().item() <= tol * want[k].abs().max().item(), k


def test_gguf_config_and_its_errors(written: dict[str, Path], tmp_path: Path) -> None:
    cfg = get_model_config(str(written["llama"]))
    assert (cfg.architecture, cfg.head_dim, cfg.num_key_value_heads, cfg.vocab_size) == ("llama", 16, 2, 1000)
    dummy = load_model(str(written["qwen3"]), load_format="dummy", dtype="float32")
    assert dummy.tokenizer is None and dummy.config.architecture == "qwen3"
    import gguf

    w = gguf.GGUFWriter(tmp_path / "gpt2.gguf", "gpt2")
    w.add_block_count(1)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    with pytest.raises(EngineError, match=r"unknown architecture gpt2 in .*gpt2.gguf; supported: llama, qwen3"):
        load_model(str(tmp_path / "gpt2.gguf"))
