"""RL104's diff reading (roadmap/analysis/default_flips.py) decides a flip from each line read once, as it did
reading every pattern per pair of lines: the same answer on lines built from flag, value and default pieces."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from roadmap.analysis import default_flips as flips


def _direction_plain(removed: str, added: str, same_line: bool) -> bool | None:
    """default_flips._direction as it read every regex per pair."""
    if same_line and flips._skeleton(removed) == flips._skeleton(added):
        old = [m.group(0) for m in flips._VALUE.finditer(removed)]
        new = [m.group(0) for m in flips._VALUE.finditer(added)]
        for a, b in zip(old, new):
            if a != b:
                if flips._OFF_RE.match(a) and flips._ON_RE.match(b):
                    return True
                if flips._ON_RE.match(a) and flips._OFF_RE.match(b):
                    return False
    if same_line and flips._OPT_IN_READ.search(removed) and flips._OPT_OUT_READ.search(added):
        return True
    if same_line and flips._OPT_OUT_READ.search(removed) and flips._OPT_IN_READ.search(added):
        return False
    if flips._DEFAULT_ON.search(added) and not flips._DEFAULT_ON.search(removed) and flips._DEFAULT_OFF.search(removed):
        return True
    if flips._DEFAULT_OFF.search(added) and flips._DEFAULT_ON.search(removed) and not flips._DEFAULT_ON.search(added):
        return False
    return None


PIECES = [
    "use_split_kv",
    " = ",
    "False",
    "True",
    "0",
    "1",
    "default=True",
    "default=False",
    'action="store_true"',
    "BooleanOptionalAction, default=True",
    'os.Getenv("X") == "1"',
    'os.Getenv("X") != "0"',
    "is not None",
    "off",
    "on",
    ", ",
    "x: ",
]


@settings(max_examples=400, deadline=None)
@given(
    r=st.lists(st.sampled_from(PIECES), max_size=6).map("".join),
    a=st.lists(st.sampled_from(PIECES), max_size=6).map("".join),
    same=st.booleans(),
)
def test_a_flip_is_decided_as_before(r, a, same):
    assert flips._direction(r, a, same) == _direction_plain(r, a, same)


def test_known_flips_still_read():
    assert flips._direction("use_split_kv: bool = False", "use_split_kv: bool = True", True) is True
    assert (
        flips._direction(
            'p.add_argument("--mirror", action="store_true")', 'p.add_argument("--mirror", default=True)', False
        )
        is True
    )
    assert flips._direction("x = 1  # rows", "x = 2  # rows", True) is None
