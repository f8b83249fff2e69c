"""says_rerun searches each rerun phrase on its own where a literal it needs is: exactly RERUN.search's answer."""

from __future__ import annotations

import random

from roadmap.checks import rerun_done
from roadmap.checks.rerun_done import RERUN, _RERUN_PHRASES, says_rerun

PIECES = [
    "rerun",
    "Re-run",
    "RE-MEASURE",
    "rebenchmark",
    "retake",
    "re-profile",
    "redo",
    "re-capture",
    "retime",
    "measure",
    "run",
    "bench",
    "benchmark",
    "again",
    "repeat the",
    "Reexecutar",
    "re-ejecutar",
    "remedir",
    "volver a medir",
    "rodar o bench de novo",
    "erneut ausführen",
    "neu messen",
    "relancer",
    "refaire la mesure",
    "rieseguire",
    "rilanciare",
    "rimisurare",
    "Skalierungslauf",
    "Messung",
    "wiederholen",
    "Wiederhole",
    "Nachmessung",
    "nachmessen",
    "Wiederholungsmessung",
    "Ablauf",
    "répéter la mesure",
    "repetir la medición",
    "ripetere la misura",
    "l'expérience",
    "重新压测",
    "重跑",
    "复测",
    "再測定",
    "재측정",
    "다시 실행",
    "runner",
    "the",
    "kernel",
    "tok/s",
    "ı",
    "İ",
    "ſ",
    "K",
    "ß",
    "  ",
    "\n",
    "-",
    "./x",
    "é",
    "ün",
    "agaın",
    "meaſure",
]


def test_the_phrases_are_the_rerun_pattern():
    assert RERUN.pattern == "|".join(_RERUN_PHRASES)


def test_says_rerun_is_the_pattern_search():
    rng = random.Random(7)
    texts = [" ".join(rng.choice(PIECES) for _ in range(rng.randint(1, 8))) for _ in range(20000)]
    texts += [t.upper() for t in texts[:2000]] + [t.swapcase() for t in texts[2000:4000]]
    texts += ["Rerun the bench", "measure it again", "Run the 8B sweep again.", "Port `--x` to the runner path"]
    got = [says_rerun(t) for t in texts]
    assert got == [RERUN.search(t) is not None for t in texts]
    assert any(got) and not all(got)
    assert rerun_done.says_rerun is says_rerun
