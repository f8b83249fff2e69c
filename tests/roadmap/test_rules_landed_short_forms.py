"""RL101 when the commit writes the work shorter or in a synonym, and a row id that only its table defines.

A platform-security team (a Lisbon fintech) tracks remediation in a table whose ids are `OPS-YYYY-NNN`; engineers
write commits in their own words: "kid" for the record's "key id", "limit" for its "cap". A short form is formed
from the directive's own adjacent words (initials, or initials with a short last word kept: key id -> kid), never
listed per pair; a synonym comes from a small table of engineering verbs. Each positive has a control beside it:
the same commit against work it did not do, and the words apart.
"""

from __future__ import annotations

from roadmap.analysis.short_forms import short_forms
from roadmap.lint import LintOptions, lint

TRACKER = ".agents/security/tracker.md"


def _tracker(*rows: tuple[str, str]) -> str:
    body = "".join(f"| {i} | Medium | {work} | Open |\n" for i, work in rows)
    return "# Remediation tracker\n\n| ID | Sev | Remediation | Status |\n|---|---|---|---|\n" + body


def _found(repo) -> dict[int, str]:
    return {f.line: f.severity for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings}


def _repo(git_repo, rows, subject: str, body: str = ""):
    repo = git_repo()
    repo.commit(
        {"hooks/sign.go": "package hooks\n\nfunc Sign(b []byte) string { return mac(b) }\n"}, "hooks", "2026-09-01"
    )
    repo.commit({TRACKER: _tracker(*rows)}, "tracker", "2026-09-02")
    repo.commit(
        {"hooks/sign.go": "package hooks\n\nfunc Sign(b []byte, kid string) string { return kid + mac(b) }\n"},
        subject + ("\n\n" + body if body else ""),
        "2026-09-05",
    )
    return repo


KID = (
    "webhooks: put a kid in the signature header",
    "Receivers now look the verification key up by kid, so we can rotate signing keys without a flag day.",
)


def test_a_short_form_of_the_directive_s_own_words_is_the_same_work(git_repo):
    repo = _repo(
        git_repo, [("OPS-2026-031", "Webhook signatures must carry a key id so signing keys can rotate")], *KID
    )
    assert 5 in _found(repo)


def test_the_same_commit_does_not_land_other_work_with_similar_words(git_repo):
    rows = [("OPS-2026-032", "Rotate the webhook signing secret of every tenant every 90 days")]
    assert 5 not in _found(_repo(git_repo, rows, *KID))


def test_a_short_form_needs_the_words_side_by_side():
    assert "kid" in short_forms("tokens must carry a key id")
    assert "kid" not in short_forms("the key of each tenant and an id for each request")
    assert "kid" not in short_forms("a kid key id")  # a word of the text itself is no short form of it
    assert "pid" in short_forms("write the process id to the lock file")
    assert "dio" in short_forms("batch the disk io of the compactor")


def test_a_row_id_its_table_defines_is_named_by_the_commit_that_fixes_it(git_repo):
    rows = [
        ("OPS-2026-040", "Cap the upload size on the public API (memory exhaustion)"),
        ("OPS-2026-041", "Validate the MIME type of uploads from their magic bytes"),
    ]
    repo = _repo(
        git_repo,
        rows,
        "api: limit uploads to 25 MiB",
        "Bodies over 25 MiB now get 413 before we buffer them (OPS-2026-040).",
    )
    found = _found(repo)
    assert found.get(5) in ("warning", "error")
    assert 6 not in found  # the other row: the commit neither names it nor does its work


# A capitalized compound (a product name) is shortened to its parts' initials; two letters only with a number.
BOARD = "sprint/board.md"
DS5 = (
    "recoil kicks now feel amazing on DS5",
    "Weapon fire pushes a short trigger pulse plus a low rumble through the haptics layer.",
)


def _board_repo(git_repo, work: str, subject: str, body: str):
    repo = git_repo()
    repo.commit({"src/haptics.cpp": "void Rumble();\n"}, "engine snapshot", "2026-10-01")
    repo.commit(
        {
            "roadmap.yaml": 'records: ["sprint/*.md"]\n',
            BOARD: "# Sprint 15\n\nStatus: 🔴 not started · 🟡 in progress · 🟢 done.\n\n"
            f"| Ticket | Owner | Status | Notes |\n|---|---|---|---|\n| #381 | Priya | 🔴 | {work} |\n",
        },
        "sprint board",
        "2026-10-05",
    )
    repo.commit({"src/haptics.cpp": "void Rumble();\nvoid TriggerPulse();\n"}, f"{subject}\n\n{body}", "2026-10-09")
    return repo


def test_a_product_name_written_as_its_initials_and_generation_is_the_same_work(git_repo):
    repo = _board_repo(git_repo, "Add DualSense trigger rumble on weapon recoil", *DS5)
    assert 7 in _found(repo)


def test_the_initials_commit_does_not_land_work_without_that_name(git_repo):
    repo = _board_repo(git_repo, "Add Switch trigger rumble on weapon recoil", *DS5)
    assert 7 not in _found(repo)


def test_a_compound_s_initials_need_a_generation_number_or_a_third_part():
    assert "ds#" in short_forms("Add DualSense trigger rumble")
    assert "ds" not in short_forms("Add DualSense trigger rumble")  # two letters alone say too little
    assert "gcc" not in short_forms("Port the GameCube controller")  # not a three-part compound
    assert "vrs" in short_forms("Support VirtualRealitySystem headsets")
    assert not any(f.endswith("#") for f in short_forms("Call `DualSense` directly"))  # code is an identifier
    assert not any(f.endswith("#") for f in short_forms("Add dualsense and Dualsense rumble"))  # no inner capital
