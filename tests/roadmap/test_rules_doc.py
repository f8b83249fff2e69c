"""docs/rules.md is generated from the rule docstrings and must not go stale; every rule documents itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from roadmap.registry import SECTIONS, all_rules, doc_sections

ROOT = Path(__file__).resolve().parents[2]


def test_every_rule_has_a_stable_code_kebab_name_and_all_doc_sections():
    for r in all_rules():
        assert r.code[:2] == "RL" and r.code[2:].isdigit() and len(r.code) == 5, r.code
        assert r.name == r.name.lower() and " " not in r.name, r.name
        sections = doc_sections(r.doc)
        assert list(sections) == list(SECTIONS), f"{r.code} docstring sections: {list(sections)}"
        assert all(body.strip() for body in sections.values()), r.code


def test_docs_rules_md_is_up_to_date():
    proc = subprocess.run(
        [sys.executable, "tools/gen_rules_doc.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr.strip()  # names the regenerate command
