#!/usr/bin/env python3
"""Time `roadmap lint` of the 50,000-row table of tests/roadmap/test_safety_scale.py (issue 10, item 4: "a
50,000-row table lints in <= 10 s"; a measurement, not a test).

    .venv/bin/python tools/bench_table.py [--rows 50000] [--repeat 5] [--repo DIR [--reuse]] [--json PATH]
                                          [--baseline CHECKOUT]

Builds the test's repository once (its `table_repo`: one table of `--rows` directive rows, one row in fifty
flipping its state in a later commit, then a code commit), then times, `--repeat` times each and alternating:

- `api`: `roadmap.lint.lint(repo, LintOptions(use_cache=False))` in a fresh interpreter, as the test calls it.
  `cpu_s` is that process's own CPU time (time.process_time: what the test asserts on), `total_cpu_s` adds
  the processes it forks (history/forked.py runs part of the rules and of the stale analysis in a child);
- `cli`: the real CLI, `python -m roadmap lint REPO --no-cache --format json -o FILE`; `cpu_s` is the CPU
  time of the CLI and every process it started.

Wall time is reported too, but other jobs on the machine move it: judge the CPU medians, and the load average
recorded with each run. The commit measured is this checkout's HEAD (with `dirty` when its roadmap/ differs).
With `--baseline CHECKOUT` (another checkout of this repository, e.g. a `git worktree` at an older commit) the
same runs are made with its roadmap package too, each baseline run right before the run it is compared with, so
that a change of load moves both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "roadmap")]

TARGET_S = 10.0  # the bound for the 50,000-row table

# The api run, in a fresh interpreter so that one run's caches do not serve the next.
_API = """
import json, sys, time
from pathlib import Path
from roadmap.lint import LintOptions, lint
cpu, wall = time.process_time(), time.perf_counter()
result = lint(Path(sys.argv[1]), LintOptions(use_cache=False))
print(json.dumps({"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall,
                  "statements": result.statements, "findings": len(result.findings)}))
"""


def build(repo: Path, rows: int) -> None:
    """The test's repository (tests/roadmap/test_safety_scale.py: table_repo) at `repo`."""
    from conftest import GitRepo  # tests/roadmap/conftest.py
    from test_safety_scale import table_repo

    shutil.rmtree(repo, ignore_errors=True)
    table_repo(lambda name: GitRepo(repo), rows, repo.name)


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_api(repo: Path, root: Path) -> dict:
    """lint() as the test calls it, in a fresh interpreter importing `root`'s roadmap package."""
    before, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _API, str(repo)], capture_output=True, text=True, cwd=root, env=_env(root)
    )
    wall, total = time.perf_counter() - t0, children_cpu() - before
    if proc.returncode != 0:
        raise SystemExit(f"lint() failed: {proc.stderr.strip()[-800:]}")
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    return {
        "kind": "api",
        "cpu_s": round(got["cpu_s"], 2),
        "total_cpu_s": round(total, 2),
        "wall_s": round(got["wall_s"], 2),
        "process_wall_s": round(wall, 2),
        "statements": got["statements"],
        "findings": got["findings"],
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }


def run_cli(repo: Path, out_json: Path, root: Path) -> dict:
    """The real CLI with `root`'s roadmap package, cold (no cache)."""
    cmd = [sys.executable, "-m", "roadmap", "lint", str(repo), "--no-cache", "--format", "json", "-o", str(out_json)]
    before, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=_env(root))
    wall, cpu = time.perf_counter() - t0, children_cpu() - before
    if proc.returncode not in (0, 1):
        raise SystemExit(f"roadmap lint failed ({proc.returncode}): {proc.stderr.strip()[-800:]}")
    return {
        "kind": "cli",
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "exit": proc.returncode,
        "findings": len(json.loads(out_json.read_text())["findings"]),
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }


def _env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
    return env


def summary(runs: list[dict], key: str) -> dict:
    values = [r[key] for r in runs]
    return {"median": round(statistics.median(values), 2), "min": min(values), "max": max(values), "n": len(values)}


def measured_commit(root: Path) -> dict:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True).stdout.strip()

    return {"sha": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--", "roadmap"))}


def figures(runs: list[dict], commit: dict, rows: int) -> dict:
    api = [r for r in runs if r["kind"] == "api"]
    cli = [r for r in runs if r["kind"] == "cli"]
    return {
        "commit": commit,
        "repo": {"rows": rows, "statements": api[0]["statements"], "findings": api[0]["findings"]},
        "api": {
            "cpu_s": summary(api, "cpu_s"),
            "total_cpu_s": summary(api, "total_cpu_s"),
            "wall_s": summary(api, "wall_s"),
        },
        "cli": {"cpu_s": summary(cli, "cpu_s"), "wall_s": summary(cli, "wall_s")},
        "loadavg_1m": summary(runs, "loadavg_1m"),
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--repeat", type=int, default=5, help="runs of each kind (medians are reported)")
    ap.add_argument("--repo", type=Path, help="where to build the repository (default: a temporary directory)")
    ap.add_argument("--reuse", action="store_true", help="--repo already holds the repository: do not rebuild")
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    ap.add_argument("--baseline", type=Path, help="another checkout whose roadmap package is timed alongside")
    a = ap.parse_args(argv)
    if a.reuse and a.repo is None:
        ap.error("--reuse needs --repo")
    roots = {"measured": ROOT} if a.baseline is None else {"baseline": a.baseline.resolve(), "measured": ROOT}
    tmp = Path(tempfile.mkdtemp(prefix="bench-table-"))
    repo = (a.repo if a.repo is not None else tmp / "table").resolve()
    try:
        load_start = os.getloadavg()
        if not a.reuse:
            build(repo, a.rows)
        runs: dict[str, list[dict]] = {name: [] for name in roots}
        for _ in range(max(1, a.repeat)):
            for kind in ("api", "cli"):
                for name, root in roots.items():
                    got = run_api(repo, root) if kind == "api" else run_cli(repo, tmp / "lint.json", root)
                    runs[name].append(got)
        report: dict = {
            "command": "python tools/bench_table.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "machine": {
                "cpus": os.cpu_count(),
                "python": platform.python_version(),
                "platform": platform.platform(),
                "loadavg_start": [round(x, 2) for x in load_start],
                "loadavg_end": [round(x, 2) for x in os.getloadavg()],
            },
            "target_s": TARGET_S,
        }
        for name, root in roots.items():
            report[name] = figures(runs[name], measured_commit(root), a.rows)
        if a.json:
            a.json.parent.mkdir(parents=True, exist_ok=True)
            a.json.write_text(json.dumps(report, indent=2) + "\n")
        for name in roots:
            fig = report[name]
            print(f"{name} {fig['commit']['sha'][:9]}{' (dirty)' if fig['commit']['dirty'] else ''}:")
            for kind in ("api", "cli"):
                part, cpu = fig[kind], fig[kind]["cpu_s"]
                line = f"  {kind}: cpu {cpu['median']} s (min {cpu['min']}, max {cpu['max']})"
                if "total_cpu_s" in part:
                    line += f", with forked children {part['total_cpu_s']['median']} s"
                print(line + f", wall {part['wall_s']['median']} s, n={cpu['n']}")
            print(f"  load average (1 min) median {fig['loadavg_1m']['median']}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
