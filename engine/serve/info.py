"""What the server knows of the engine it fronts (CoreInfo, taken where the EngineCore lives and sent once, so the
server needs no EngineCore of its own), and `GET /v1/engine`: what this server runs, so a load client can write
evidence about it (result.json's blocks, written by engine/bench/serve_evidence.py).

The client cannot see the server's model, settings, machine or code; /v1/engine says them: the same model, engine and
machine blocks `engine bench throughput` records (engine/provenance/), plus the commit and dirty flag the server was
started with (`engine serve --commit SHA --dirty/--clean`; null when not given, and then no evidence can cite it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.engine_core import EngineCore
from engine.model.tokenizer import Tokenizer
from engine.provenance.commit import Provenance
from engine.provenance.machine import machine_info
from engine.provenance.settings import engine_settings, model_block
from engine.provenance.version import engine_version

SCHEMA = "evident.serve-engine/1"


@dataclass
class CoreInfo:
    model_name: str  # the loaded model's name (a shipped config name, a file or directory name)
    vocab_size: int
    max_model_len: int
    max_num_seqs: int
    tokenizer: Tokenizer | None
    device: str  # "cuda" | "cpu" | "cuda:1" ...
    model: dict[str, Any]  # /v1/engine's model block
    engine: dict[str, Any]  # /v1/engine's engine block (before max_queued_requests)
    machine: dict[str, Any] | None = None  # filled once: it asks nvidia-smi

    @classmethod
    def of(cls, core: EngineCore, with_machine: bool = False) -> CoreInfo:
        cfg = core.config
        hf_config = dict(getattr(core.model_config, "hf_config", {}) or {})
        info = cls(
            core.loaded.name,
            core.vocab_size,
            cfg.max_model_len,
            cfg.max_num_seqs,
            core.tokenizer,
            str(cfg.device),
            model_block(cfg.model or core.loaded.name, cfg.load_format, cfg.dtype, hf_config),
            engine_settings(core),
        )
        if with_machine:
            info.machine = machine_info(cfg.device)
        return info


def engine_info(info: CoreInfo, prov: Provenance, served_model_name: str, max_queued_requests: int) -> dict[str, Any]:
    """The /v1/engine body: schema, served_model_name, model, engine, machine, commit, dirty, command, version."""
    if info.machine is None:
        info.machine = machine_info(info.device)
    settings = {**info.engine, "max_queued_requests": max_queued_requests}
    return {
        "schema": SCHEMA,
        "served_model_name": served_model_name,
        "model": info.model,
        "engine": settings,
        "machine": info.machine,
        "commit": prov.commit,
        "dirty": prov.dirty,
        "command": prov.command,
        "version": engine_version(),
    }
