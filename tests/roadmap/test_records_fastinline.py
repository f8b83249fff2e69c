"""The inline fast path (roadmap/records/fastinline.py) against markdown-it's own inline parse: for generated and
hand-picked content of text, code spans, line breaks and emphasis, the Inline it makes is the one render() makes
of markdown-it's tokens; content with any other construct is declined (None), never parsed differently."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from roadmap.records import fastinline
from roadmap.records.blocks import MD
from roadmap.records.inline import Inline, render

REFERENCE = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])  # markdown-it, unpatched

PIECES = [
    "a", "b", "Z", "9", "é", "ı", " ", "  ", "   ", "\t", "\u00a0", "\n", "\n  ", " \n", "  \n", ".", ",", "(", ")",
    "—", ":", "-", "`", "``", "```", "` `", "`a_b`", "` a `", "*", "**", "***", "*a*", "**b**", "_", "__", "_c_",
    "__d__", "a_b", "x__y", "a*", "*a", "[", "]", "!", "<", "&", "\\", "~", "~~", "~~~", "~2x", "~~a~~",
]  # fmt: skip


def reference(content: str) -> Inline:
    children: list = []
    REFERENCE.inline.parse(content, REFERENCE, {}, children)
    for child in children:  # core text_join: an escaped character is text
        if child.type == "text_special":
            child.type = "text"
    return render(children)


def check(content: str) -> None:
    fast = fastinline.parse(content, MD)
    if fast is not None:
        assert fast == reference(content), repr(content)


@pytest.mark.parametrize(
    "content",
    [
        "**Status:** done in `src/a.py`",
        "a *b **c** d* e",
        "***strong em*** and **bold*",
        "snake_case_name and __init__ and _lead",
        "`` a ` b `` then `unclosed",
        "```x`` y ``` z",
        "line one  \nline two \nline three\n   four",
        "`code`  \nafter",
        "*a `*` b*",
        "**a**b**c**",
        "_a_b_ *a*b*",
        "~2x faster, ~63% of *the* gap",
        "ends with  ",
        "",
    ],
)
def test_hand_picked(content: str) -> None:
    assert fastinline.parse(content, MD) is not None
    check(content)


@pytest.mark.parametrize("content", ["a [link](x) b", "~~old~~ new", "a \\* b", "<br> x", "&amp;", "![i](p)"])
def test_other_constructs_are_declined(content: str) -> None:
    assert fastinline.parse(content, MD) is None


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=24).map("".join))
def test_generated(content: str) -> None:
    check(content)
