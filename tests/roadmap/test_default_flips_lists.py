"""RL104 reads a flag joining a one-line list of defaults as turning it on (Cargo's `default = ["compression"]`,
a plugin tuple named DEFAULT_*), and leaving it as turning it off; other lists and other names say nothing."""

from __future__ import annotations

import pytest

from roadmap.analysis.default_flips import _direction


@pytest.mark.parametrize(
    ("removed", "added", "flag", "want"),
    [
        ("default = []", 'default = ["compression"]', "compression", True),  # Cargo features
        ('default = ["std"]', 'default = ["std", "compression"]', "compression", True),
        ('default = ["std", "compression"]', 'default = ["std"]', "compression", False),
        ('DEFAULT_PLUGINS = ("auth",)', 'DEFAULT_PLUGINS = ("auth", "audit")', "audit", True),
        ("enabled_by_default: [metrics]", "enabled_by_default: [metrics, tracing]", "tracing", True),
        # negative controls
        ('default = ["std"]', 'default = ["std", "compression-extra"]', "compression", None),  # another name
        ("features = []", 'features = ["compression"]', "compression", None),  # not a list of defaults
        ("default = []", 'optional = ["compression"]', "compression", None),  # another key on the added side
        ('default = ["compression"]', 'default = ["compression", "std"]', "compression", None),  # already on
    ],
)
def test_a_flag_joining_a_list_of_defaults(removed: str, added: str, flag: str, want: bool | None) -> None:
    assert _direction(removed, added, flag) is want
