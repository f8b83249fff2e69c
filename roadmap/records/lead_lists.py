"""Lists a label introduces: "Next owner must:", "Next steps:", "Nächste Person muss:" on a line of its own (or
as a heading, "### TODO", "### 次の担当者へ"), and the bullets right under it are what it asks for, one piece of
work each.

A label that says nothing after its colon hands its list on: each top-level item of the list that follows it
(nested items are details of their parent) is a directive, and in a log each is a hand-off of its own.
"""

from __future__ import annotations

import re
from typing import Callable

from roadmap.records.blocks import Block

MAX_LABEL = 80  # characters: a longer paragraph ending in a colon introduces an explanation, not a to-do list
_ENDS_WITH_COLON = re.compile(r"[:：]\W{0,3}$")


def is_lead(text: str, asks: Callable[[str], object]) -> bool:
    """Is `text` a label that asks for work and stops at its colon ("Next owner must:", "**Zu tun:**")?"""
    t = text.strip()
    return len(t) <= MAX_LABEL and _ENDS_WITH_COLON.search(t) is not None and bool(asks(t))


def _heading_lead(text: str, asks: Callable[[str], object]) -> bool:
    t = text.strip().rstrip(":：").strip()
    return bool(t) and len(t) <= MAX_LABEL and bool(asks(t + ":"))


def introduced_items(blocks: list[Block], asks: Callable[[str], object]) -> dict[int, Block]:
    """id(item) -> the label paragraph introducing its list, for the top-level items of each list right after one."""
    out: dict[int, Block] = {}
    label: Block | None = None
    for b in blocks:
        if b.kind == "item":
            if b.parent is None and label is not None:
                out[id(b)] = label
            continue
        if b.kind == "paragraph" and is_lead(b.inline.text, asks):
            label = b
        elif b.kind == "heading" and _heading_lead(b.inline.text, asks):
            label = b  # "### TODO", "### 次の担当者へ": a heading that is such a label, colon or not
        else:
            label = None
    return out
