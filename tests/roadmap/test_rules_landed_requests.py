"""A directive that asks for two pieces of work one after the other ("do X so Y, and then Z"): a commit that did one
of them in full, in its own words, where the whole directive is too long for words alone to say, is a hint (info) that the directive is partly stale; a commit that only shares a
few words with one piece is nothing. Voice: a web team's auth hand-off notes."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

NOTES = """# Auth hand-off

- [ ] Move the session store from local memory to Redis so logins survive rolling deploys, and then rotate the cookie signing secret for every tenant; revoke refresh tokens issued before the migration, and page the on-call team whenever a rotation fails
"""


def _repo(git_repo):
    repo = git_repo()
    repo.commit({"auth/session.py": "STORE = {}\n"}, "session store", "2026-06-01")
    repo.commit({"agents/auth.md": NOTES}, "auth hand-off", "2026-06-02")
    return repo


def _found(repo):
    return lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings


def test_one_request_done_in_full_is_a_hint(git_repo):
    repo = _repo(git_repo)
    repo.commit(
        {"auth/session.py": "import redis\nSTORE = redis.Redis()\n"},
        "move session store from local memory to redis so logins survive rolling deploys",
        "2026-06-05",
    )
    [f] = _found(repo)
    assert f.severity == "info" and "of the request 'Move the session store" in f.message


def test_a_few_shared_words_are_nothing(git_repo):
    repo = _repo(git_repo)
    repo.commit(
        {"auth/session.py": "import logging\nSTORE = {}\nlogging.info('session store')\n"},
        "log session store misses from redis",
        "2026-06-05",
    )
    assert _found(repo) == []
