"""Evidence directories: `<output-dir>/<YYYYMMDD>-<series>/` with result.json (DESIGN §4.1), summary.md, plot.png.

Provenance rules:
* commit: `--commit SHA` (40 hex, or a prefix `git rev-parse` resolves where a repository is present); without
  it, `git rev-parse HEAD` of the repository holding the engine; with neither, an error asking for --commit.
* dirty: `--dirty`/`--clean` when given. Otherwise, with --commit given, false: the caller vouches that the
  tree measured is that commit (the GPU machine has no .git to ask). Otherwise `git status --porcelain` over
  engine/ and pyproject.toml (untracked files included): any change there makes the measurement dirty.
"""
from __future__ import annotations

import json
import re
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.bench.errors import BenchError

SCHEMA = "evident.bench/1"
RESULT = "result.json"
SUMMARY = "summary.md"
PLOT = "plot.png"
_SHA = re.compile(r"^[0-9a-f]{40}$")
_SHORT = re.compile(r"^[0-9a-f]{7,39}$")
REPO_ROOT = Path(__file__).resolve().parents[2]
DIRTY_PATHS = ("engine", "pyproject.toml")


class EvidenceError(BenchError):
    """A provenance or output-directory problem the user fixes with a flag; the message names it."""


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def provenance(commit: str | None, dirty: bool | None, repo: Path = REPO_ROOT) -> tuple[str, bool]:
    """(40-hex commit, dirty) per the module docstring."""
    in_repo = _git(["rev-parse", "--is-inside-work-tree"], repo) is not None
    if commit is not None:
        commit = commit.strip().lower()
        if not _SHA.match(commit):
            resolved = _git(["rev-parse", "--verify", "--end-of-options", f"{commit}^{{commit}}"], repo) \
                if in_repo and _SHORT.match(commit) else None
            if not resolved:
                raise EvidenceError(f"--commit {commit!r} is not a 40-hex commit sha; pass the full sha of the code "
                                    f"measured (git rev-parse HEAD)")
            commit = resolved.strip()
        return commit, bool(dirty) if dirty is not None else False
    if not in_repo:
        raise EvidenceError("no git repository here to read the commit from; pass --commit <40-hex sha> of the code "
                            "measured (and --dirty if it had uncommitted changes)")
    head = (_git(["rev-parse", "HEAD"], repo) or "").strip()
    if not _SHA.match(head):
        raise EvidenceError("git rev-parse HEAD gave no commit (an empty repository?); pass --commit <40-hex sha>")
    if dirty is None:
        status = _git(["status", "--porcelain", "--", *DIRTY_PATHS], repo)
        dirty = bool(status and status.strip())
    return head, dirty


def slug(text: str) -> str:
    """"Qwen/Qwen3-0.6B" -> "qwen3-0.6b"; a path names its last component."""
    base = text.rstrip("/").rsplit("/", 1)[-1].lower()
    base = re.sub(r"\.(gguf|json)$", "", base)
    return re.sub(r"[^a-z0-9.]+", "-", base).strip("-.") or "model"


def utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def evidence_dir(output_dir: Path, created: datetime, series: str) -> Path:
    path = Path(output_dir) / f"{created:%Y%m%d}-{series}"
    if path.exists():
        raise EvidenceError(f"{path} already exists: evidence is never overwritten; move it away, or pass "
                            f"--series or --output-dir to write elsewhere")
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
    from engine.bench import plot, summary   # matplotlib only when drawing
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
        raise EvidenceError(f"{source} is not a peer's evidence (written with --peer-only); pass the directory of a "
                            f"peer run to --peer-evidence")
    return {"name": peer["name"], "version": peer.get("version"), "settings": data.get("engine", {}),
            "metrics": data["metrics"], "ratio": None, "complete": peer.get("complete", True), "evidence": dirname,
            "commit": data.get("commit"), "workload": data.get("workload"),
            "model": {k: (data.get("model") or {}).get(k) for k in ("name", "load_format", "dtype")},
            "cdf_ms": (data.get("runs") or [{}])[0].get("cdf_ms")}
