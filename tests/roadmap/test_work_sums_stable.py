"""The IDF-weighted shares RL101 compares are the same float whatever order a set of terms iterates in.

A set of strings iterates in an order Python's string hashing (PYTHONHASHSEED) picks anew each run, and a plain
float sum in that order can differ in its last bit: on parrak/calibrate two done marks ("RuleRun state machine",
"RuleTarget state machine") covered a directive equally well, and which one RL101 named changed from run to run.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
import random

from roadmap.analysis.terms import TermWeights, overlap_tokens
from roadmap.analysis.work import WorkWeights, commit_work, match, terms_of
from roadmap.history.commit import Commit

TERMS = ["rulerun", "ruletarget", "state", "machin", "transit", "design", "target", "runner"]


def _weights() -> WorkWeights:
    # document frequencies chosen so that the terms' IDFs do not add up exactly in floating point
    df = {t: 1 + 7 * i for i, t in enumerate(TERMS)}
    return WorkWeights(docs=97, df=df, postings={})


def _orders(n: int = 200) -> list[list[str]]:
    rng = random.Random(0)
    out = []
    for _ in range(n):
        order = TERMS[:]
        rng.shuffle(order)
        out.append(order)
    return out


def _left_to_right(terms) -> float:
    return functools.reduce(operator.add, terms, 0.0)


def test_a_plain_sum_would_depend_on_the_order():
    # The premise of this file: float addition left to right depends on the order of the terms (these IDFs, and
    # fixed floats too). Written as a loop of +: Python 3.12's sum() compensates its rounding (on the GPU machine's
    # 3.12 the IDFs' sum() came out one float in every order, under 3.11 here it did not).
    table, _ = _weights().idf_table()
    assert len({_left_to_right(table[t] for t in order) for order in _orders()}) > 1
    terms = [0.1, 0.2, 0.3, 1e-17, 2.5, 1 / 3]
    assert len({_left_to_right(p) for p in itertools.permutations(terms)}) > 1
    assert len({math.fsum(p) for p in itertools.permutations(terms)}) == 1


def test_idf_sum_is_one_float_in_every_order():
    w = _weights()
    assert len({w.idf_sum(order) for order in _orders()}) == 1
    assert len({w.idf_sum(p) for p in itertools.permutations(TERMS[:6])}) == 1


def test_overlap_share_is_one_float_in_every_order():
    w = TermWeights(docs=97, df={t: 1 + 7 * i for i, t in enumerate(TERMS)})
    shares = {overlap_tokens(set(order), frozenset(TERMS[:5]), w).weighted for order in _orders()}
    assert len(shares) == 1


def test_match_is_one_result_in_every_order_of_its_terms():
    w = _weights()
    c = Commit(
        sha="5eed" * 10,  # commit_work caches by sha: one no other test uses
        parents=(),
        author_date="2026-01-01T00:00:00+00:00",
        author_time=0,
        commit_date="2026-01-01T00:00:00+00:00",
        commit_time=0,
        subject="design the rulerun state machine with its transitions",
        body="",
    )
    terms = terms_of("design the RuleRun state machine, RuleTarget transitions and the runner target")
    assert len(terms) >= 5
    results = set()
    for order in _orders(50):
        ordered = sorted(terms, key=lambda t: order.index(t) if t in order else -1)
        results.add(match(frozenset(ordered), commit_work(c), w))
    assert len(results) == 1
