"""RL104 from the code: a default turned on by a diff whose message never says "default", and the diffs that
are not such a flip (kept off, flipped on a branch that never merged, flipped and turned back off)."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

NOTES = "agents/notes/knobs.md"
CFG = "svc/settings.py"
OFF = "from dataclasses import dataclass\n\n@dataclass\nclass Settings:\n    warm_pool: bool = False\n    gzip: bool = False\n"


def _findings(repo):
    return lint(repo.path, LintOptions(use_cache=False, select=("RL104",))).findings


def _repo(git_repo):
    repo = git_repo()
    repo.commit({CFG: OFF}, "settings dataclass", "2026-03-01")
    repo.commit(
        {
            NOTES: "# Knobs\n\nThe warm connection pool (`warm_pool`) is opt-in for now.\n\n"
            "Response compression (`gzip`) stays off unless a client asks for it.\n"
        },
        "notes on the knobs",
        "2026-03-02",
    )
    return repo


def test_a_dataclass_default_turned_on_is_a_flip(git_repo):
    repo = _repo(git_repo)
    sha = repo.commit(
        {CFG: OFF.replace("warm_pool: bool = False", "warm_pool: bool = True")},
        "svc: everyone gets the warm pool now",
        "2026-03-09",
    )
    [f] = _findings(repo)
    assert f.line == 3 and f.evidence[0]["sha"] == sha and "warm_pool: bool = True" in f.message


def test_an_argparse_store_true_turned_into_default_true_is_a_flip(git_repo):
    repo = git_repo()
    cli = 'p.add_argument("--prefetch", action="store_true",\n               help="prefetch the next page")\n'
    repo.commit({"svc/cli.py": cli}, "cli", "2026-03-01")
    repo.commit({NOTES: "# Knobs\n\nPage prefetch is off unless you pass `--prefetch`.\n"}, "notes", "2026-03-02")
    repo.commit(
        {"svc/cli.py": cli.replace('action="store_true"', "action=argparse.BooleanOptionalAction, default=True")},
        "cli: prefetch unless --no-prefetch",
        "2026-03-08",
    )
    [f] = _findings(repo)
    assert f.line == 3 and "--prefetch" in f.message


def test_kept_off_merged_only_on_a_branch_or_turned_back_off_is_no_flip(git_repo):
    repo = _repo(git_repo)
    repo.commit(
        {CFG: OFF + "    gzip_level: int = 6\n"},
        "svc: gzip level knob\n\nShips default OFF; set gzip=True to opt in.",
        "2026-03-05",
    )
    repo.commit(
        {CFG: OFF.replace("gzip: bool = False", "gzip: bool = True")}, "try gzip on", "2026-03-06", branch="exp/gzip"
    )  # never merged
    on = OFF.replace("warm_pool: bool = False", "warm_pool: bool = True")
    repo.commit({CFG: on}, "svc: warm pool for everyone", "2026-03-07")
    repo.commit({CFG: OFF}, "svc: back out the warm pool, it leaked sockets", "2026-03-08")
    assert _findings(repo) == []
