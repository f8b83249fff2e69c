"""Evidence directories: `<output-dir>/<YYYYMMDD>-<series>/` with result.json (schema "evident.bench/1", as
roadmap/evidence/schema.py validates it), summary.md, plot.png.

Where they go: `out/bench/` (gitignored) unless --output-dir says otherwise; the project's evidence root,
docs/bench-evidence/, only when asked for, and then never from a dirty tree unless --dirty says so. Which code was
measured (commit, dirty) is settled by engine/provenance/commit.py.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.bench.errors import BenchError
from engine.provenance.commit import REPO_ROOT

SCHEMA = "evident.bench/1"
RESULT = "result.json"
SUMMARY = "summary.md"
PLOT = "plot.png"
DEFAULT_OUTPUT_DIR = "out/bench"  # gitignored: a measurement nobody asked to keep
EVIDENCE_ROOT = REPO_ROOT / "docs" / "bench-evidence"  # what the project's records cite


class EvidenceError(BenchError):
    """A provenance or output-directory problem the user fixes with a flag; the message names it."""


def is_evidence_root(output_dir: Path) -> bool:
    """Whether output_dir is the project's evidence root (or a directory inside it)."""
    path = Path(output_dir).resolve()
    return path == EVIDENCE_ROOT or EVIDENCE_ROOT in path.parents


def check_output_dir(output_dir: Path, dirty: bool, dirty_flag: bool | None) -> None:
    """Evidence the records cite is of committed code: refuse a dirty tree found by git unless --dirty says so."""
    if dirty and dirty_flag is not True and is_evidence_root(output_dir):
        raise EvidenceError(
            f"the tree has uncommitted changes under engine/ or pyproject.toml and {output_dir} is the "
            f"evidence root; commit them first, or pass --dirty to record a dirty measurement"
        )


def slug(text: str) -> str:
    """ "Qwen/Qwen3-0.6B" -> "qwen3-0.6b"; a path names its last component."""
    base = text.rstrip("/").rsplit("/", 1)[-1].lower()
    base = re.sub(r"\.(gguf|json)$", "", base)
    return re.sub(r"[^a-z0-9.]+", "-", base).strip("-.") or "model"


def utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def evidence_dir(output_dir: Path, created: datetime, series: str) -> Path:
    path = Path(output_dir) / f"{created:%Y%m%d}-{series}"
    if path.exists():
        raise EvidenceError(
            f"{path} already exists: evidence is never overwritten; move it away, or pass "
            f"--series or --output-dir to write elsewhere"
        )
    return path


def write(path: Path, result: dict[str, Any], result_only: bool = False) -> list[Path]:
    """Write result.json (and, unless result_only, summary.md and the plot); returns the files written."""
    path.mkdir(parents=True, exist_ok=False)
    (path / RESULT).write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    files = [path / RESULT]
    if not result_only:
        files += render(path)
    return files


def read(path: Path) -> dict[str, Any]:
    f = Path(path) / RESULT
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EvidenceError(f"{f} does not exist; pass an evidence directory written by `engine bench`") from None
    except json.JSONDecodeError as e:
        raise EvidenceError(f"{f}:{e.lineno}: not valid JSON ({e.msg})") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise EvidenceError(f"{f}: schema is not {SCHEMA!r}; pass an evidence directory written by `engine bench`")
    return data


def render(path: Path) -> list[Path]:
    """(Re)write summary.md and plot.png from result.json alone."""
    from engine.bench import plot, summary  # matplotlib only when drawing

    result = read(path)
    (path / SUMMARY).write_text(summary.markdown(result), encoding="utf-8")
    plot.draw(result, path / PLOT)
    return [path / SUMMARY, path / PLOT]


def peer_entry_from(path: Path) -> dict[str, Any]:
    """A `peers[]` entry for ours, read from a peer's own evidence directory (`engine bench ... --peer-only`)."""
    return peer_entry(read(path), Path(path).name, str(Path(path) / RESULT))


def peer_entry(data: dict[str, Any], dirname: str, source: str) -> dict[str, Any]:
    """A `peers[]` entry from a peer's result.json; `ratio` is filled in by the run that cites it."""
    peer = data.get("subject")
    if not isinstance(peer, dict) or peer.get("kind") != "peer":
        raise EvidenceError(
            f"{source} is not a peer's evidence (written with --peer-only); pass the directory of a "
            f"peer run to --peer-evidence"
        )
    return {
        "name": peer["name"],
        "version": peer.get("version"),
        "settings": data.get("engine", {}),
        "metrics": data["metrics"],
        "ratio": None,
        "complete": peer.get("complete", True),
        "evidence": dirname,
        "commit": data.get("commit"),
        "workload": data.get("workload"),
        "model": {k: (data.get("model") or {}).get(k) for k in ("name", "load_format", "dtype")},
        "cdf_ms": (data.get("runs") or [{}])[0].get("cdf_ms"),
    }
