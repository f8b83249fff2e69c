"""Evidence kept in series folders: `<root>/<series>/<date>.json`, `<root>/<run>/<task>-<date>.json`, a dated folder
inside a series folder. Each dated file or folder is an entry of its folder's series; a folder with nothing dated
stays ignored. Voice: a speech team's ASR evals; RL102 finds the rerun, and an older run or another series' run
stays quiet."""

from __future__ import annotations

import json

from roadmap.config import Config, EvidenceConfig
from roadmap.evidence import load_evidence
from roadmap.history.tree import Tree
from roadmap.lint import LintOptions, lint

CFG = Config(evidence=EvidenceConfig(root="evals"))


def test_dated_entries_inside_series_folders(git_repo) -> None:
    repo = git_repo()
    repo.commit(
        {
            "evals/wer-librispeech/2026-05-03.json": json.dumps({"wer": 4.1}),
            "evals/ckpt-12/rtf-2026-05-04.json": json.dumps({"rtf": 0.21}),
            "evals/streaming/20260505-chunked/result.json": json.dumps({"latency_ms": 310}),
            "evals/scratch/notes.txt": "nothing dated here\n",
            "evals/20260501-baseline/result.json": json.dumps({"wer": 4.6}),
        },
        "evals",
        "2026-05-06",
    )
    store = load_evidence(Tree(repo.path), CFG)
    assert [(e.path, e.series, e.date) for e in store] == [
        ("evals/20260501-baseline", "baseline", "2026-05-01"),
        ("evals/wer-librispeech/2026-05-03.json", "wer-librispeech", "2026-05-03"),
        ("evals/ckpt-12/rtf-2026-05-04.json", "ckpt-12/rtf", "2026-05-04"),
        ("evals/streaming/20260505-chunked", "streaming/chunked", "2026-05-05"),
    ]
    assert store.ignored == ["scratch"]


TODO = """# ASR todo

- [ ] Re-measure WER on librispeech once the new tokenizer is in
- [ ] Re-measure WER on common-voice once the new tokenizer is in
"""


def test_a_rerun_found_in_a_series_folder(git_repo) -> None:
    repo = git_repo()
    repo.commit(
        {
            "roadmap.yaml": "records: ['notes/*.md']\nevidence:\n  root: evals\n",
            "evals/wer-librispeech/2026-05-03.json": json.dumps({"wer": 4.1}),
            "evals/wer-common-voice/2026-05-03.json": json.dumps({"wer": 9.8}),
        },
        "evals",
        "2026-05-03",
    )
    repo.commit({"notes/todo.md": TODO}, "todo", "2026-05-04")
    repo.commit({"evals/wer-librispeech/2026-05-09.json": json.dumps({"wer": 3.7})}, "wer again", "2026-05-09")
    found = lint(repo.path, LintOptions(use_cache=False, select=("RL102",))).findings
    assert [(f.line, [e["path"] for e in f.evidence if e.get("kind") == "evidence"]) for f in found] == [
        (3, ["evals/wer-librispeech/2026-05-09.json"])
    ]
