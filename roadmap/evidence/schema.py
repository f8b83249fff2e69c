"""`result.json` schema "evident.bench/1" (DESIGN §4.1): required fields and types, one message per mistake.

Used by the RL501 rule and `roadmap evidence verify`. Pure data checks: never imports torch.
"""
from __future__ import annotations

import re
from datetime import datetime
from typing import Any

SCHEMA = "evident.bench/1"
_SHA40 = re.compile(r"^[0-9a-f]{40}$")
_PCTS = ("p50", "p90", "p99", "mean")
# field -> (type check, what it must be)
_TOP: dict[str, tuple[type | tuple[type, ...], str]] = {
    "series": (str, "a non-empty string"),
    "row": (str, "a string (the records row id)"),
    "created": (str, "a UTC ISO timestamp string"),
    "commit": (str, "40 lower-case hex characters"),
    "dirty": (bool, "true or false"),
    "command": (str, "the command line that reproduces it (a string)"),
    "machine": (dict, "an object {gpu, gpu_count, driver, cuda, torch, triton, python}"),
    "model": (dict, "an object {name, load_format, dtype, config}"),
    "workload": (dict, "an object {name, num_requests, prompt_tokens, output_tokens, seed, ...}"),
    "engine": (dict, "an object of every engine setting that matters"),
    "runs": (list, "a list of every repetition, raw"),
    "metrics": (dict, "an object with output_tok_per_s {median, min, max}"),
}


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _tname(v: Any) -> str:
    return "null" if v is None else type(v).__name__


def validate_result(obj: Any) -> list[str]:
    """Problems with a parsed result.json, each naming the field; [] when it is valid."""
    if not isinstance(obj, dict):
        return [f"result.json must be a JSON object, got {_tname(obj)}"]
    errors: list[str] = []
    if obj.get("schema") != SCHEMA:
        errors.append(f"schema: must be {SCHEMA!r}, got {obj.get('schema')!r}")
    for key, (typ, what) in _TOP.items():
        if key not in obj:
            errors.append(f"{key}: missing; must be {what}")
        elif not isinstance(obj[key], typ) or (typ is not bool and isinstance(obj[key], bool)):
            errors.append(f"{key}: must be {what}, got {_tname(obj[key])}")
    if isinstance(obj.get("series"), str) and not obj["series"].strip():
        errors.append("series: must be a non-empty string")
    if isinstance(obj.get("commit"), str) and not _SHA40.match(obj["commit"]):
        errors.append(f"commit: must be 40 lower-case hex characters (the full sha measured), got {obj['commit']!r}")
    if isinstance(obj.get("created"), str):
        try:
            datetime.fromisoformat(obj["created"].replace("Z", "+00:00"))
        except ValueError:
            errors.append(f"created: not an ISO timestamp: {obj['created']!r}")
    for key in ("model", "workload"):
        sub = obj.get(key)
        if isinstance(sub, dict) and not isinstance(sub.get("name"), str):
            errors.append(f"{key}.name: must be a string")
    machine = obj.get("machine")
    if isinstance(machine, dict) and "gpu_count" in machine and not isinstance(machine["gpu_count"], int):
        errors.append(f"machine.gpu_count: must be an integer, got {_tname(machine['gpu_count'])}")
    if isinstance(obj.get("runs"), list):
        if not obj["runs"]:
            errors.append("runs: empty; keep every repetition, raw")
        for i, run in enumerate(obj["runs"]):
            if not isinstance(run, dict):
                errors.append(f"runs[{i}]: must be an object, got {_tname(run)}")
    if isinstance(obj.get("metrics"), dict):
        errors.extend(_metrics(obj["metrics"]))
    errors.extend(_optional(obj))
    return errors


def _metrics(m: dict[str, Any]) -> list[str]:
    errors: list[str] = []
    out = m.get("output_tok_per_s")
    if not isinstance(out, dict):
        errors.append("metrics.output_tok_per_s: missing; must be an object {median, min, max}")
    else:
        for k in ("median", "min", "max"):
            if not _is_num(out.get(k)):
                errors.append(f"metrics.output_tok_per_s.{k}: must be a number, got {_tname(out.get(k))}")
        if all(_is_num(out.get(k)) for k in ("median", "min", "max")) and not out["min"] <= out["median"] <= out["max"]:
            errors.append("metrics.output_tok_per_s: must satisfy min <= median <= max")
    for k in ("total_tok_per_s", "requests_per_s", "peak_vram_gib"):
        if k in m and m[k] is not None and not _is_num(m[k]):
            errors.append(f"metrics.{k}: must be a number, got {_tname(m[k])}")
    for k in ("ttft_ms", "tpot_ms", "itl_ms"):
        if k in m and m[k] is not None:
            if not isinstance(m[k], dict):
                errors.append(f"metrics.{k}: must be an object {{p50, p90, p99, mean}}, got {_tname(m[k])}")
                continue
            for p in _PCTS:
                if p in m[k] and m[k][p] is not None and not _is_num(m[k][p]):
                    errors.append(f"metrics.{k}.{p}: must be a number, got {_tname(m[k][p])}")
    return errors


def _optional(obj: dict[str, Any]) -> list[str]:
    errors: list[str] = []
    roof = obj.get("roofline")
    if roof is not None and not isinstance(roof, dict):
        errors.append(f"roofline: must be an object {{output_tok_per_s_bound, fraction}}, got {_tname(roof)}")
    peers = obj.get("peers")
    if peers is not None:
        if not isinstance(peers, list):
            errors.append(f"peers: must be a list, got {_tname(peers)}")
        else:
            for i, p in enumerate(peers):
                if not isinstance(p, dict) or not isinstance(p.get("name"), str):
                    errors.append(f"peers[{i}]: must be an object with a string name")
                elif "ratio" in p and p["ratio"] is not None and not _is_num(p["ratio"]):
                    errors.append(f"peers[{i}].ratio: must be a number, got {_tname(p['ratio'])}")
    return errors
