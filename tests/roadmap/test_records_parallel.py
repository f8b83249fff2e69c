"""Parsing many records over two processes gives exactly what parsing them one by one gives, in order, and fills
the records cache the same way; when no second process can start, everything is parsed here."""

from __future__ import annotations

import pytest

from roadmap.config import Config
from roadmap.records import parallel
from roadmap.records.cache import RecordCache
from roadmap.records.codec import encode_record
from roadmap.records.parser import parse_record


def _record(n: int, rows: int) -> bytes:
    head = f"# Spec {n}\n\nAs of 2026-07-{10 + n % 18:02d}.\n\n| ID | State | Remaining |\n|---|---|---|\n"
    body = "".join(
        f"| ROW-{n}-{k} | ACTIVE | Wire `DeviceMirror{k}` into `src/r{k}.py:{k + 1}`; rerun "
        f"docs/bench-evidence/2026072{k % 9}-x ({k}.5 tok/s) |\n"
        for k in range(rows)
    )
    return (head + body + "\n## Punch-list\n\n1. Port `HostMirror` to CUDA.\n").encode()


@pytest.fixture
def items() -> list[tuple[str, bytes, str]]:
    sizes = [40, 3, 25, 1, 18, 7, 30, 5]  # uneven
    return [(f"agents/r{n}.md", _record(n, rows), f"{n:064x}") for n, rows in enumerate(sizes)]


def test_two_processes_parse_exactly_what_one_does(items, tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 1)
    config = Config()
    cache = RecordCache(tmp_path, config)
    got = parallel.parse_many(items, config, cache)
    want = [parse_record(p, d, config) for p, d, _ in items]
    assert [encode_record(rf) for rf in got] == [encode_record(rf) for rf in want]
    assert cache.stats["written"] == len(items)
    again = RecordCache(tmp_path, config)
    assert [encode_record(again.get(k, p)) for p, _, k in items] == [encode_record(rf) for rf in want]


@pytest.mark.parametrize("how", ["cannot start", "dies"])
def test_without_a_second_process_it_all_parses_here(items, tmp_path, monkeypatch, how):
    def refuse(*args, **kwargs):
        raise OSError("no processes here")

    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 1)
    if how == "cannot start":
        monkeypatch.setattr(parallel.subprocess, "Popen", refuse)
    else:
        monkeypatch.setattr(parallel.sys, "executable", "false")  # starts, reads nothing, exits 1
    config = Config()
    cache = RecordCache(tmp_path, config)
    got = parallel.parse_many(items, config, cache)
    assert [encode_record(rf) for rf in got] == [encode_record(parse_record(p, d, config)) for p, d, _ in items]
    assert cache.stats["written"] == len(items)


def test_small_inputs_stay_in_this_process(items, monkeypatch):
    started = []
    monkeypatch.setattr(parallel.subprocess, "Popen", lambda *a, **k: started.append(a))
    assert len(parallel.parse_many(items[:2], Config(), None)) == 2
    assert started == []


def test_the_split_balances_bytes(items):
    mine, theirs = parallel._split(items)
    assert sorted(mine + theirs) == list(range(len(items)))
    ours = sum(len(items[i][1]) for i in mine)
    other = sum(len(items[i][1]) for i in theirs)
    assert 0.5 < other / ours <= 1.0


def _lines(rf) -> int:
    return len(rf.statements)


@pytest.mark.parametrize("fork", [True, False])
def test_a_split_given_parses_and_annotates_what_one_process_does(items, tmp_path, monkeypatch, fork):
    """With the caller's `split` (the lint's forked.run_split), the other part is a forked child: the records,
    their annotations and the cache's count are those of a serial parse; a split that runs both parts here (as
    forked.run_split does when the child fails) counts no entry twice."""
    from roadmap.history import forked

    def here(mine, theirs):
        return mine(), theirs()

    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 1)
    config = Config()
    cache = RecordCache(tmp_path, config)
    started = []
    monkeypatch.setattr(parallel.subprocess, "Popen", lambda *a, **k: started.append(a))
    got = parallel.parse_annotated(items, config, cache, forked.run_split if fork else here, _lines)
    want = [parse_record(p, d, config) for p, d, _ in items]
    assert [encode_record(rf) for rf, _ in got] == [encode_record(rf) for rf in want]
    assert [n for _, n in got] == [len(rf.statements) for rf in want]
    assert cache.stats["written"] == len(items)
    assert started == []  # no fresh interpreter
    again = RecordCache(tmp_path, config)
    assert [encode_record(again.get(k, p)) for p, _, k in items] == [encode_record(rf) for rf in want]


def test_without_a_split_annotations_come_from_this_process(items, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 1)
    got = parallel.parse_annotated(items, Config(), None, None, _lines)
    assert [n for _, n in got] == [len(parse_record(p, d, Config()).statements) for p, d, _ in items]
