"""Assemble result.json (schema "evident.bench/1", the layout roadmap/evidence/schema.py validates) from the parts a
bench measured."""

from __future__ import annotations

from typing import Any

from engine.bench.errors import BenchError
from engine.bench.evidence import SCHEMA, slug


def assemble(
    *,
    series: str,
    row: str,
    created: str,
    commit: str,
    dirty: bool,
    command: str,
    machine: dict[str, Any],
    model: dict[str, Any],
    workload: dict[str, Any],
    engine: dict[str, Any],
    runs: list[dict[str, Any]],
    metrics: dict[str, Any],
    roofline: dict[str, Any] | None,
    peers: list[dict[str, Any]],
    subject: dict[str, Any],
) -> dict[str, Any]:
    """Keys in the schema's order; `subject` says what was measured (ours, a peer, or a server);
    roofline None: no bound was computed (a serving run: the client cannot probe the server's device)."""
    return {
        "schema": SCHEMA,
        "series": series,
        "row": row,
        "created": created,
        "commit": commit,
        "dirty": dirty,
        "command": command,
        "machine": machine,
        "model": model,
        "workload": workload,
        "engine": engine,
        "runs": runs,
        "metrics": metrics,
        "roofline": roofline,
        "peers": peers,
        "subject": subject,
    }


def ratio(ours_tok_per_s: float | None, peer_metrics: dict[str, Any]) -> float | None:
    """ours / peer median output tok/s."""
    peer = (peer_metrics.get("output_tok_per_s") or {}).get("median")
    if not ours_tok_per_s or not peer:
        return None
    return round(ours_tok_per_s / peer, 3)


def check_peer_matches(peer: dict[str, Any], workload: dict[str, Any], model: dict[str, Any], source: str) -> None:
    """A referenced peer run must be of the same workload and model, or the ratio means nothing."""
    theirs = peer.get("workload") or {}
    for key in ("name", "num_requests", "prompt_tokens", "output_tokens", "seed"):
        if theirs.get(key) != workload.get(key):
            raise BenchError(
                f"{source}: the peer ran workload {key}={theirs.get(key)!r}, this run has "
                f"{workload.get(key)!r}; pass the peer evidence of the same workload"
            )
    their_model = peer.get("model") or {}
    if slug(str(their_model.get("name"))) != slug(str(model.get("name"))):  # "Qwen/Qwen3-0.6B" is "Qwen3-0.6B"
        raise BenchError(
            f"{source}: the peer ran model {their_model.get('name')!r}, this run has "
            f"{model.get('name')!r}; pass the peer evidence of the same model"
        )
    for key in ("dtype", "load_format"):
        if their_model.get(key) != model.get(key):
            raise BenchError(
                f"{source}: the peer ran model {key}={their_model.get(key)!r}, this run has "
                f"{model.get(key)!r}; pass the peer evidence of the same model"
            )
