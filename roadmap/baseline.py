"""Baselines: accept today's findings, fail only on new ones. Keyed by content fingerprints, not line numbers,
so editing lines above a known finding does not make it "new"."""
from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from pathlib import Path

from roadmap.findings import Finding

SCHEMA_VERSION = 1


class BaselineError(Exception):
    """The baseline file cannot be read; the message names the file and the fix."""


def write_baseline(path: Path, findings: list[Finding]) -> None:
    entries = sorted(({"fingerprint": f.fingerprint, "code": f.code, "path": f.path, "message": f.message}
                      for f in findings), key=lambda e: (e["path"], e["code"], e["fingerprint"], e["message"]))
    doc = {"schema_version": SCHEMA_VERSION, "tool": "roadmap", "findings": entries}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".baseline-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, path)


def load_baseline(path: Path) -> Counter[str]:
    """Fingerprint -> how many findings with it are accepted."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"baseline {path} does not exist; create it with `roadmap lint --write-baseline {path}`")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"baseline {path} is not readable JSON ({exc}); regenerate it with "
                            f"`roadmap lint --write-baseline {path}`")
    entries = doc.get("findings") if isinstance(doc, dict) else None
    if not isinstance(entries, list) or doc.get("schema_version") != SCHEMA_VERSION or not all(
            isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in entries):
        raise BaselineError(f"baseline {path} is not a roadmap baseline (schema_version {SCHEMA_VERSION}); "
                            f"regenerate it with `roadmap lint --write-baseline {path}`")
    return Counter(e["fingerprint"] for e in entries)


def filter_baseline(findings: list[Finding], accepted: Counter[str]) -> tuple[list[Finding], int]:
    """Drop findings the baseline accepts (each baseline entry absorbs one finding); return (new, dropped)."""
    left = Counter(accepted)
    kept: list[Finding] = []
    for f in sorted(findings, key=Finding.sort_key):
        fp = f.fingerprint
        if left[fp] > 0:
            left[fp] -= 1
        else:
            kept.append(f)
    return kept, len(findings) - len(kept)
