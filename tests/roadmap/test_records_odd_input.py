"""Odd input never crashes the parser: it becomes a Problem at a line, and the rest still parses."""

from __future__ import annotations

import random
import time

from roadmap.config import Config
from roadmap.records import parse_record
from roadmap.records.source import MAX_TEXT

CFG = Config()


def test_empty_and_blank_files() -> None:
    for data in (b"", b"\n\n  \n"):
        rf = parse_record("agents/empty.md", data, CFG)
        assert rf.statements == [] and rf.problems == [] and rf.tables == []


def test_binary_file_is_a_problem_with_no_statements() -> None:
    rf = parse_record("agents/logo.md", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)), CFG)
    assert rf.statements == [] and rf.text == ""
    assert [(p.line, "binary" in p.message and "exclude" in p.message) for p in rf.problems] == [(1, True)]


def test_non_utf8_is_decoded_with_replacement_and_located() -> None:
    data = "# Title\n\nfine line\n".encode() + b"caf\xe9 au lait ROAD-A-B\n" + b"- Rerun it.\n"
    rf = parse_record("agents/latin1.md", data, CFG)
    assert [(p.line, "UTF-8" in p.message) for p in rf.problems] == [(4, True)]
    para = next(st for st in rf.statements if st.line <= 4 <= st.end_line)
    assert "\ufffd" in para.text and para.mentions.ids == ("ROAD-A-B",)
    assert any(st.directive and st.line == 5 for st in rf.statements)


def test_huge_cell_is_capped_and_reported() -> None:
    big = "Port " + "x" * 10_000
    rf = parse_record("agents/big.md", f"| ID | Next |\n|---|---|\n| ROAD-A-B | {big} |\n".encode(), CFG)
    cell = next(st for st in rf.statements if st.column == "Next")
    assert len(cell.text) == MAX_TEXT and len(cell.raw) == MAX_TEXT and cell.directive
    assert [(p.line, "characters" in p.message) for p in rf.problems] == [(3, True)]


def test_raw_html_and_malformed_tables() -> None:
    md = (
        "<div align=center>\n<b>ROAD-IN-HTML</b>\n</div>\n\n"
        "| ID | State |\n|---|\n| ROAD-A-B | OPEN |\n\n"  # separator with the wrong column count: not a table
        "| ID | State |\n|---|---|\n| ROAD-C-D |\n| ROAD-E-F | OPEN | extra | cells |\n\n"
        "Text with <span>inline html</span> and a <br> break.\n"
    )
    rf = parse_record("agents/html.md", md.encode(), CFG)
    assert rf.problems == []
    (table,) = rf.tables
    assert [[c.text for c in row] for row in table.rows] == [["ROAD-C-D", ""], ["ROAD-E-F", "OPEN"]]
    last = rf.statements[-1]
    assert last.text == "Text with inline html and a   break." and last.line == 14


def test_crlf_bom_and_nul_bytes_keep_line_numbers() -> None:
    data = "\ufeff# T\r\n\r\n- Rerun ROAD-A-B.\r\n- two\r\n".encode()
    rf = parse_record("agents/crlf.md", data, CFG)
    assert [(st.kind, st.line) for st in rf.statements] == [("heading", 1), ("item", 3), ("item", 4)]


def test_unclosed_constructs_and_deep_nesting() -> None:
    md = "~~never closed\n\n`never closed\n\n" + "".join("  " * i + "- level\n" for i in range(60)) + "```\nopen fence"
    rf = parse_record("agents/nest.md", md.encode(), CFG)
    # markdown-it stops nesting at its limit (20 blocks deep); what it did read has exact lines.
    items = [s for s in rf.statements if s.kind == "item"]
    assert len(items) >= 5 and all(s.line == s.end_line for s in items)


def test_random_bytes_never_crash() -> None:
    rng = random.Random(0)
    alphabet = b"|-*_~`#[]()<>!:.\n 0123456789abcdefROAD\t\\"
    for _ in range(200):
        data = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 400)))
        rf = parse_record("agents/fuzz.md", data, CFG)
        for st in rf.statements:
            assert 1 <= st.line <= st.end_line <= data.count(b"\n") + 1


def test_suppressions_parse_and_bad_ones_are_problems() -> None:
    md = (
        "<!-- roadmap: disable-file -->\n"
        "<!-- roadmap: disable RL2, RL301 -- figures are historical here -->\n"
        "<!-- roadmap: disable-next-line RL201 -- quoted on purpose -->\n\n"
        "- 5769.99 tok/s\n"
        "<!-- roadmap: enable RL2 -->\n"
        "<!-- roadmap: disabel RL2 -->\n"
        "<!-- roadmap: disable rl2 -->\n"
        "```\n<!-- roadmap: disable-file -->\n```\n"
    )
    rf = parse_record("agents/sup.md", md.encode(), CFG)
    assert [(s.line, s.action, s.codes, s.reason, s.target_line) for s in rf.suppressions] == [
        (1, "disable-file", (), "", None),
        (2, "disable", ("RL2", "RL301"), "figures are historical here", None),
        (3, "disable-next-line", ("RL201",), "quoted on purpose", 5),
        (6, "enable", ("RL2",), "", None),
    ]
    assert [p.line for p in rf.problems] == [7, 8]


def test_sixty_thousand_lines_parse_in_seconds() -> None:
    block = (
        "## 3. Punch-list {n}\n\n"
        "| ID | State | Throughput (tok/s) | Remaining to close the row |\n|---|---|---|---|\n"
        "| ROAD-V{n}-LOCAL-BF16 | GATING | 5769.99/5660.70, 0.9864x | Port `AsyncDeviceInputs` to CUDA and rerun "
        "the exact 4B series (src/vllm/worker/runner.cpp:2430-2455). |\n\n"
        "14. **ROAD-V{n}-LOCAL-BF16** — Port device-resident sampled-token mapping; VT_ASYNC_DEVICE_MIRROR=0, "
        "deed7c2a1, 2026-07-25, docs/bench-evidence/20260727-throughput-4b/.\n"
        "    - nested: throughput 6831.71 vs 6643.40 tok/s, TTFT p50 181.2 ms.\n"
        "- 2026-07-25 CLAIM-LOCAL-{n} (agent-7): measured 497 syncs. Next owner must port it.\n\n"
        "Plain paragraph text about the row with a [link](../engine/llm.py#L10-L20) in it.\n\n"
    )
    md = "".join(block.format(n=i) for i in range(5000))
    assert md.count("\n") >= 60_000
    t0 = time.process_time()  # CPU time: other processes on a shared CI box must not fail this test
    rf = parse_record("agents/huge.md", md.encode(), CFG)
    elapsed = time.process_time() - t0
    assert len(rf.tables) == 5000 and len(rf.statements) > 30_000
    # Measured ~7 s CPU on the shared 2-core dev box (markdown-it itself ~2.8 s of it); the bound catches
    # a quadratic regression, not a few percent.
    assert elapsed < 25, f"{elapsed:.1f}s CPU for {md.count(chr(10))} lines"
