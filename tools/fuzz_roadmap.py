#!/usr/bin/env python3
"""The slow, recorded fuzz run of roadmap (a measurement, not a test): tests/roadmap/test_fuzz.py with every
example count multiplied by --scale (25: more than 10,000 examples), written up as an evidence directory.

    .venv/bin/python tools/fuzz_roadmap.py [--scale 25] [--seed N] [--out docs/bench-evidence/YYYYMMDD-roadmap-fuzz]

Runs pytest once with ROADMAP_FUZZ_SCALE and a fixed --hypothesis-seed (printed, so a failure can be replayed
with the same command), counts the examples each property ran (ROADMAP_FUZZ_REPORT), and writes
`summary.md` (for a person) and `fuzz.json` (the same figures, machine-readable) into --out: the command, the
commit, the machine, the counts, the time and the outcome. Exit status: pytest's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST = "tests/roadmap/test_fuzz.py"
INVARIANTS = {
    "records": "generated markdown records parse without an exception; every statement's lines are real lines; "
    "every placed path reference is exactly its text at its line and columns",
    "fix_spans": "a fix applied to one reference changes only its span; re-parsed, that reference reads the new "
    "text and no other reference on the line changed",
    "evidence_json": "generated result.json bytes are bounded, finite JSON or a JsonError with a line and column; "
    "the evidence store and validator never raise on them",
    "histories": "on generated git histories (symbols moved, dates that run backwards) lint raises nothing, every "
    "finding points at a real record line, every format renders (JSON is JSON); --fix reaches a fixed "
    "point, nothing it could still apply is left, and the file differs only by the spans it wrote",
}


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout.strip()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=float, default=25.0, help="multiplier of every example count (default 25)")
    p.add_argument("--seed", type=int, default=None, help="hypothesis seed (default: a random one, recorded)")
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "bench-evidence" / f"{date.today():%Y%m%d}-roadmap-fuzz")
    args = p.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    counts_file = Path(tempfile.mkstemp(prefix="fuzz-counts-", suffix=".json")[1])
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        TEST,
        "-q",
        "-p",
        "no:cacheprovider",
        f"--hypothesis-seed={seed}",
        "--hypothesis-show-statistics",
        "-o",
        "addopts=",
    ]
    shown = f".venv/bin/python tools/fuzz_roadmap.py --scale {args.scale:g} --seed {seed}"
    env = {
        **os.environ,
        "ROADMAP_FUZZ_SCALE": str(args.scale),
        "ROADMAP_FUZZ_REPORT": str(counts_file),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")])),
    }
    load_start = os.getloadavg()
    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    counts = json.loads(counts_file.read_text() or "{}") if counts_file.stat().st_size else {}
    counts_file.unlink(missing_ok=True)
    tail = proc.stdout.strip().splitlines()[-40:]
    doc = {
        "what": "property-based fuzzing of roadmap (hypothesis), issue 10 item 6",
        "row": "RM-SAFETY",
        "created": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": git("rev-parse", "HEAD"),
        "dirty": bool(git("status", "--porcelain", "--", "roadmap", "tests")),
        "command": shown,
        "pytest_command": " ".join(["python", *cmd[1:]]),
        "seed": seed,
        "scale": args.scale,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "hypothesis": _version("hypothesis"),
            "git": git("--version"),
            "load_average_start": [round(x, 2) for x in load_start],
            "load_average_end": [round(x, 2) for x in os.getloadavg()],
        },
        "examples": counts,
        "examples_total": sum(counts.values()),
        "invariants": INVARIANTS,
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "exit_status": proc.returncode,
        "outcome": "pass" if proc.returncode == 0 else "fail",
        "pytest_tail": tail,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fuzz.json").write_text(json.dumps(doc, indent=2) + "\n")
    (args.out / "summary.md").write_text(_summary(doc))
    print(_summary(doc))
    return proc.returncode


def _version(name: str) -> str:
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:  # reported as unknown, never a reason to lose the record of a run
        return "unknown"


def _summary(doc: dict) -> str:
    rows = "\n".join(
        f"| `{name}` | {n:,} | {doc['invariants'].get(name, '')} |" for name, n in sorted(doc["examples"].items())
    )
    m = doc["machine"]
    return f"""# roadmap fuzz run: {doc["examples_total"]:,} examples, {doc["outcome"]}

Row RM-SAFETY (issue 10, item 6). evident at commit `{doc["commit"]}` ({"dirty" if doc["dirty"] else "clean"}),
on the {m["cpus"]}-CPU development machine (no GPU involved); hypothesis {m["hypothesis"]}, Python {m["python"]}.

```
reproduce: {doc["command"]}
pytest:    {doc["pytest_command"]}
seed:      {doc["seed"]}    scale: {doc["scale"]:g} x the regular suite's example counts
time:      {doc["wall_s"]} s wall, {doc["cpu_s"]} s CPU; load average {m["load_average_start"]} at start, {m["load_average_end"]} at end
outcome:   {doc["outcome"]} (pytest exit status {doc["exit_status"]})
```

| property | examples | invariant |
|---|---|---|
{rows}

Examples are counted as runs of each property's body (hypothesis's own replays included). The regular suite
runs the same properties at scale 1 with a fixed, derandomised seed.
"""


if __name__ == "__main__":
    sys.exit(main())
