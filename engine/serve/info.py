"""`GET /v1/engine`: what this server runs, so a load client can write evidence (DESIGN §4.1) about it.

The client cannot see the server's model, settings, machine or code; this block says them: the same model,
engine and machine blocks `engine bench throughput` records, plus the commit and dirty flag the server was started
with (`engine serve --commit SHA --dirty/--clean`; null when not given, and then no evidence can cite it).
"""
from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from engine.core.engine_core import EngineCore

SCHEMA = "evident.serve-engine/1"


@dataclass(frozen=True)
class Provenance:
    """The code the server runs: a 40-hex commit (None: not stated) and whether the tree had changes."""
    commit: str | None = None
    dirty: bool | None = None
    command: str | None = None   # the `engine serve ...` command line that started it


def resolve_provenance(commit: str | None, dirty: bool | None, command: str | None = None) -> Provenance:
    """--commit checked (and a short sha resolved where a repository is present) the way `engine bench` does;
    without --commit the commit stays unknown (the server never guesses from a checkout it may not run)."""
    if commit is None:
        return Provenance(None, dirty, command)
    from engine.bench.evidence import provenance
    sha, is_dirty = provenance(commit, dirty)
    return Provenance(sha, is_dirty, command)


def engine_info(core: EngineCore, prov: Provenance, served_model_name: str, max_queued_requests: int
                ) -> dict[str, Any]:
    """The /v1/engine body: schema, served_model_name, model, engine, machine, commit, dirty, command, version."""
    from engine.bench import ours
    from engine.bench.machine import machine_info
    from engine.bench.result import model_block
    from engine.bench.throughput import _engine_version
    cfg = core.config
    # settings_of reads an LLM; this view gives it the core's config and its resolved kernels, graphs and blocks.
    settings = ours.settings_of(SimpleNamespace(config=cfg, engine_core=core), {})
    settings["max_queued_requests"] = max_queued_requests
    hf_config = dict(getattr(core.model_config, "hf_config", {}) or {})
    return {"schema": SCHEMA, "served_model_name": served_model_name,
            "model": model_block(cfg.model or core.loaded.name, cfg.load_format, cfg.dtype, hf_config),
            "engine": settings, "machine": machine_info(cfg.device), "commit": prov.commit, "dirty": prov.dirty,
            "command": prov.command, "version": _engine_version()}
