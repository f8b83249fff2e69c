"""Every rule fixture under fixtures/rules/<CODE-name>/ is a small repository (setup.yaml replays its history);
its records say beside each offending line which finding must be reported there:

    - Past the end: `src/short.py:3-12`. <!-- expect: RL302 "lines 3-12" -->

Each fixture must produce exactly the expected findings, of ANY rule (so fixtures also prove precision:
the "must stay silent" lines in them are flagged by nothing), with the quoted text in the message.
"""

from __future__ import annotations

import pytest

from conftest import FIXTURES, expectations
from roadmap.lint import lint

CASES = sorted(p.name for p in (FIXTURES / "rules").iterdir() if p.is_dir())


@pytest.mark.parametrize("name", CASES)
def test_fixture_findings_are_exactly_the_expected_ones(fixture_repo, name):
    repo, _ = fixture_repo(name)
    result = lint(repo.path)
    records = [rf.path for rf in result.context.records]
    expected = expectations(repo.path, records)
    got = {(f.path, f.line, f.code): f for f in result.findings}
    unexpected = [f"{p}:{l} {c} {got[(p, l, c)].message}" for (p, l, c) in got if (p, l, c) not in expected]
    missing = [f"{p}:{l} {c}" for (p, l, c) in expected if (p, l, c) not in got]
    assert not unexpected and not missing, f"unexpected: {unexpected}\nmissing: {missing}"
    for key, subs in expected.items():
        for sub in subs:
            assert sub in got[key].message, f"{key}: {sub!r} not in {got[key].message!r}"


def test_every_rule_code_has_a_fixture():
    from roadmap.registry import all_rules

    covered = {name.split("-", 1)[0] for name in CASES}
    spine = {"RL001", "RL301", "RL302", "RL303", "RL304", "RL401", "RL901"}
    assert spine <= covered
    assert spine <= {r.code for r in all_rules()}
