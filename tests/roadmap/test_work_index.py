"""The per-run index RL101 answers from (roadmap/analysis/work.py) gives what the plain definition gives:
said_in_subject is "a commit whose subject says two of the terms, whose postings hold one of the rarest, and which
is news", whichever of the pairs of subject terms, the postings or the news finds it."""

from __future__ import annotations


from hypothesis import given, settings
from hypothesis import strategies as st

from roadmap.analysis.work import WorkWeights, _rarest, commit_work, said_in_subject
from roadmap.history.commit import Commit

VOCAB = ["pool", "evict", "kv", "cache", "stream", "rows", "export", "csv", "retry", "budget", "slot", "map"]


def _commit(n: int, subject: str, body: str = "") -> Commit:
    return Commit(f"{n:040x}", (), "2026-01-01T00:00:00+00:00", n, "2026-01-01T00:00:00+00:00", n, subject, body)


def _plain(terms: frozenset[str], w: WorkWeights, among: set[str] | None, rarest: int) -> list[Commit]:
    rare = set(_rarest(terms, w, rarest))
    return [
        c
        for c in w.commits
        if len(commit_work(c).subject & terms) >= 2 and rare & w.words[c.sha] and (among is None or c.sha in among)
    ]


subjects = st.lists(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=5).map(" ".join), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(
    subjects=subjects,
    bodies=st.lists(st.sampled_from(["", "also the csv export", "the retry budget is untouched"]), max_size=40),
    terms=st.frozensets(st.sampled_from(VOCAB), min_size=2, max_size=8),
    rarest=st.integers(1, 5),
    keep=st.integers(0, 3),
)
def test_said_in_subject_is_its_definition(subjects, bodies, terms, rarest, keep):
    commits = [_commit(i, s, bodies[i] if i < len(bodies) else "") for i, s in enumerate(subjects)]
    w = WorkWeights.of(commits)
    terms = frozenset().union(*(commit_work(_commit(0, t)).subject for t in terms))  # as the terms are stemmed
    among = None if keep == 0 else {c.sha for i, c in enumerate(commits) if i % keep == 0}
    want = _plain(terms, w, among, rarest)
    assert said_in_subject(terms, w, among, rarest) == want
    assert said_in_subject(terms, w, among, rarest) == want  # answered from the memo the second time


def test_both_indexes_agree_when_either_is_the_smaller():
    common = [_commit(i, "stream rows to the csv export") for i in range(30)]
    rare = [_commit(100 + i, f"retry budget for the slot map {i}") for i in range(3)]
    w = WorkWeights.of(common + rare)
    for terms in (frozenset({"stream", "row", "csv"}), frozenset({"retri", "budget", "slot", "csv"})):
        t = frozenset().union(*(commit_work(_commit(0, x)).subject for x in terms))
        assert said_in_subject(t, w) == _plain(t, w, None, 5)
        for among in ({common[3].sha, rare[1].sha}, {c.sha for c in common + rare}):  # news smaller than either
            assert said_in_subject(t, w, among) == _plain(t, w, among, 5)
