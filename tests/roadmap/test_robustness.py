"""A generated corpus of 50,000+ record lines (tables, lists, and odd input sprinkled in) is linted in one run:
no crash, every finding well-formed, and a sane time."""

from __future__ import annotations

import json
import random
import time

from roadmap.findings import SEVERITIES
from roadmap.lint import lint
from roadmap.render import FORMATS, render

ODD = [
    "| broken | table\n|---|\n| a | b | c | d |\n",  # ragged table
    "| ID | State |\n|---|---|\n| " + "x" * 12000 + " | OPEN |\n",  # a 12k-character cell
    "<div><table><tr><td>raw `src/mod_0.py:1` html</td></tr></table></div>\n",
    "```python\nunterminated fence `src/gone.py:3`\n",  # runs to the end of the file
    "- " * 60 + "deeply nested\n",
    "<!-- roadmap: disable-next-line -- no codes\n",  # unterminated comment
    "<!-- roadmap: frobnicate RL301 -->\n",  # unknown action
    "- ref to `src/mod_1.py:99999999999999999999` and `src/mod_1.py:0`\n",
    "- climbing `../../../../etc/passwd:1`, home `~/x.py:3`, url http://h/src/a.py:3\n",
    "- emoji 🚀 and RTL שלום `src/mod_2.py:1`\t tabs\n",
    "- ~~struck `src/deleted_0.py:1`~~ and ~~unclosed strike, then `src/deleted_1.py:1`\n",
    "| ID | State |\n|---|---|\n| ROW-A-1 | OPEN | extra | cells | here |\n",
    "[link](<src/mod 3.py#L1>) [empty]() [anchor](#section) ![img](src/mod_3.py)\n",
    "1) item landed in commit `deadbeefcafe1234`; see 20991231-future-evidence\n",
]


def corpus(rng: random.Random, n_files: int, rows_per_file: int) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {
        f"src/mod_{i}.py": "".join(f"def f_{i}_{j}():\n    return {j}\n" for j in range(40)) for i in range(20)
    }
    for k in range(n_files):
        out = [f"# Record {k}\n", "\n", "| ID | State | Remaining | Where |\n", "|---|---|---|---|\n"]
        for r in range(rows_per_file):
            rid = f"ROW-{k}-{r}"
            state = rng.choice(["OPEN", "DONE", "GATING", "BLOCKED", "PLANNED"])
            ref = f"src/mod_{rng.randrange(25)}.py:{rng.randrange(1, 100)}"
            out.append(f"| {rid} | {state} | rerun `f_{r % 20}_1` for ROW-{k}-{(r + 1) % rows_per_file} | `{ref}` |\n")
        out.append("\n## Punch-list\n\n")
        for r in range(rows_per_file):
            out.append(
                f"{r + 1}. Port `f_{r % 20}_{r % 40}()` (src/mod_{r % 20}.py:{(r % 40) * 2 + 1}) for ROW-{k}-{r}; "
                f"see {1000000 + r:x}a and 2026{(r % 12) + 1:02d}01-series-{r % 7}.\n"
            )
            if r % 500 == 0:
                out.append(rng.choice(ODD))
        files[f"agents/record_{k}.md"] = "".join(out)
    files["agents/latin1.md"] = b"# caf\xe9\n\n- r\xe9sum\xe9 `src/mod_1.py:1`\n"
    files["agents/binary.md"] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
    files["agents/empty.md"] = ""
    files["agents/crlf.md"] = "# CRLF\r\n\r\n- `src/mod_1.py:500`\r\n"
    return files


def test_generated_corpus_of_50k_lines_lints_in_one_run(git_repo):
    repo = git_repo()
    files = corpus(random.Random(0), n_files=10, rows_per_file=2600)
    lines = sum(
        (v.count("\n") if isinstance(v, str) else v.count(b"\n")) for k, v in files.items() if k.startswith("agents/")
    )
    assert lines >= 50_000
    repo.commit({f"src/deleted_{i}.py": "def gone():\n    return 0\n" for i in range(3)}, "feat: helpers", "2026-06-01")
    repo.commit({f"src/deleted_{i}.py": None for i in range(3)}, "refactor: drop the helpers", "2026-06-15")
    repo.commit(files, "docs: a large generated corpus", "2026-07-01")

    started = time.perf_counter()
    result = lint(repo.path)
    elapsed = time.perf_counter() - started

    assert result.records == 14 and result.statements > 50_000
    # measured: 13.4 s of CPU (most of it markdown parsing; wall time grows with machine load). The bound
    # catches pathological slowness, e.g. a git subprocess per statement (170 s before as-of news was cached)
    assert elapsed < 90, f"linting {lines} lines took {elapsed:.1f}s"
    for f in result.findings:
        assert f.severity in SEVERITIES and f.path.startswith("agents/") and 1 <= f.line <= f.end_line
    codes = {f.code for f in result.findings}
    assert {"RL001", "RL301", "RL302", "RL304"} <= codes, codes
    paths = {f.path for f in result.findings if f.code == "RL001"}
    assert {"agents/latin1.md", "agents/binary.md"} <= paths
    for fmt in FORMATS:
        assert render(result, fmt)
    json.loads(render(result, "json"))
    print(f"\nlinted {lines} lines ({result.statements} statements, {len(result.findings)} findings) in {elapsed:.2f}s")
