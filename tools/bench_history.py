#!/usr/bin/env python3
"""Benchmark the history index against one `git log -S` per symbol (a measurement, not a test).

    .venv/bin/python tools/bench_history.py [--commits 10000] [--symbols 1000] [--sample 50] [--json PATH]

Generates a seeded repository (tools/make_history_repo.py: 10,000 commits, 300 files, 60,000 lines of
markdown records naming 1,000 symbols), then times: the cold index build (no cache), the cached build,
a build after 10 symbols are added to the set, `roadmap lint` end to end (cold and cached) when the CLI is
there, and `git log -S<sym> --format=%H` for a random sample of symbols, extrapolated linearly to the whole
set (said so in the output). The same sample is checked for exactness: every hit list must equal git's.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import make_history_repo  # noqa: E402

from roadmap.history.index import HistoryIndex  # noqa: E402

TARGETS = {"cold_s": 30.0, "cached_s": 3.0, "speedup_x": 10.0}


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def git_log_s(repo: Path, sym: str) -> list[str]:
    out = subprocess.run(["git", "-C", str(repo), "log", f"-S{sym}", "--format=%H", "HEAD"],
                         capture_output=True, check=True).stdout.decode()
    return out.split()


def lint_times(repo: Path) -> dict:
    """`roadmap lint` end to end, cold (cache removed) and cached; absent when the CLI cannot run."""
    cmd = [sys.executable, "-m", "roadmap", "lint", str(repo), "--format", "json", "-o", os.devnull]
    out: dict = {"command": " ".join(cmd)}
    for label in ("cold", "cached"):
        if label == "cold":
            shutil.rmtree(repo / ".roadmap_cache", ignore_errors=True)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, cwd=HERE.parent)
        out[f"{label}_s"] = round(time.perf_counter() - t0, 2)
        out[f"{label}_exit"] = proc.returncode
        if proc.returncode not in (0, 1):
            out["error"] = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["?"]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=10000)
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--symbols", type=int, default=1000)
    ap.add_argument("--record-lines", type=int, default=60000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sample", type=int, default=50, help="symbols timed with one `git log -S` each")
    ap.add_argument("--repo", type=Path, help="where to generate (default: a temporary directory, removed)")
    ap.add_argument("--no-lint", action="store_true", help="skip timing `roadmap lint` end to end")
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    a = ap.parse_args(argv)

    tmp = None
    if a.repo is None:
        tmp = Path(tempfile.mkdtemp(prefix="bench-history-"))
        repo = tmp / "repo"
    else:
        repo = a.repo
    try:
        m, gen_s = timed(lambda: make_history_repo.build(repo, a.commits, a.files, a.symbols, a.record_lines, a.seed))
        symbols = m.symbols
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
            if [c.sha for c in warm.symbol_hits(s)] != expected[s] or \
                    [c.sha for c in cold.symbol_hits(s)] != expected[s]:
                mismatches.append(s)
        per_symbol = base_s / len(sample)
        extrapolated = per_symbol * len(symbols)
        lint = None if a.no_lint else lint_times(repo)
        git_v = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
        report = {
            "command": "python tools/bench_history.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "git": git_v,
                        "platform": platform.platform()},
            "repo": {"commits": len(cold.commits), "files": m.files, "symbols": len(symbols),
                     "record_lines": m.record_lines, "generate_s": round(gen_s, 2)},
            "index": {"cold_s": round(cold_s, 2), "cached_s": round(warm_s, 2),
                      "cold_scanned_commits": cold.stats.scanned_commits,
                      "cached_scanned_commits": warm.stats.scanned_commits,
                      "added_symbols": len(extra), "added_symbols_s": round(grown_s, 2),
                      "added_symbols_scanned_commits": grown.stats.scanned_commits,
                      "symbols_with_hits": sum(1 for s in symbols if cold.symbol_hits(s)),
                      "hits_total": sum(len(cold.symbol_hits(s)) for s in symbols),
                      "unknown_commits": cold.stats.unknown_commits},
            "baseline": {"method": f"one `git log -S<sym> --format=%H HEAD` per symbol, timed over a random "
                                   f"sample of {len(sample)} symbols and extrapolated linearly to {len(symbols)}",
                         "sample": len(sample), "sample_s": round(base_s, 2),
                         "per_symbol_s": round(per_symbol, 3), "extrapolated_s": round(extrapolated, 1)},
            "speedup_x": round(extrapolated / cold_s, 1),
            "exactness": {"checked": len(sample), "mismatches": mismatches},
            "lint": lint,
        }
        checks = {"cold_s": cold_s <= TARGETS["cold_s"], "cached_s": warm_s <= TARGETS["cached_s"],
                  "speedup_x": extrapolated / cold_s >= TARGETS["speedup_x"], "exact": not mismatches}
        report["targets"] = {"cold_s<=": TARGETS["cold_s"], "cached_s<=": TARGETS["cached_s"],
                             "speedup_x>=": TARGETS["speedup_x"], "met": checks}
        print_report(report)
        if a.json:
            a.json.parent.mkdir(parents=True, exist_ok=True)
            a.json.write_text(json.dumps(report, indent=1) + "\n")
        return 0 if all(checks.values()) else 1
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def print_report(r: dict) -> None:
    i, b, mch = r["index"], r["baseline"], r["machine"]
    print(f"reproduce: {r['command']}")
    print(f"machine:   {mch['cpus']} CPUs, Python {mch['python']}, {mch['git']}")
    print(f"repo:      {r['repo']['commits']} commits, {r['repo']['files']} files, {r['repo']['symbols']} symbols, "
          f"{r['repo']['record_lines']} record lines (generated in {r['repo']['generate_s']} s)")
    print(f"cold index build:     {i['cold_s']:8.2f} s  (target <= {TARGETS['cold_s']:.0f} s; "
          f"{i['cold_scanned_commits']} commits scanned, {i['hits_total']} hits)")
    print(f"cached index build:   {i['cached_s']:8.2f} s  (target <= {TARGETS['cached_s']:.0f} s; "
          f"{i['cached_scanned_commits']} commits scanned)")
    print(f"+{i['added_symbols']} symbols rebuild:  {i['added_symbols_s']:6.2f} s  "
          f"({i['added_symbols_scanned_commits']} commits rescanned for the new symbols)")
    print(f"git log -S baseline:  {b['extrapolated_s']:8.1f} s  ({b['method']}: {b['sample_s']} s for the sample, "
          f"{b['per_symbol_s']} s per symbol)")
    print(f"speed-up vs baseline: {r['speedup_x']:8.1f} x  (target >= {TARGETS['speedup_x']:.0f} x)")
    ex = r["exactness"]
    print(f"exactness:            {ex['checked'] - len(ex['mismatches'])}/{ex['checked']} sampled symbols equal "
          f"`git log -S` exactly" + (f"; MISMATCH: {ex['mismatches']}" if ex["mismatches"] else ""))
    if r["lint"]:
        li = r["lint"]
        print(f"roadmap lint:         cold {li['cold_s']} s (exit {li['cold_exit']}), cached {li['cached_s']} s "
              f"(exit {li['cached_exit']})" + (f"; error: {li['error']}" if li.get("error") else ""))
    print("targets met: " + ", ".join(f"{k}={'yes' if v else 'NO'}" for k, v in r["targets"]["met"].items()))


if __name__ == "__main__":
    sys.exit(main())
