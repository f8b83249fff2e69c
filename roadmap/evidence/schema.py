"""Our `result.json` schemas: docs/evidence-schema.json, checked with jsonschema, one message per mistake naming
the field.

The file's top level is "evident.bench/1", what `engine bench` writes (the engine's evidence writer is tested
against it too, tests/engine); `$defs` holds "evident.roadmap-lint/1", what tools/realworld.py writes. A result is
checked against the schema it declares; JSON that declares no schema of ours is another team's evidence and is
not checked (roadmap/evidence/store.py). What JSON Schema cannot say is checked here, after it: `created` parses
as an ISO timestamp, min <= median <= max. Pure data checks: never imports torch.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

SCHEMA = "evident.bench/1"
LINT_SCHEMA = "evident.roadmap-lint/1"
SCHEMAS = (SCHEMA, LINT_SCHEMA)
_OURS_PREFIX = "evident."  # a name of our family with another version is ours, and wrong
_DEFS = {LINT_SCHEMA: "roadmap-lint"}  # schema name -> its key under `$defs` (the top level is SCHEMA)
# Shipped in the package (an installed roadmap has no docs/); in the source tree a link to docs/evidence-schema.json.
SCHEMA_FILE = Path(__file__).resolve().with_name("evidence-schema.json")


@lru_cache(maxsize=1)
def contract() -> dict[str, Any]:
    """docs/evidence-schema.json, parsed (a missing or broken file is a broken installation: it raises)."""
    doc = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    if not isinstance(doc, dict):
        raise ValueError(f"{SCHEMA_FILE}: not a JSON Schema object")
    return doc


def is_ours(declared: Any) -> bool:
    """Does a result's `schema` value claim one of our schemas (any version: a wrong version is a mistake)?"""
    return isinstance(declared, str) and declared.startswith(_OURS_PREFIX)


def _contract_of(declared: Any) -> dict[str, Any]:
    """The schema a result declaring `declared` is checked against: a `$defs` entry, else the top level."""
    key = _DEFS.get(declared) if isinstance(declared, str) else None
    if key is None:
        return contract()
    return {**contract()["$defs"][key], "$defs": contract()["$defs"]}


@lru_cache(maxsize=len(SCHEMAS))
def _validator(declared: str) -> Any:
    # ~0.1 s to import: only when a result is checked (roadmap/evidence/cache.py spares unchanged ones); the
    # schema itself is checked against the metaschema by tests/roadmap/test_evidence_verify.py, not per run
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # ships no type information

    return Draft202012Validator(_contract_of(declared))


def validate_result(obj: Any) -> list[str]:
    """Problems with a parsed result.json, each naming the field; [] when it is valid. The schema is the one it
    declares; any other value is checked against "evident.bench/1", whose `schema` field then names the fix."""
    if not isinstance(obj, dict):
        return [f"result.json must be a JSON object, got {_tname(obj)}"]
    declared = obj.get("schema") if obj.get("schema") in SCHEMAS else SCHEMA
    doc = _contract_of(declared)
    order = {name: i for i, name in enumerate(doc["properties"])}
    found: list[tuple[int, str]] = []
    for err in _validator(declared).iter_errors(obj):
        field, message = _message(err, doc)
        found.append((order.get(field, len(order)), message))
    if "created" in order:
        found.extend((order["created"], m) for m in _created(obj.get("created")))
    if declared == SCHEMA:
        found.extend((order["metrics"], m) for m in _spread(obj.get("metrics")))
    return [m for _, m in sorted(found, key=lambda fm: fm[0])]


def _message(err: Any, doc: Mapping[str, Any]) -> tuple[str, str]:
    """(top-level field, message) for one jsonschema error, worded from the schema's descriptions."""
    path: list[str | int] = list(err.absolute_path)
    schema: Mapping[str, Any] = err.schema
    kind: str = err.validator
    if kind == "required":
        name = next(p for p in err.validator_value if p not in err.instance and repr(p) in err.message)
        prop = schema.get("properties", {}).get(name, {})
        field = str(path[0]) if path else name
        if "const" in prop:
            return field, f"{_where([*path, name])}: must be {prop['const']!r}, got None"
        if "description" in prop:
            return field, f"{_where([*path, name])}: missing; must be {prop['description']}"
        return field, f"{_where(path)}: must be {schema['description']}"
    field = str(path[0]) if path else ""
    if "description" not in schema and path:  # a part with no wording of its own: say what its parent must be
        parent = _subschema(doc, list(err.absolute_schema_path)[:-3])
        return field, f"{_where(path[:-1])}: must be {parent.get('description', 'valid')}"
    what = schema.get("description", "valid")
    if kind == "const":
        return field, f"{_where(path)}: must be {err.validator_value!r}, got {err.instance!r}"
    if kind == "type":
        return field, f"{_where(path)}: must be {what}, got {_tname(err.instance)}"
    if kind in ("pattern", "enum"):
        return field, f"{_where(path)}: must be {what}, got {err.instance!r}"
    if kind == "minItems":
        return field, f"{_where(path)}: empty; must be {what}"
    return field, f"{_where(path)}: {err.message}"


def _subschema(root: Mapping[str, Any], keys: Sequence[str | int]) -> Mapping[str, Any]:
    node: Any = root
    for key in keys:
        if isinstance(node, Mapping) and key == "$ref":
            node = _subschema(root, str(node["$ref"]).removeprefix("#/").split("/"))
        else:
            node = node[key]
    return node if isinstance(node, Mapping) else {}


def _where(path: Iterable[str | int]) -> str:
    """`metrics.output_tok_per_s.median`, `peers[0]`: the field as a person writes it."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "result.json"


def _created(value: Any) -> list[str]:
    if not isinstance(value, str):
        return []
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return [f"created: not an ISO timestamp: {value!r}"]
    return []


def _spread(metrics: Any) -> list[str]:
    out = metrics.get("output_tok_per_s") if isinstance(metrics, dict) else None
    if not isinstance(out, dict) or not all(_is_num(out.get(k)) for k in ("median", "min", "max")):
        return []
    if out["min"] <= out["median"] <= out["max"]:
        return []
    return ["metrics.output_tok_per_s: must satisfy min <= median <= max"]


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _tname(v: Any) -> str:
    return "null" if v is None else type(v).__name__
