#!/usr/bin/env python3
"""Benchmark `roadmap lint` end to end and the history index against one `git log -S` per symbol (a
measurement, not a test).

    .venv/bin/python tools/bench_history.py [--commits 10000] [--symbols 1000] [--sample 50] [--repeat 3]
                                            [--repo DIR [--reuse]] [--json PATH]

Generates a seeded repository (tools/make_history_repo.py: 10,000 commits, 300 files, 60,000 lines of
markdown records naming 1,000 symbols), then times: the cold index build (no cache), the cached build,
a build after 10 symbols are added to the set, `git log -S<sym> --format=%H` for a random sample of
symbols, extrapolated linearly to the whole set (said so in the output), and the real `roadmap lint` CLI
end to end, `--repeat` times each: cold (`.roadmap_cache/` removed first) and cached (the run after).
The same sample is checked for exactness: every hit list must equal git's. The targets (the issue's:
cold lint <= 30 s, cached lint <= 3 s, >= 10x faster than the per-symbol baseline) are judged on the
median lint runs; wall time, the lint's CPU time and the load average are reported, since other jobs on
the machine move the wall figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import make_history_repo  # noqa: E402

from roadmap.history.index import HistoryIndex  # noqa: E402

TARGETS = {"cold_s": 30.0, "cached_s": 3.0, "speedup_x": 10.0}  # the issue's, for `roadmap lint` end to end


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def git_log_s(repo: Path, sym: str) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "log", f"-S{sym}", "--format=%H", "HEAD"], capture_output=True, check=True
    ).stdout.decode()
    return out.split()


def lint_times(repo: Path, repeat: int, out_json: Path) -> dict:
    """`roadmap lint` end to end, `repeat` x (cold with the cache removed, then cached)."""
    cmd = [sys.executable, "-m", "roadmap", "lint", str(repo), "--format", "json", "-o", str(out_json)]
    shown = [".venv/bin/python", *cmd[1:-1], "lint.json"]
    out: dict = {"command": " ".join(shown), "runs": []}
    for _ in range(max(1, repeat)):
        for label in ("cold", "cached"):
            if label == "cold":
                shutil.rmtree(repo / ".roadmap_cache", ignore_errors=True)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, cwd=HERE.parent)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            run = {
                "kind": label,
                "wall_s": round(wall, 2),
                "cpu_s": round(cpu, 2),
                "exit": proc.returncode,
                "loadavg_1m": round(os.getloadavg()[0], 2),
            }
            if proc.returncode not in (0, 1):
                run["error"] = (proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["?"])[-1]
            out["runs"].append(run)
    for label in ("cold", "cached"):
        walls = [r["wall_s"] for r in out["runs"] if r["kind"] == label]
        out[f"{label}_s"] = round(statistics.median(walls), 2)
        out[f"{label}_min_s"], out[f"{label}_max_s"] = min(walls), max(walls)
        out[f"{label}_cpu_s"] = round(statistics.median(r["cpu_s"] for r in out["runs"] if r["kind"] == label), 2)
    try:
        doc = json.loads(out_json.read_text())
        out["findings"] = len(doc["findings"])
        out["summary"] = doc["summary"]
    except (OSError, ValueError, KeyError):
        out["findings"] = None
    out["errors"] = [r["error"] for r in out["runs"] if "error" in r]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=10000)
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--symbols", type=int, default=1000)
    ap.add_argument("--record-lines", type=int, default=60000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sample", type=int, default=50, help="symbols timed with one `git log -S` each")
    ap.add_argument("--repeat", type=int, default=3, help="cold + cached `roadmap lint` runs to take (median)")
    ap.add_argument("--repo", type=Path, help="where to generate (default: a temporary directory, removed)")
    ap.add_argument(
        "--reuse",
        action="store_true",
        help="--repo already holds the repository these arguments generate: time it, do not regenerate",
    )
    ap.add_argument("--no-lint", action="store_true", help="skip timing `roadmap lint` end to end")
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    a = ap.parse_args(argv)
    if a.reuse and a.repo is None:
        ap.error("--reuse needs --repo")

    tmp = Path(tempfile.mkdtemp(prefix="bench-history-"))
    repo = a.repo if a.repo is not None else tmp / "repo"
    try:
        load_start = os.getloadavg()
        if a.reuse:
            m, gen_s = make_history_repo.existing(repo, a.commits, a.files, a.symbols, a.record_lines, a.seed), None
        else:
            m, gen_s = timed(
                lambda: make_history_repo.build(repo, a.commits, a.files, a.symbols, a.record_lines, a.seed)
            )
        symbols = m.symbols
        shutil.rmtree(repo / ".roadmap_cache", ignore_errors=True)
        cold, cold_s = timed(lambda: HistoryIndex.build(repo, "HEAD", symbols))
        warm, warm_s = timed(lambda: HistoryIndex.build(repo, "HEAD", symbols))
        extra = [f"NewSymbol{i}" for i in range(10)] + symbols[:5]
        grown, grown_s = timed(lambda: HistoryIndex.build(repo, "HEAD", symbols + extra))
        rng = random.Random(a.seed)
        sample = rng.sample(symbols, min(a.sample, len(symbols)))
        mismatches = []
        t0 = time.perf_counter()
        expected = {s: git_log_s(repo, s) for s in sample}
        base_s = time.perf_counter() - t0
        for s in sample:
            if [c.sha for c in warm.symbol_hits(s)] != expected[s] or [c.sha for c in cold.symbol_hits(s)] != expected[
                s
            ]:
                mismatches.append(s)
        per_symbol = base_s / len(sample)
        extrapolated = per_symbol * len(symbols)
        lint = None if a.no_lint else lint_times(repo, a.repeat, tmp / "lint.json")
        git_v = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
        report = {
            "command": "python tools/bench_history.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "machine": {
                "cpus": os.cpu_count(),
                "python": platform.python_version(),
                "git": git_v,
                "platform": platform.platform(),
                "loadavg_start": [round(x, 2) for x in load_start],
                "loadavg_end": [round(x, 2) for x in os.getloadavg()],
            },
            "repo": {
                "commits": len(cold.commits),
                "files": m.files,
                "symbols": len(symbols),
                "record_lines": m.record_lines,
                "generate_s": None if gen_s is None else round(gen_s, 2),
                "head": m.head,
            },
            "index": {
                "cold_s": round(cold_s, 2),
                "cached_s": round(warm_s, 2),
                "cold_scanned_commits": cold.stats.scanned_commits,
                "cached_scanned_commits": warm.stats.scanned_commits,
                "added_symbols": len(extra),
                "added_symbols_s": round(grown_s, 2),
                "added_symbols_scanned_commits": grown.stats.scanned_commits,
                "symbols_with_hits": sum(1 for s in symbols if cold.symbol_hits(s)),
                "hits_total": sum(len(cold.symbol_hits(s)) for s in symbols),
                "unknown_commits": cold.stats.unknown_commits,
                "speedup_x": round(extrapolated / cold_s, 1),
            },
            "baseline": {
                "method": f"one `git log -S<sym> --format=%H HEAD` per symbol, timed over a random "
                f"sample of {len(sample)} symbols and extrapolated linearly to {len(symbols)}",
                "sample": len(sample),
                "sample_s": round(base_s, 2),
                "per_symbol_s": round(per_symbol, 3),
                "extrapolated_s": round(extrapolated, 1),
            },
            "exactness": {"checked": len(sample), "mismatches": mismatches},
            "lint": lint,
        }
        checks = {"exact": not mismatches}
        if lint is not None:
            lint["speedup_x"] = round(extrapolated / lint["cold_s"], 1)
            checks.update(
                {
                    "lint_cold_s": lint["cold_s"] <= TARGETS["cold_s"],
                    "lint_cached_s": lint["cached_s"] <= TARGETS["cached_s"],
                    "lint_speedup_x": lint["speedup_x"] >= TARGETS["speedup_x"],
                    "lint_ran": not lint["errors"],
                }
            )
        report["targets"] = {
            "cold_s<=": TARGETS["cold_s"],
            "cached_s<=": TARGETS["cached_s"],
            "speedup_x>=": TARGETS["speedup_x"],
            "judged_on": "median `roadmap lint` runs",
            "met": checks,
        }
        print_report(report)
        if a.json:
            a.json.parent.mkdir(parents=True, exist_ok=True)
            a.json.write_text(json.dumps(report, indent=1) + "\n")
        return 0 if all(checks.values()) else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def print_report(r: dict) -> None:
    i, b, mch = r["index"], r["baseline"], r["machine"]
    print(f"reproduce: {r['command']}")
    print(
        f"machine:   {mch['cpus']} CPUs, Python {mch['python']}, {mch['git']}; load average "
        f"{' '.join(map(str, mch['loadavg_start']))} at start, {' '.join(map(str, mch['loadavg_end']))} at end"
    )
    print(
        f"repo:      {r['repo']['commits']} commits, {r['repo']['files']} files, {r['repo']['symbols']} symbols, "
        f"{r['repo']['record_lines']} record lines ("
        + ("reused" if r["repo"]["generate_s"] is None else f"generated in {r['repo']['generate_s']} s")
        + ")"
    )
    print(
        f"cold index build:     {i['cold_s']:8.2f} s  ({i['cold_scanned_commits']} commits scanned, "
        f"{i['hits_total']} hits)"
    )
    print(f"cached index build:   {i['cached_s']:8.2f} s  ({i['cached_scanned_commits']} commits scanned)")
    print(
        f"+{i['added_symbols']} symbols rebuild:  {i['added_symbols_s']:6.2f} s  "
        f"({i['added_symbols_scanned_commits']} commits rescanned for the new symbols)"
    )
    print(
        f"git log -S baseline:  {b['extrapolated_s']:8.1f} s  ({b['method']}: {b['sample_s']} s for the sample, "
        f"{b['per_symbol_s']} s per symbol); index {i['speedup_x']} x faster"
    )
    ex = r["exactness"]
    print(
        f"exactness:            {ex['checked'] - len(ex['mismatches'])}/{ex['checked']} sampled symbols equal "
        f"`git log -S` exactly" + (f"; MISMATCH: {ex['mismatches']}" if ex["mismatches"] else "")
    )
    li = r["lint"]
    if li:
        print(f"roadmap lint:         {li['command']}")
        for run in li["runs"]:
            print(
                f"  {run['kind']:6} {run['wall_s']:7.2f} s wall, {run['cpu_s']:6.2f} s CPU, exit {run['exit']}, "
                f"load {run['loadavg_1m']}" + (f"; error: {run['error']}" if "error" in run else "")
            )
        print(
            f"  median: cold {li['cold_s']} s (target <= {TARGETS['cold_s']:.0f} s), cached {li['cached_s']} s "
            f"(target <= {TARGETS['cached_s']:.0f} s), {li['speedup_x']} x faster than the baseline "
            f"(target >= {TARGETS['speedup_x']:.0f} x); {li['findings']} findings"
        )
    print("targets met: " + ", ".join(f"{k}={'yes' if v else 'NO'}" for k, v in r["targets"]["met"].items()))


if __name__ == "__main__":
    sys.exit(main())
