"""`GET /v1/engine`: what this server runs, so a load client can write evidence about it (result.json's blocks,
written by engine/bench/serve_evidence.py).

The client cannot see the server's model, settings, machine or code; this block says them: the same model,
engine and machine blocks `engine bench throughput` records (engine/provenance/), plus the commit and dirty flag the
server was started with (`engine serve --commit SHA --dirty/--clean`; null when not given, and then no evidence can
cite it).
"""
from __future__ import annotations

from typing import Any

from engine.engine_core import EngineCore
from engine.provenance.commit import Provenance
from engine.provenance.machine import machine_info
from engine.provenance.settings import engine_settings, model_block
from engine.provenance.version import engine_version

SCHEMA = "evident.serve-engine/1"


def engine_info(core: EngineCore, prov: Provenance, served_model_name: str, max_queued_requests: int
                ) -> dict[str, Any]:
    """The /v1/engine body: schema, served_model_name, model, engine, machine, commit, dirty, command, version."""
    cfg = core.config
    settings = engine_settings(core)
    settings["max_queued_requests"] = max_queued_requests
    hf_config = dict(getattr(core.model_config, "hf_config", {}) or {})
    return {"schema": SCHEMA, "served_model_name": served_model_name,
            "model": model_block(cfg.model or core.loaded.name, cfg.load_format, cfg.dtype, hf_config),
            "engine": settings, "machine": machine_info(cfg.device), "commit": prov.commit, "dirty": prov.dirty,
            "command": prov.command, "version": engine_version()}
