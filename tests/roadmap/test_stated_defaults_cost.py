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
