"""The shapes the sixth batch of blind scenarios taught, each with a negative control beside it.

- a data split names a series as a model size does: a held-out rerun is not answered by a val run;
- a criterion `.txt` reads as its estimates (`[low estimate high]`), its `#` lines as text, not headings;
- a name is declared (a function, type, model, constant), not merely used (`test.afterEach(...)`, a comment);
- a handoff heading ("### 次の担当者へ", "### TODO") hands on the list under it;
- a table's id column defines tracker keys (`FW-12`) the id patterns miss, and only there.
"""

from __future__ import annotations

import re

import pytest

from roadmap.analysis.code_symbols import _DECLARES
from roadmap.analysis.evidence_figures import plain_as_markdown
from roadmap.analysis.terms import split_terms
from roadmap.config import Config
from roadmap.records.loader import table_ids
from roadmap.records.parser import parse_record


def test_split_terms() -> None:
    assert split_terms("re-run the eval on the held-out split") == {"heldout"}
    assert split_terms("convnext-t-lsj-val") == {"val"}
    assert split_terms("vit-s16-mixup-heldout") == {"heldout"}
    assert split_terms("rerun the training loop benchmark") == set()  # "training" alone names no split


def test_plain_text_reads_the_estimate() -> None:
    text = "# fixture: 1000 synthetic access-log lines\nparse   time:   [33.571 µs 33.788 µs 34.019 µs]\n".encode()
    out = plain_as_markdown(text).decode()
    assert "33.788 µs" in out and "33.571" not in out
    assert not out.lstrip().startswith("#")


@pytest.mark.parametrize(
    ("name", "line", "declared"),
    [
        ("coalesceRequests", "+export function coalesceRequests<T>(", True),
        ("SaveDataMigrator", "+    public static class SaveDataMigrator", True),
        ("RuleTarget", "+model RuleTarget {", True),
        ("MAX_INFLIGHT", "+MAX_INFLIGHT = 64", True),
        ("normalizeTicker", "+export const normalizeTicker = (s: string) =>", True),
        ("foo", "+static void foo(void)", True),
        ("afterEach", "+  test.afterEach(async () => {", False),
        ("testInfo", '+test("x", async ({ page }, testInfo) => {', False),
        ("foo", "+    return foo(x)", False),
        ("foo", "+  x = foo(1)", False),
        ("dedupeLedgerEntries", "+// someone writes dedupeLedgerEntries and we can drop this", False),
    ],
)
def test_declared_not_used(name: str, line: str, declared: bool) -> None:
    assert bool(re.search(_DECLARES.format(name=re.escape(name)), line, re.M | re.I)) is declared


def _directives(text: str) -> set[str]:
    rf = parse_record("notes/handoff.md", text.encode(), Config())
    return {st.text for st in rf.statements if st.directive}


def test_a_handoff_heading_hands_on_its_list() -> None:
    text = "# メモ\n\n### 次の担当者へ\n- `Migrator` を新設してください\n\n### 現状\n- セーブは v3 で書かれる\n"
    found = _directives(text)
    assert any("Migrator" in t for t in found)
    assert not any("v3 で書かれる" in t for t in found)


def test_table_ids_come_from_id_columns_only() -> None:
    status = "| ID | Item | State |\n|---|---|---|\n| FW-12 | Watchdog | Done |\n| FW-17 | Heartbeat | Open |\n"
    notes = "Target MCU: STM32-F407, gate driver DRV-8323, register 0x4001_2000.\n"
    records = [parse_record("STATUS.md", status.encode(), Config()), parse_record("notes.md", notes.encode(), Config())]
    assert table_ids(records, Config()) == ["FW-12", "FW-17"]
