"""Names with digits inside: `Migration41To42` and `Base64Decoder` are code names (an inner capital after digits), so
their first appearance in code is evidence for RL101, as `AsyncDeviceInputs` is; and a word glued to digits or an
underscore is no verb, so "handle429Error(): rate-limit handling ..." describes a function and asks for nothing. Found
by a blind scenario of 2026-12-05 (a Room migration named in a release checklist) and its corpus run (a progress
report's function list read as requests). Controls: names whose digits trail or lead (`H265`, `x86`) are no such
evidence, and a real imperative still asks."""

from __future__ import annotations

import pytest

from linted import codes_on
from roadmap.config import Config
from roadmap.records.classify import Classifier

PLAN = "docs/media-plan.md"


def _repo(git_repo, name: str, code: str):
    repo = git_repo()
    repo.commit({"src/media/__init__.py": "VERSION = 1\n"}, "media: package", "2026-02-01")
    repo.commit(
        {PLAN: f"# Media plan\n\n## Next\n\n- [ ] Add `{name}` for the thumbnail pipeline\n"}, "plan", "2026-02-02"
    )
    repo.commit({"src/media/codec.py": code}, "media: thumbnails", "2026-02-05")
    return repo


def test_a_name_with_an_inner_capital_after_digits_is_evidence(git_repo):
    repo = _repo(git_repo, "Base64Decoder", "class Base64Decoder:\n    pass\n")
    assert "RL101" in codes_on(repo, PLAN, "Base64Decoder")


@pytest.mark.parametrize("name", ["H265", "x86"])
def test_digits_that_lead_or_trail_make_no_code_name(git_repo, name: str):
    repo = _repo(git_repo, name, f"SUPPORTED = ['{name}']\n")
    assert "RL101" not in codes_on(repo, PLAN, name)


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("handle429Error(): rate-limit handling with Retry-After support", False),
        ("add_user: creates a user and its home directory", False),
        ("retry3Times: wraps a call", False),
        ("Add retries to the upload client", True),
        ("Add Migration41To42 for the queue table", True),
    ],
)
def test_a_word_glued_to_digits_or_an_underscore_is_no_verb(text: str, asks: bool) -> None:
    assert Classifier(Config()).classify(text, "item", None, (), False).directive is asks
