"""Baselines: accept today's findings, fail only on new ones. Keyed by content fingerprints, not line numbers,
so editing lines above a known finding does not make it "new"."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from roadmap import safejson
from roadmap.findings import Finding
from roadmap.safefs import Declined, read_file, write_atomic

SCHEMA_VERSION = 1
MAX_BYTES = 64 << 20  # a baseline of ~200,000 findings; past this it is not read


class BaselineError(Exception):
    """The baseline file cannot be read; the message names the file and the fix."""


def write_baseline(path: Path, findings: list[Finding]) -> None:
    entries = sorted(
        ({"fingerprint": f.fingerprint, "code": f.code, "path": f.path, "message": f.message} for f in findings),
        key=lambda e: (e["path"], e["code"], e["fingerprint"], e["message"]),
    )
    doc = {"schema_version": SCHEMA_VERSION, "tool": "roadmap", "findings": entries}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8"))


def load_baseline(path: Path) -> Counter[str]:
    """Fingerprint -> how many findings with it are accepted."""
    try:
        doc = safejson.loads(read_file(path, MAX_BYTES), max_bytes=MAX_BYTES)
    except FileNotFoundError:
        raise BaselineError(
            f"baseline {path} does not exist; create it with `roadmap lint --write-baseline {path}`"
        ) from None
    except safejson.JsonError as exc:
        raise BaselineError(
            f"baseline {path}:{exc.lineno}:{exc.colno}: not readable JSON ({exc.msg}); "
            f"regenerate it with `roadmap lint --write-baseline {path}`"
        ) from None
    except (OSError, Declined) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise BaselineError(
            f"baseline {path} cannot be read ({why}); regenerate it with `roadmap lint --write-baseline {path}`"
        ) from None
    entries = doc.get("findings") if isinstance(doc, dict) else None
    if (
        not isinstance(entries, list)
        or doc.get("schema_version") != SCHEMA_VERSION
        or not all(isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in entries)
    ):
        raise BaselineError(
            f"baseline {path} is not a roadmap baseline (schema_version {SCHEMA_VERSION}); "
            f"regenerate it with `roadmap lint --write-baseline {path}`"
        )
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
