"""Build the seed repository: the item-14 situation of ../shared/seed/item-14-issue.txt, in our own words.

`build_seed_repo(path)` creates a git repository with dated commits (plain `git` subprocess calls) and
returns the shas of its key commits. What it holds at HEAD:

- `.agents/specs/roadmap-v1-completion.md`, authored from the 2026-07-25 CLAIM-LOCAL-BF16-H32-AOT
  checkpoint: the §2 RI-table cell of ROAD-V1-C2-LOCAL-BF16 (line 39, quoting the 2026-07-25 figures)
  and punch-list item 14 (line 206) direct work that landed 2026-07-27, on a premise that commit
  refuted, for a mirror that 2026-08-05 turned on by default, with a rerun done six times since;
- the same directive in `.agents/benchmark-record.md` (Host-weight ownership, next actions) and in
  `.agents/coordination.md` (the 2026-07-25 checkpoint's "Next owner must ..." bullet);
- canonical row 2a in `.agents/roadmap.md` (GATING, 1.0283x PASS) and its `runner.cpp:2430-2455` note;
- negative controls that must stay quiet: (1) PREFIX-EVICT's work exists only on an unmerged branch;
  (2) struck-through / "superseded by" figures; (3) GGUF-LOAD's words appear only in an unrelated commit;
  (4) the 8B latency rerun has no newer evidence; (5) TOKENIZER and DOCS directives have no news at all;
- the last commit adds a benchmark-record row whose figure its cited evidence does not contain.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "seed"
sys.path.insert(0, str(FIXTURES))
from runner_cpp import runner_cpp  # noqa: E402  (fixture module, not a package)

RUNNER = "src/vllm/v1/worker/gpu/runner.cpp"
SPEC = ".agents/specs/roadmap-v1-completion.md"
ROADMAP = ".agents/roadmap.md"
BENCH = ".agents/benchmark-record.md"
COORD = ".agents/coordination.md"
CAMPAIGN = ".agents/specs/sm120-qwen35-pareto-2026-08-07.md"
EVIDENCE = "docs/bench-evidence"
ROW = "ROAD-V1-C2-LOCAL-BF16"

# The six reruns of the 4B series after the checkpoint: (path under docs/bench-evidence, date, ours, peer,
# mirror setting). Foreign evidence: a dir with a summary.md, or a single file; date first or date last.
RERUNS = [
    ("20260727-local-bf16-4b/summary.md", "2026-07-27", 5702.31, 5843.90, "off (opt-in)"),
    ("20260728-local-bf16-4b.md", "2026-07-28", 5811.20, 5846.02, "on (VT_ASYNC_DEVICE_MIRROR=1)"),
    ("local-bf16-4b-20260729/summary.md", "2026-07-29", 5822.75, 5839.61, "on (VT_ASYNC_DEVICE_MIRROR=1)"),
    ("20260803-local-bf16-4b/summary.md", "2026-08-03", 6104.88, 6650.07, "on, new peer version"),
    ("local-bf16-4b-20260805.md", "2026-08-05", 6790.12, 6639.95, "on by default"),
    ("20260807-local-bf16-4b/summary.md", "2026-08-07", 6831.71, 6643.40, "on by default"),
]


def _record(name: str) -> str:
    return (FIXTURES / "records" / name).read_text()


def _message(name: str) -> str:
    return (FIXTURES / "messages" / name).read_text()


def _summary(date: str, ours: float, peer: float, mirror: str, note: str = "") -> str:
    ratio = ours / peer
    verdict = "PASS" if ratio >= 1.0 else "FAIL"
    return (
        f"# local-bf16-4b, {date}\n\nRow: {ROW}\nSeries: local-bf16-4b (Qwen3-4B, BF16, nano workload, "
        f"local workstation)\nDevice mirror: {mirror}\n\n| engine | output tok/s (median of 3) |\n|---|---|\n"
        f"| ours | {ours:.2f} |\n| peer | {peer:.2f} |\n\nRatio {ratio:.4f}x, {verdict} against parity.\n"
        + (f"\n{note}\n" if note else "")
    )


def _result_json(commit: str, ours: float, peer: float) -> str:
    """A full `evident.bench/1` result for the 2026-08-07 entry (the one the canonical row cites)."""
    runs = [ours - 20.55, ours, ours + 11.03]
    return (
        json.dumps(
            {
                "schema": "evident.bench/1",
                "series": "local-bf16-4b",
                "row": ROW,
                "created": "2026-08-07T16:40:00Z",
                "commit": commit,
                "dirty": False,
                "command": "vllm-bench throughput --model qwen3-4b --dtype bfloat16 --workload nano --repeat 3",
                "machine": {
                    "gpu": "RTX PRO 6000 (sm120)",
                    "gpu_count": 1,
                    "driver": "580.65",
                    "cuda": "13.0",
                    "torch": "2.11.0",
                    "triton": "3.6.0",
                    "python": "3.11.9",
                },
                "model": {"name": "Qwen3-4B", "load_format": "safetensors", "dtype": "bfloat16", "config": "qwen3-4b"},
                "workload": {
                    "name": "nano",
                    "num_requests": 256,
                    "prompt_tokens": 142827,
                    "output_tokens": 133966,
                    "seed": 0,
                },
                "engine": {"async_scheduling": True, "device_mirror": True, "enforce_eager": False},
                "runs": [{"output_tok_per_s": r} for r in runs],
                "metrics": {"output_tok_per_s": {"median": ours, "min": runs[0], "max": runs[2]}},
                "roofline": {"output_tok_per_s_bound": 9120.0, "fraction": round(ours / 9120.0, 4)},
                "peers": [
                    {
                        "name": "peer",
                        "version": "0.11.2",
                        "settings": {"dtype": "bfloat16"},
                        "metrics": {"output_tok_per_s": {"median": peer}},
                        "ratio": round(ours / peer, 4),
                    }
                ],
            },
            indent=2,
            sort_keys=True,
        )
        + "\n"
    )


class _Repo:
    def __init__(self, path: Path):
        self.path = path

    def git(self, *args: str, date: str | None = None) -> str:
        env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
        if date:
            env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        out = subprocess.run(
            ["git", "-C", str(self.path), *args], env=env, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        return out.stdout.decode().strip()

    def write(self, files: dict[str, str]) -> None:
        for rel, text in files.items():
            p = self.path / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)

    def commit(self, when: str, message: str, files: dict[str, str]) -> str:
        self.write(files)
        self.git("add", "--", *files)
        date = f"{when}+00:00" if "T" in when else f"{when}T12:00:00+00:00"
        self.git("commit", "-q", "-m", message.rstrip("\n"), date=date)
        return self.git("rev-parse", "HEAD")


def build_seed_repo(path: str | Path) -> dict[str, str]:
    """Create the seed repository at `path` (emptied first) and return the shas of its key commits:
    init, runner_default, bench_8b, checkpoint, spec (= the commit before the landing), landing,
    rerun_0727, rerun_0728, rerun_0729, unrelated, unmerged (branch wip/prefix-evictor, never merged),
    rerun_0803, flip (on branch serve-async-llm), merge, rerun_0805, row2a, partial_fix, record_0809."""
    path = Path(path)
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    r = _Repo(path)
    r.git("init", "-q", "-b", "main")
    for key, value in (
        ("user.name", "Seed Builder"),
        ("user.email", "seed@example.invalid"),
        ("commit.gpgsign", "false"),
    ):
        r.git("config", key, value)
    s: dict[str, str] = {}

    s["init"] = r.commit(
        "2026-07-12T09:00:00",
        "chore: import the runner, the records and the nano smoke entry\n\nRow: ROAD-V1-A1-SCHED",
        {
            RUNNER: runner_cpp(0),
            ROADMAP: _record("roadmap@0712.md"),
            BENCH: _record("benchmark-record@0712.md"),
            COORD: _record("coordination@0712.md"),
            "README.md": "# vt\n\nA local inference runtime and the records that steer it (`.agents/`).\n",
            "tools/README.md": "# tools\n\nConverters and dump helpers for weights.\n",
            f"{EVIDENCE}/20260712-nano-qwen3-0.6b/summary.md": "# nano-qwen3-0.6b, 2026-07-12\n\nRow: ROAD-V1-A1-SCHED\n\nOutput 11234.50 tok/s (median of 3).\n",
        },
    )
    s["runner_default"] = r.commit(
        "2026-07-17T10:00:00",
        "feat(engine): async runner on by default\n\n"
        "VT_ASYNC_RUNNER now defaults to 1; set it to 0 for the synchronous runner.\n\n"
        "Row: ENG-ASYNC-SCHED",
        {RUNNER: runner_cpp(1)},
    )
    s["bench_8b"] = r.commit(
        "2026-07-19T15:00:00",
        "bench(perf): qwen3 8B latency series, chunked prefill on\n\nRow: ROAD-V1-C4-8B-LATENCY",
        {
            f"{EVIDENCE}/qwen3-8b-latency-20260719/summary.md": "# qwen3-8b-latency, 2026-07-19\n\nRow: ROAD-V1-C4-8B-LATENCY\nChunked prefill: on\n\n"
            "p50 TTFT 612 ms, p99 TTFT 2140 ms, TPOT p50 21.4 ms.\n"
        },
    )
    s["checkpoint"] = r.commit(
        "2026-07-25T18:00:00",
        f"docs(records): CLAIM-LOCAL-BF16-H32-AOT checkpoint\n\nRow: {ROW}",
        {
            ROADMAP: _record("roadmap@0725.md"),
            BENCH: _record("benchmark-record@0725.md"),
            COORD: _record("coordination@0725.md"),
            f"{EVIDENCE}/20260725-local-bf16-4b/summary.md": _summary(
                "2026-07-25", 5769.99, 5849.80, "n/a", "Ours min of 3: 5660.70 tok/s."
            ),
        },
    )
    s["spec"] = r.commit(
        "2026-07-26T11:00:00",
        "docs(records): v1 completion plan from the 2026-07-25 checkpoint",
        {SPEC: _record("spec-roadmap-v1-completion@0726.md")},
    )
    s["landing"] = r.commit("2026-07-27T11:00:00", _message("landing.txt"), {RUNNER: runner_cpp(2)})
    for (rel, date, ours, peer, mirror), key in zip(RERUNS[:3], ("rerun_0727", "rerun_0728", "rerun_0729")):
        s[key] = r.commit(
            f"{date}T20:00:00",
            f"bench(perf): local-bf16-4b entry for {date}\n\nRow: {ROW}",
            {f"{EVIDENCE}/{rel}": _summary(date, ours, peer, mirror)},
        )
    # (1) work done only on a branch that never merges: not history.
    r.git("checkout", "-q", "-b", "wip/prefix-evictor")
    s["unmerged"] = r.commit(
        "2026-08-02T09:00:00",
        _message("unmerged.txt"),
        {
            "src/vllm/v1/core/prefix_evictor.cpp": "// LRU eviction of unreferenced cached prefix blocks.\nclass PrefixBlockEvictor {\n public:\n"
            "  void touch(int block);\n  int evict();\n};\n"
        },
    )
    r.git("checkout", "-q", "main")
    # (3) the GGUF directive's words, in a commit about something else.
    s["unrelated"] = r.commit(
        "2026-08-01T10:00:00",
        _message("unrelated.txt"),
        {
            "tools/README.md": "# tools\n\nConverters and dump helpers for weights.\n\n## GGUF Q4_K\n\n"
            "Q4_K packs 256-weight super-blocks with six-bit scales and mins.\n"
        },
    )
    rel, date, ours, peer, mirror = RERUNS[3]
    s["rerun_0803"] = r.commit(
        f"{date}T20:00:00",
        f"bench(perf): local-bf16-4b entry for {date}\n\nRow: {ROW}",
        {f"{EVIDENCE}/{rel}": _summary(date, ours, peer, mirror)},
    )
    # The default flip arrives through a merged branch: a merged branch is history.
    r.git("checkout", "-q", "-b", "serve-async-llm", s["landing"])
    s["flip"] = r.commit("2026-08-05T10:00:00", _message("flip.txt"), {RUNNER: runner_cpp(3)})
    r.git("checkout", "-q", "main")
    r.git(
        "merge",
        "-q",
        "--no-ff",
        "-m",
        "Merge pull request #31 from serve-async-llm\n\nRow: SERVE-ASYNC-LLM",
        "serve-async-llm",
        date="2026-08-05T12:00:00+00:00",
    )
    s["merge"] = r.git("rev-parse", "HEAD")
    rel, date, ours, peer, mirror = RERUNS[4]
    s["rerun_0805"] = r.commit(
        f"{date}T20:00:00",
        f"bench(perf): local-bf16-4b entry for {date}\n\nRow: {ROW}",
        {f"{EVIDENCE}/{rel}": _summary(date, ours, peer, mirror)},
    )
    rel, date, ours, peer, mirror = RERUNS[5]
    s["row2a"] = r.commit(
        "2026-08-07T17:00:00",
        f"docs(records): row 2a records the three-repetition 4B result\n\nRow: {ROW}",
        {
            f"{EVIDENCE}/{rel}": _summary(date, ours, peer, mirror),
            f"{EVIDENCE}/20260807-local-bf16-4b/result.json": _result_json(s["merge"], ours, peer),
            ROADMAP: _record("roadmap@0807.md"),
            CAMPAIGN: _record("campaign-sm120-qwen35-pareto.md"),
        },
    )
    s["partial_fix"] = r.commit(
        "2026-08-08T10:00:00",
        "docs(records): note the superseded ratio in the v1 plan",
        {SPEC: _record("spec-roadmap-v1-completion@0808.md")},
    )
    s["record_0809"] = r.commit(
        "2026-08-09T10:00:00",
        "docs(records): benchmark record row for the decode mirror",
        {BENCH: _record("benchmark-record@0809.md")},
    )
    return s
