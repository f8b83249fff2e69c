"""What RL104's code pass follows: a name in backticks that is a word ("fail", `nullptr`) is no setting, and a stated
name the code uses in many files is a concept, not one setting (its history would be a `git log -p` of the tree)."""

from __future__ import annotations

from roadmap.analysis.default_flips import MAX_STATED_FILES, _without_common_stated
from roadmap.analysis.stated_defaults import _SETTING, _SHAPED


def test_setting_names_are_shaped_as_names():
    for name in ("BUSY_TIMEOUT_MS", "--format", "TextureStreamerDesc::priority", "kDefaultArena", "cfg.timeout"):
        assert _SETTING.match(name) and _SHAPED.search(name), name
    for word in ("fail", "table", "sha256", "set_tcp_nodelay(true", "envs.py:117,1123"):
        assert not (_SETTING.match(word) and _SHAPED.search(word)), word


def test_a_stated_name_in_many_files_is_not_followed_but_a_switch_is():
    many = {f"src/f{i}.py": {"text_config", "--fast"} for i in range(MAX_STATED_FILES + 1)}
    of = {"text_config": {"text_config==0.25"}, "--fast": {"--fast"}}
    kept = _without_common_stated(many, of)
    assert all(names == {"--fast"} for names in kept.values()) and len(kept) == len(many)
    few = {f"src/f{i}.py": {"text_config"} for i in range(3)}
    assert _without_common_stated(few, of) == few


def test_a_constant_written_with_its_value_states_it():
    from roadmap.analysis.stated_defaults import _constant_values

    assert _constant_values("Until then the worker keeps MAX_INFLIGHT at 4 so errors surface.", ("MAX_INFLIGHT",)) == {
        "MAX_INFLIGHT==4"
    }
    assert _constant_values("POOL_GROESSE steht auf 16 Verbindungen.", ("POOL_GROESSE",)) == {"POOL_GROESSE==16"}
    assert not _constant_values("Raise MAX_INFLIGHT to 8 once the pool is fixed.", ("MAX_INFLIGHT",))
    assert not _constant_values("MAX_INFLIGHT was 2 before the rewrite.", ("MAX_INFLIGHT",))
    assert not _constant_values("MAX_INFLIGHT is 40% of the pool.", ("MAX_INFLIGHT",))


def test_a_default_given_by_an_attribute_over_the_setting():
    from roadmap.analysis.default_flips import stated_direction

    was = "    #[arg(long, value_enum, default_value_t = Mode::Compact)]"
    now = "    #[arg(long, value_enum, default_value_t = Mode::Wide)]"
    assert stated_direction(was, now, "mode", "compact") is False
    assert stated_direction(now, was, "mode", "compact") is True
    assert stated_direction(was, now, "mode", "tall") is None


def test_the_words_a_constant_spells_state_its_value_when_the_statement_names_it():
    from roadmap.analysis.stated_defaults import _constant_values

    text = "Jump buffer is 120 ms (JUMP_BUFFER_MS in player.gd)."
    assert _constant_values(text, ("JUMP_BUFFER_MS",)) == set()  # the prose must spell all of its words
    text = "Coyote time is 0.12 s (COYOTE_TIME in player.gd)."
    assert _constant_values(text, ("COYOTE_TIME",)) == {"COYOTE_TIME==0.12"}
    assert not _constant_values("Coyote time was 0.1 s (COYOTE_TIME).", ("COYOTE_TIME",))
    assert not _constant_values("Jump height is 3 tiles (COYOTE_TIME is tuned apart).", ("COYOTE_TIME",))
