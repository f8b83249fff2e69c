"""RL103's word prefilter never changes what the premise pattern decides (checks/premise_refuted.py)."""

import random

from roadmap.checks.premise_refuted import _STATES_PREMISE, _states_premise

PHRASES = [
    "Hypothesis: the clock comes from HSI48",
    "assumption - the cache is warm",
    "Root-cause: a stale pointer",
    "Premise: X",
    "theory — the scheduler",
    "Suspected: the allocator",
    "decode dominates the step",
    "the stall came from the copy",
    "slow because the queue is full",
    "due to contention",
    "caused by the retry loop",
    "the GEMM is the bottleneck",
    "these are the culprit",
    "we cannot ship it: the ABI differs",
    "not exploitable here",
    "the pool is exhausted; that is what produces the 502s",
    "the cause is the shadow cascades",
    "these are the reason for the stalls",
    "El origen es el pool de Hikari",
    "la causa es el índice",
    "se debe a la red",
    "die Ursache ist der Cache",
    "es liegt an der Platte",
    "la cause est le verrou",
    "c'est dû à la file",
    "Cause : la régression vient du relèvement du seuil",
    "la latence provient des verrous",
    "el retraso proviene del pool",
    "o atraso vem do cache",
    "die Latenz kommt vom Cache",
    "der Fehler kam wohl aus dem Treiber",
    "Hipótesis: el índice",
    "Ursache: der Cache",
    "Vermutung - der Scheduler",
]
ALPHABET = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ :;-\n") + [
    "\u0130",
    "\u0131",
    "\u017f",
    "\u212a",
    "é",
]


def _same(text: str) -> bool:
    return _states_premise(text) == (_STATES_PREMISE.search(text) is not None)


def test_prefilter_agrees_with_the_pattern_on_every_alternative():
    for phrase in PHRASES:
        assert _STATES_PREMISE.search(phrase) is not None
        assert _states_premise(phrase)
        assert _states_premise(phrase.upper())


def test_prefilter_agrees_on_case_twins_and_noise():
    rnd = random.Random(0)
    for _ in range(20000):
        phrase = "".join(c.upper() if rnd.random() < 0.3 else c for c in rnd.choice(PHRASES))
        if rnd.random() < 0.3:
            phrase = phrase.replace("i", rnd.choice(["\u0130", "\u0131"])).replace("s", "\u017f")
        noise = "".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(0, 6)))
        assert _same(noise + phrase[: rnd.randint(0, len(phrase))] + noise)
    assert _states_premise("becau\u017fe")  # IGNORECASE matches the long s to s
    assert not _states_premise("a plain sentence about kernels")
