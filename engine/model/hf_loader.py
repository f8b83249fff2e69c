"""Load an HF model directory: config.json, *.safetensors (sharded or not), tokenizer files. Never pickles."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import torch

from engine.errors import EngineError


def safetensors_files(path: Path) -> list[Path]:
    index = path / "model.safetensors.index.json"
    if index.is_file():
        try:
            weight_map = json.loads(index.read_text())["weight_map"]
        except (json.JSONDecodeError, KeyError) as e:
            raise EngineError(f"{index}: not a safetensors index ({e})") from None
        files = [path / f for f in sorted(set(weight_map.values()))]
        absent = [f.name for f in files if not f.is_file()]
        if absent:
            raise EngineError(f"{index} lists {', '.join(absent)}, which are not in {path}")
        return files
    files = sorted(path.glob("*.safetensors"))
    if not files:
        pickles = sorted(p.name for p in path.glob("*.bin")) + sorted(p.name for p in path.glob("*.pt"))
        hint = (
            (
                f"; found {', '.join(pickles[:3])}, but pickled weights can run code and are never loaded — convert "
                "them to safetensors"
            )
            if pickles
            else ""
        )
        raise EngineError(f"{path} has no *.safetensors weights{hint}")
    return files


def iter_safetensors(files: list[Path]) -> Iterator[tuple[str, torch.Tensor]]:
    from safetensors import SafetensorError, safe_open

    for f in files:
        try:
            with safe_open(str(f), framework="pt", device="cpu") as fh:
                for name in fh.keys():
                    yield name, fh.get_tensor(name)
        except SafetensorError as e:
            raise EngineError(f"{f} is not a readable safetensors file ({e})") from None
