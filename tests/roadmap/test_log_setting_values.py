"""A setting's value stated in an older entry of a log stays the log's word on it while no later entry names it.

A newest-first ops journal says in its 03-02 entry "Config: `MAX_INFLIGHT` is 64". Two newer entries talk about
other things. Whoever reads the journal takes 64 as the value: the statement stays current (and RL104 reads it
against the code). Negative controls: a later entry that names the setting (it restates or changes the value: the
older line is history); an older entry stating no value; the value as a request ("raise `X` to 8").
"""

from __future__ import annotations

from roadmap.config import Config
from roadmap.lint import LintOptions, lint
from roadmap.records.parser import parse_record

JOURNAL = """# Relay ops journal

Newest entry first. Each on-call writes one entry per shift.

## 2026-03-09 (night shift, ravi)

Restarted relay-2 after the disk alarm; nothing lost.

## 2026-03-05 (day shift, mo)

Rotated the TLS certificates on both relays.

## 2026-03-02 (day shift, mo)

Config: `MAX_INFLIGHT` is 64 per connection.
{extra}
"""


def _historical(text: str) -> dict[str, bool]:
    rf = parse_record("ops/journal.md", text.encode(), Config())
    return {st.text: st.historical for st in rf.statements}


def test_an_older_entrys_setting_value_stays_current() -> None:
    flags = _historical(JOURNAL.format(extra=""))
    assert flags["Config: MAX_INFLIGHT is 64 per connection."] is False
    assert flags["Rotated the TLS certificates on both relays."] is True  # the rest of an older entry: history


def test_a_later_entry_naming_the_setting_makes_it_history() -> None:
    text = JOURNAL.format(extra="").replace(
        "Restarted relay-2 after the disk alarm; nothing lost.",
        "Restarted relay-2 after the disk alarm; `MAX_INFLIGHT` now 128 per connection.",
    )
    assert _historical(text)["Config: MAX_INFLIGHT is 64 per connection."] is True


def test_no_value_or_a_requested_value_is_history_as_before() -> None:
    text = JOURNAL.format(extra="\nWe should raise `MAX_QUEUE` to 8 someday.\n").replace(
        "Config: `MAX_INFLIGHT` is 64 per connection.", "Config: `MAX_INFLIGHT` unchanged."
    )
    flags = _historical(text)
    assert flags["Config: MAX_INFLIGHT unchanged."] is True
    assert flags["We should raise MAX_QUEUE to 8 someday."] is True


def _rl104(git_repo, later_config: str) -> list:
    repo = git_repo()
    repo.commit(
        {"relay/config.py": "MAX_INFLIGHT = 64\n", "ops/journal.md": JOURNAL.format(extra="")},
        "relay: first cut",
        "2026-03-09T23:00:00+00:00",
    )
    repo.commit({"relay/config.py": later_config}, "relay: tune the window", "2026-03-12T10:00:00+00:00")
    return lint(repo.path, LintOptions(use_cache=False, select=("RL104",))).findings


def test_rl104_reads_it_against_the_code(git_repo) -> None:
    found = _rl104(git_repo, "MAX_INFLIGHT = 256\n")
    assert [(f.path, f.line) for f in found] == [("ops/journal.md", 15)]
    assert "MAX_INFLIGHT = 256" in found[0].message


def test_rl104_is_silent_while_the_code_keeps_the_value(git_repo) -> None:
    assert _rl104(git_repo, "MAX_INFLIGHT = 64\nRETRIES = 3\n") == []
