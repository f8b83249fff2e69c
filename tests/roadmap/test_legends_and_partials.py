"""A board's own legend teaches its state words; short forms cut to an initial; work a commit says it left open.

A farm-app team keeps its board's states in its own words ("sprouting", "ripe", "compost") and says what they
mean in a legend list; the linter must read them as states (not report them unknown) and know which one is
closed. A record writes "e-stop" where the commit says "emergency halt", and "web UI" is what WUI stands for. A
commit that ships part of a list and says the rest is "not hooked up yet" did not land the list. Each positive has
its control in other words: a list under "Key decisions:" or a bare "Status" heading is no legend, a word that
does not lead a two-word name is no expansion, and a sentence that wires something up is work done.
"""

from __future__ import annotations

from roadmap.analysis.short_forms import initial_forms, spelled_initials
from roadmap.analysis.state_legends import meaning_state
from roadmap.analysis.stem import stem
from roadmap.analysis.work import _commit_work, initialism_marks, terms_of
from roadmap.config import Config
from roadmap.history.commit import Commit
from roadmap.lint import LintOptions, lint
from roadmap.records.legends import word_legend

BOARD = "boards/greenhouse.md"


def test_a_list_after_a_legend_lead_in_defines_its_labels():
    lines = ["Our board key:", "", "- `sprouting`: nobody has picked it up", "- **ripe** = live for growers"]
    assert word_legend(lines) == {"SPROUTING": "nobody has picked it up", "RIPE": "live for growers"}
    assert word_legend(["State legend: seed = queued · compost = thrown away"]) == {
        "SEED": "queued",
        "COMPOST": "thrown away",
    }


def test_a_list_that_is_no_legend_defines_nothing():
    assert word_legend(["Key decisions:", "- **storage** — sqlite", "- **sync** — nightly"]) == {}
    assert word_legend(["## Status", "", "- **irrigation** — done", "- **alerts** — in progress"]) == {}
    assert word_legend(["Legend:", "- **ripe** = live"]) == {}  # one pair is a note, not a legend


def test_a_meaning_reads_as_the_state_it_names():
    cfg = Config()
    vocabulary, closed = cfg.state_set, cfg.closed_state_set
    assert meaning_state("shipped to every grower", vocabulary, closed) == "SHIPPED"
    assert meaning_state("the work is done and live", vocabulary, closed) == "DONE"
    assert meaning_state("not done, nobody is on it", vocabulary, closed) == "OPEN"
    assert meaning_state("parked for the winter", vocabulary, closed) == "PARKED"


def _board(git_repo, legend: str):
    repo = git_repo()
    repo.commit({"app/main.py": "print('hi')\n", "roadmap.yaml": 'records: ["boards/*.md"]\n'}, "init", "2026-03-01")
    repo.commit(
        {
            BOARD: f"# Greenhouse board\n\n{legend}\n"
            "| ID | Work | State | Next |\n|---|---|---|---|\n"
            "| GH-1 | Soil probes | sprouting | Next: calibrate the moisture probes |\n"
            "| GH-2 | Frost alerts | ripe | Next: page the grower when frost is forecast |\n"
        },
        "docs: greenhouse board",
        "2026-03-02",
    )
    return lint(repo.path, LintOptions(use_cache=False)).findings


LEGEND = "Board key:\n\n- **sprouting** — nobody has picked it up\n- **ripe** — shipped to every grower\n"


def test_words_a_legend_defines_are_known_and_a_closed_one_closes_its_row(git_repo):
    found = _board(git_repo, LEGEND)
    assert not [f for f in found if f.code == "RL403"]
    assert [f.line for f in found if f.code == "RL401"] == [11]  # a shipped row with a Next step left


def test_without_a_legend_the_words_are_unknown(git_repo):
    found = _board(git_repo, "Notes: the board is updated on Fridays.\n")
    assert {f.message.split()[0] for f in found if f.code == "RL403"} == {"SPROUTING", "RIPE"}
    assert not [f for f in found if f.code == "RL401"]


def test_a_name_ending_in_an_abbreviation_gives_the_initialism():
    assert "^wui" in initialism_marks("ship a web UI for the growers")
    assert "^wui" not in initialism_marks("ship the UI for the web")  # a function word is no part of the name


def test_a_word_cut_to_its_initial_meets_the_word_that_spells_it():
    cut = initial_forms("Wire the e-stop button to the conveyor")
    assert cut == (("e", frozenset(terms_of("stop"))),)
    assert initial_forms("Wire the `e-stop` button") == ()  # code is a name
    assert spelled_initials("conveyor: emergency halt on the belt", cut) == {
        stem("emergency"): frozenset({stem("stop")})
    }
    # a word that does not lead a name of two words, or is too short, spells nothing
    assert spelled_initials("conveyor: halt everything", cut) == {}
    assert spelled_initials("conveyor: eta shown", cut) == {}


def _message(n: int, subject: str, body: str) -> Commit:
    return Commit(f"{n:040x}", (), "", 0, "", 0, subject, body)


def test_pieces_a_commit_says_are_not_hooked_up_are_work_left():
    cw = _commit_work(_message(1, "feat(export): csv export", "parquet and avro are not hooked up yet."))
    assert terms_of("parquet avro") <= cw.undone
    cw = _commit_work(_message(2, "feat(export): csv export", "Leaving both formats open until 2.1."))
    assert terms_of("format") <= cw.undone
    cw = _commit_work(_message(3, "feat(export): parquet export", "Hooked up parquet and avro to the writer."))
    assert terms_of("parquet avro") <= cw.done


def _conveyor(git_repo, landing: str) -> list[int]:
    repo = git_repo()
    repo.commit({"plc/belt.py": "SPEED = 1\n", "roadmap.yaml": 'records: ["plans/*.md"]\n'}, "init", "2026-04-01")
    repo.commit(
        {"plans/line-2.md": "# Line 2\n\n- [ ] Wire an e-stop into the conveyor belt controller\n"},
        "docs: line 2 plan",
        "2026-04-02",
    )
    repo.commit({"plc/belt.py": "SPEED = 1\nHALT = True\n"}, landing, "2026-04-09")
    return [f.line for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings]


def test_a_hyphen_cut_word_lands_through_the_word_it_stands_for(git_repo):
    assert _conveyor(git_repo, "conveyor: emergency halt for the belt") == [3]


def test_a_verb_with_the_same_initial_spells_nothing(git_repo):
    assert _conveyor(git_repo, "conveyor: extended belt speed range") == []
