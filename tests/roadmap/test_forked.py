"""Work split over a forked child (roadmap/history/forked.py) gives exactly the serial result, objects included,
and falls back to computing here when the child fails."""

from __future__ import annotations

import os

import pytest

from roadmap.history import forked


def test_map_split_equals_the_serial_map():
    items = list(range(100))
    assert forked.map_split(items, lambda x: x * x) == [x * x for x in items]


def test_a_failing_child_falls_back_to_this_process():
    parent = os.getpid()

    def fn(x: int) -> int:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return x + 1

    assert forked.map_split(list(range(64)), fn) == list(range(1, 65))


def test_pinned_objects_come_back_as_the_same_objects():
    things = [object() for _ in range(64)]
    where = {id(t): n for n, t in enumerate(things)}
    got = forked.map_split(
        list(range(64)),
        lambda i: [things[i]],
        pin=lambda o: ("t", where[id(o)]) if id(o) in where else None,
        unpin=lambda key: things[key[1]],  # type: ignore[index]
    )
    assert all(g[0] is t for g, t in zip(got, things))


def test_run_split_serial_when_turned_off(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ROADMAP_SERIAL", "1")
    parent = os.getpid()
    assert forked.run_split(os.getpid, os.getpid) == (parent, parent)
