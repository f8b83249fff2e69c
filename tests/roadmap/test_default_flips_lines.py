"""RL104's diff reading (roadmap/analysis/default_flips.py) decides a flip from each line's patterns read once
(cached per line: a hunk pairs every removed line with every added one), with the same answer as reading every
pattern per pair: checked on lines built from flag, value and default pieces."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from roadmap.analysis import default_flips as flips

FLAG = "use_split_kv"


def _direction_plain(removed: str, added: str, flag: str) -> bool | None:
    """default_flips._direction with every regex read per pair."""
    same_line = flag in removed and flag in added
    a, b = (flips._own_value(removed, flag), flips._own_value(added, flag)) if same_line else (None, None)
    shaped = a is not None and b is not None and flips._skeleton(removed[: a[1]]) == flips._skeleton(added[: b[1]])
    if shaped and a is not None and b is not None:
        if flips._OFF_RE.match(a[0]) and flips._ON_RE.match(b[0]):
            return True
        if flips._ON_RE.match(a[0]) and flips._OFF_RE.match(b[0]):
            return False
    listed = flips._default_list_direction(removed, added, flag)
    if listed is not None:
        return listed
    if same_line and flips._OPT_IN_READ.search(removed) and flips._OPT_OUT_READ.search(added):
        return True
    if same_line and flips._OPT_OUT_READ.search(removed) and flips._OPT_IN_READ.search(added):
        return False
    if flips._DEFAULT_ON.search(added) and not flips._DEFAULT_ON.search(removed) and flips._DEFAULT_OFF.search(removed):
        return True
    if flips._DEFAULT_OFF.search(added) and flips._DEFAULT_ON.search(removed) and not flips._DEFAULT_ON.search(added):
        return False
    return flips._literal_direction(removed, added, flag) if same_line else None


PIECES = [
    FLAG,
    " = ",
    "False",
    "True",
    "0",
    "1",
    "=n",
    "=y",
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
    "  # note",
]


@settings(max_examples=400, deadline=None)
@given(
    r=st.lists(st.sampled_from(PIECES), max_size=6).map("".join),
    a=st.lists(st.sampled_from(PIECES), max_size=6).map("".join),
)
def test_a_flip_is_decided_as_the_plain_reading_decides(r, a):
    assert flips._direction(r, a, FLAG) == _direction_plain(r, a, FLAG)


def test_known_flips_still_read():
    assert flips._direction("use_split_kv: bool = False", "use_split_kv: bool = True", FLAG) is True
    assert flips._direction("use_split_kv = False  # off", "use_split_kv = True  # on for all", FLAG) is True
    assert flips._direction("CONFIG_SPLIT=n", "CONFIG_SPLIT=y", "CONFIG_SPLIT") is True
    assert (
        flips._direction(
            'p.add_argument("--mirror", action="store_true")', 'p.add_argument("--mirror", default=True)', "--mirror"
        )
        is True
    )
    assert flips._direction("x = 1  # rows", "x = 2  # rows", "x") is None
    assert flips._direction("a = False, use_split_kv = False", "a = True, use_split_kv = False", FLAG) is None
