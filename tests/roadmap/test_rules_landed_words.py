"""RL101 without ids or symbols: the landing commit recognised from what it says it did, and a directive that
another record already marks done (stale on arrival). Every positive has a control beside it."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

TODO = ".agents/todo.md"
STATUS = ".agents/status.md"


def _findings(repo, *codes: str):
    return [f for f in lint(repo.path, LintOptions(use_cache=False, select=codes or ("RL1",))).findings]


def _todo(*items: str) -> str:
    return "# Uploader todo\n\n" + "".join(f"- [ ] {i}\n" for i in items)


def _repo(git_repo, item: str):
    repo = git_repo()
    repo.commit(
        {"uploader/put.go": "package uploader\n\nfunc Put() error { return nil }\n"},
        "uploader: first cut",
        "2026-05-01",
    )
    repo.commit({TODO: _todo(item, "Add a --dry-run flag to the CLI")}, "todo list", "2026-05-02")
    return repo


ITEM = "Retry uploads with exponential backoff when S3 answers 503"


def test_a_commit_reporting_the_same_work_in_its_own_words_lands_it(git_repo):
    repo = _repo(git_repo, ITEM)
    sha = repo.commit(
        {"uploader/put.go": "package uploader\n\nfunc Put() error { return retry(put) }\n"},
        "uploader: exponential backoff on S3 503s",
        "2026-05-04",
    )
    [f] = _findings(repo)
    assert f.code == "RL101" and f.line == 3 and f.evidence[0]["sha"] == sha
    assert "work terms" in f.message and f.severity == "info"  # words alone: a hint, not a warning


def test_a_commit_that_says_it_left_the_work_does_not_land_it(git_repo):
    repo = _repo(git_repo, ITEM)
    repo.commit(
        {"uploader/put.go": "package uploader\n\nfunc Put() error { log503(); return nil }\n"},
        "uploader: log S3 503s",
        "2026-05-04",
    )
    repo.commit(
        {"uploader/put.go": "package uploader\n\nfunc Put() error { log503(); return nil } // v2\n"},
        "uploader: count S3 503 responses\n\nExponential backoff and retries are not done yet; that is the next step.",
        "2026-05-05",
    )
    assert _findings(repo) == []


def test_a_commit_that_only_writes_documentation_builds_nothing(git_repo):
    repo = _repo(git_repo, ITEM)
    repo.commit(
        {"README.md": "# uploader\n\nUploads retry with exponential backoff on S3 503s (planned).\n"},
        "docs: exponential backoff on S3 503s",
        "2026-05-04",
    )
    assert _findings(repo) == []


def test_a_commit_whose_trailers_name_another_row_is_that_rows_work(git_repo):
    repo = git_repo()
    repo.commit({"uploader/put.go": "package uploader\n"}, "first cut", "2026-05-01")
    repo.commit(
        {TODO: "# Todo\n\n| ID | State | Next |\n|---|---|---|\n| UP-RETRY | open | " + ITEM + " |\n"},
        "todo",
        "2026-05-02",
    )
    repo.commit(
        {"mirror/put.go": "package mirror\n"}, "mirror: exponential backoff on S3 503s\n\nRow: UP-MIRROR", "2026-05-04"
    )
    assert _findings(repo) == []


def test_a_measurement_is_not_done_by_a_commit_that_only_builds(git_repo):
    repo = _repo(git_repo, "Measure upload throughput with exponential backoff on S3 503s")
    repo.commit(
        {"uploader/put.go": "package uploader\n\nfunc Put() error { return retry(put) }\n"},
        "uploader: exponential backoff on S3 503s",
        "2026-05-04",
    )
    assert _findings(repo) == []


def test_stale_on_arrival_when_another_record_marks_the_work_done(git_repo):
    repo = git_repo()
    repo.commit({"api/export.ts": "export const csv = buffer\n"}, "init", "2026-06-01")
    landed = repo.commit(
        {"api/export.ts": "export const csv = stream\n"},
        "perf(export): stream CSV rows instead of buffering",
        "2026-06-03T09:00:00",
    )
    repo.commit(
        {STATUS: "# Week 23\n\n- ✅ CSV export streams rows\n- 🚧 Webhook signature rotation\n"},
        "status",
        "2026-06-03T10:00:00",
    )
    repo.commit(
        {
            TODO: _todo(
                "Stream the CSV export instead of buffering it in memory",
                "Rotate the webhook signing secret every 90 days",
            )
        },
        "release checklist",
        "2026-06-03T15:00:00",
    )  # written after the work landed
    [f] = _findings(repo)
    assert f.line == 3 and f.code == "RL101" and f.severity == "warning"
    assert f"{STATUS}:3 already marks done" in f.message and f.evidence[0]["sha"] == landed


def _board(git_repo, cell: str):
    repo = git_repo()
    repo.commit(
        {"svc/serve.py": "def serve():\n    pass\n", "svc/bench.py": "def bench():\n    pass\n"},
        "svc: first cut",
        "2026-05-01",
    )
    repo.commit(
        {TODO: "# Board\n\n| ID | State | Remaining |\n|---|---|---|\n| SVC-SERVE | active | " + cell + " |\n"},
        "board",
        "2026-05-02",
    )
    return repo


def test_a_measurement_is_not_done_by_a_commit_that_names_its_tool(git_repo):
    repo = _board(git_repo, "Measure serving latency on the staging box with `svc bench serve`.")
    repo.commit(
        {"svc/bench.py": "def bench(flag=None):\n    pass\n"},
        "refactor(svc): bench and serve share one --commit flag\n\nRow: SVC-SERVE",
        "2026-05-04",
    )
    assert _findings(repo) == []
    sha = repo.commit(
        {"docs/bench-evidence/20260505-serve-latency/result.json": '{"p50_ms": 41.0}'},
        "bench(svc): serving latency on staging\n\nRow: SVC-SERVE",
        "2026-05-05",
    )
    [f] = _findings(repo)
    assert f.code == "RL101" and sha in {e["sha"] for e in f.evidence}


def test_a_target_is_reached_by_a_measurement_not_by_work_on_the_row(git_repo):
    repo = _board(git_repo, "Reach 95% precision on the labelled corpora.")
    for day in (4, 5, 6):
        repo.commit(
            {"svc/serve.py": f"def serve():\n    return {day}\n"},
            f"feat(svc): precision work on corpora, step {day}\n\nRow: SVC-SERVE",
            f"2026-05-0{day}",
        )
    assert _findings(repo) == []


def _terse(git_repo, code: str):
    repo = git_repo()
    repo.commit({"tail/tail.go": "package tail\n"}, "tail: first cut", "2026-05-01")
    repo.commit(
        {
            TODO: "# Plan\n\n| Feature | State | Left to do |\n|---|---|---|\n| Traces | open | Glue Java "
            "stack-trace continuation lines onto the event they belong to, so one exception is one "
            "event. |\n"
        },
        "plan",
        "2026-05-02",
    )
    repo.commit(
        {"tail/tail.go": code},
        "tail: one event per exception\n\nlines that start with a tab and 'at' go "
        "onto the previous line. java only for now.",
        "2026-05-04",
    )
    return repo


def test_a_terse_message_is_completed_by_the_names_its_code_declares(git_repo):
    repo = _terse(git_repo, "package tail\n\nfunc continues(line string) bool { return len(line) > 0 }\n")
    [f] = _findings(repo)
    assert f.code == "RL101" and "continu" in f.message


def test_declared_names_of_other_work_add_nothing(git_repo):
    repo = _terse(git_repo, "package tail\n\nfunc rotateFiles(dir string) error { return nil }\n")
    assert _findings(repo) == []


def test_an_examples_folder_marks_no_work_of_ours_done(git_repo):
    repo = git_repo()
    repo.commit({"db/schema.sql": "create table t (id int);\n"}, "init", "2026-05-01")
    repo.commit(
        {
            ".agents/skills/gen/examples/todo-app/TASK_18.md": "# Task 18\n\n- [x] Schema file valid SQL for the todo app\n",
            TODO: _todo("Check the schema file is valid SQL for the todo app"),
        },
        "docs",
        "2026-05-02",
    )
    assert _findings(repo) == []
    # a mark of our own, made since, with the commit that did the work between the two
    repo.commit(
        {"ci/check_schema.sh": "sqlite3 :memory: < db/schema.sql\n"},
        "ci: lint SQL\n\nRuns sqlite3 over the app's schema file on every push, so invalid SQL fails the build.",
        "2026-05-03",
    )
    repo.commit(
        {".agents/status.md": "# Status\n\n- [x] Schema file valid SQL for the todo app\n"}, "status", "2026-05-04"
    )
    [f] = _findings(repo)
    assert ".agents/status.md:3 already marks done" in f.message


def test_a_target_is_no_directive_for_rl101_even_when_evidence_is_written(git_repo):
    repo = _board(git_repo, "Reach 95% precision on the labelled corpora.")
    repo.commit(
        {"docs/bench-evidence/20260505-precision/result.json": '{"precision": 0.66}'},
        "bench(svc): precision on the labelled corpora\n\nRow: SVC-SERVE",
        "2026-05-05",
    )
    assert _findings(repo) == []
