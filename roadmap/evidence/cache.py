"""The schema problems of each result.json, kept in `.roadmap_cache/` by content: a run whose evidence has not
changed never loads jsonschema (importing it costs more than the rest of a cached `roadmap lint`).

One sealed file maps sha256(schema checker source, docs/evidence-schema.json, result.json bytes) to the
problems schema.validate_result found. A damaged or foreign file is ignored and rewritten, never trusted.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from roadmap.cachedir import cache_root, read_cache_file, seal, unseal, write_atomic
from roadmap.evidence import schema

VERSION = 1
MAGIC = b"roadmap-evidence-cache"
NAME = f"evidence-v{VERSION}.json"
MAX_ENTRIES = 4096  # past this, the entries this run did not use are dropped


@lru_cache(maxsize=1)
def _salt() -> bytes | None:
    """What the verdicts depend on besides the result: the checker's source and the schema file."""
    try:
        return hashlib.sha256(Path(schema.__file__).read_bytes() + b"\0" + schema.SCHEMA_FILE.read_bytes()).digest()
    except OSError:
        return None


class SchemaCache:
    def __init__(self, root: str | Path):
        self.path = cache_root(root) / NAME
        self.entries = self._read()
        self.used: set[str] = set()
        self.changed = False

    def _read(self) -> dict[str, list[str]]:
        try:
            body = unseal(MAGIC, VERSION, read_cache_file(self.path))
            doc = json.loads(body) if body is not None else None
        except (OSError, ValueError, RecursionError):
            return {}
        if not isinstance(doc, dict) or not all(
            isinstance(v, list) and all(isinstance(m, str) for m in v) for v in doc.values()
        ):
            return {}
        return doc

    def problems(self, data: bytes, obj: object) -> list[str]:
        """schema.validate_result(obj) for result.json bytes `data`, from the cache when it has them."""
        salt = _salt()
        if salt is None:
            return schema.validate_result(obj)
        key = hashlib.sha256(salt + data).hexdigest()
        self.used.add(key)
        hit = self.entries.get(key)
        if hit is None:
            hit = self.entries[key] = schema.validate_result(obj)
            self.changed = True
        return list(hit)

    def save(self) -> None:
        if not self.changed:
            return
        if len(self.entries) > MAX_ENTRIES:
            self.entries = {k: v for k, v in self.entries.items() if k in self.used}
        body = json.dumps(self.entries, sort_keys=True, separators=(",", ":")).encode("utf-8")
        try:
            write_atomic(self.path, seal(MAGIC, VERSION, body))
        except OSError:
            pass  # a read-only checkout still lints, just without the cache
        self.changed = False
