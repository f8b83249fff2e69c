"""Hypothesis strategies and invariant checks for fuzzing roadmap (tests/roadmap/test_fuzz.py runs them; the
slow, recorded run is tools/fuzz_roadmap.py).

What is generated: markdown records (headings, paragraphs, nested lists, tables, fences, front matter,
suppressions) built from the pieces that have broken roadmap before (line separators other than "\\n", pipes,
escapes, code spans, undecodable bytes, a BOM, CRLF, path references that are prefixes of one another);
JSON evidence (valid documents, then deep nesting, huge integers, non-finite numbers, truncation, noise); and
small git histories whose commits move the symbols a record points at, with dates that may run backwards.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from hypothesis import strategies as st

from roadmap.fix import apply_edits
from roadmap.findings import Edit
from roadmap.records.model import RecordFile

IDS = ["ROW-A1", "ROW-B2", "ENG-TP", "RM-SAFETY", "CLAIM-X-1"]
PATHS = [
    "src/a.py",
    "src/b.py",
    "src/my file.py",
    "docs/x.md",
    "agents/r.md",
    "src/gone.py",
    "../out.py",
    "/etc/passwd",
    "docs/bench-evidence/20260727-tp",
]
ODD = [
    "\u2028",
    "\u2029",
    "\x0c",
    "\x85",
    "\x1c",
    "\x1d",
    "\x1e",
    "\r",
    "\t",
    "\0",
    "|",
    "\\|",
    "`",
    "``",
    "~~",
    "**",
    "_",
    "<br>",
    "&lt;img src=x onerror=1&gt;",
    "<b>",
    "\\",
    "[",
    "]",
    "(",
    ")",
    "é",
    "🚀",
    "שלום",
    "<!-- roadmap: disable-next-line RL303 -- why -->",
    "<!-- roadmap: disable RL3",
    "-->",
]
WORDS = [
    "Port",
    "Rerun",
    "the",
    "runner",
    "Next:",
    "TODO",
    "as of 2026-07-05",
    "6831.71 tok/s",
    "1.03x",
    "deadbeefcafe",
    "20260727-tp",
    "DONE",
    "OPEN",
    "superseded",
    "Must",
    "FooBarMirror",
    "`--flag-x`",
    "VT_MIRROR=0",
    "2026-07-27",
    "was",
]

path_text = st.sampled_from(PATHS)
loc = st.one_of(
    st.just(""),
    st.integers(0, 45).map(lambda n: f":{n}"),
    st.tuples(st.integers(1, 45), st.integers(1, 45)).map(lambda t: f":{t[0]}-{t[1]}"),
    st.integers(1, 45).map(lambda n: f"#L{n}"),
    st.just("::foo"),
    st.just("::Cls.baz"),
)


@st.composite
def reference(draw: Any) -> str:
    ref = draw(path_text) + draw(loc)
    shape = draw(st.integers(0, 4))
    if shape == 0:
        return f"`{draw(st.sampled_from(['foo', 'baz', 'f1', 'Cls::f2']))}` ({ref})"
    if shape == 1:
        return f"`{ref}`"
    if shape == 2:
        return f"[{draw(st.sampled_from(['see', 'x', '`c`']))}]({ref.replace(':', '#L', 1) if ':' in ref else ref})"
    return ref


piece = st.one_of(st.sampled_from(WORDS), st.sampled_from(IDS), reference(), st.sampled_from(ODD), st.text(max_size=6))
inline = st.lists(piece, max_size=10).map(lambda parts: " ".join(parts))
cell = inline.map(lambda s: s.replace("\n", " "))


@st.composite
def table(draw: Any) -> str:
    headers = draw(
        st.lists(
            st.sampled_from(["ID", "State", "Remaining", "Where", "Notes", "Next"]), min_size=1, max_size=4, unique=True
        )
    )
    rows = draw(st.lists(st.lists(cell, min_size=0, max_size=len(headers) + 1), max_size=5))
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


block = st.one_of(
    st.tuples(st.integers(1, 4), inline).map(lambda t: "#" * t[0] + " " + t[1]),
    inline,
    st.lists(
        st.tuples(st.sampled_from(["- ", "1. ", "  - ", "* ", "    - ", "14) "]), inline), min_size=1, max_size=4
    ).map(lambda items: "\n".join(p + s for p, s in items)),
    table(),
    inline.map(lambda s: f"```\n{s}\n```"),
    st.just("---\nas_of: 2026-07-05\nbase: " + "a" * 40 + "\n---"),
)


@st.composite
def record_bytes(draw: Any) -> bytes:
    text = "\n\n".join(draw(st.lists(block, max_size=8)))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = "\ufeff".encode() + data
    if data and draw(st.integers(0, 4)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xe9", b"\xff\xfe", b"\xe2\x82", b"\x00"])) + data[at:]
    return data


# ---------------------------------------------------------------- JSON evidence
json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


@st.composite
def evidence_json(draw: Any) -> bytes:
    base = {
        "schema": "evident.bench/1",
        "series": draw(st.text(max_size=10)),
        "row": draw(st.sampled_from(IDS)),
        "created": draw(st.sampled_from(["2026-07-27T10:00:00Z", "2026-13-45", "x"])),
        "commit": draw(st.sampled_from(["0" * 40, "f" * 40, "zz"])),
        "dirty": draw(st.booleans()),
        "metrics": {"output_tok_per_s": {"median": draw(json_value), "min": 1.0, "max": 2.0}},
        "extra": draw(json_value),
    }
    text = json.dumps(base)
    mutation = draw(st.integers(0, 7))
    if mutation == 0:
        depth = draw(st.integers(60, 100_000))
        text = text.replace('"extra": ', '"extra": ' + "[" * depth, 1)[:-1] + "]" * depth + "}"
    elif mutation == 1:
        text = text.replace(
            '"min": 1.0',
            '"min": '
            + draw(
                st.sampled_from(
                    ["1" + "0" * 5000, "1e400", "-1e999", "NaN", "Infinity", "-Infinity", "9" * 70, "1" + "0" * 400]
                )
            ),
        )
    elif mutation == 2:
        text = text[: draw(st.integers(0, len(text)))]
    elif mutation == 3:
        text = draw(st.text(max_size=40))
    data = text.encode()
    if mutation == 4:
        data = b"\xff" + data
    return data


def finite_and_bounded(obj: Any, depth: int = 0) -> bool:
    """What roadmap/safejson.py promises of a document it returns."""
    if depth > 64:
        return False
    if isinstance(obj, float):
        return math.isfinite(obj)
    if isinstance(obj, int) and not isinstance(obj, bool):
        return len(str(abs(obj))) <= 64
    if isinstance(obj, list):
        return all(finite_and_bounded(v, depth + 1) for v in obj)
    if isinstance(obj, dict):
        return all(finite_and_bounded(v, depth + 1) for v in obj.values())
    return True


# ---------------------------------------------------------------- invariants over a parsed record
def source_lines(data: bytes) -> list[str]:
    """The record's lines as roadmap/fix.py sees them (surrogateescape, no BOM, "\\n" only, "\\r" kept)."""
    text = data.decode("utf-8", "surrogateescape")
    return text.removeprefix("\ufeff").split("\n")


def check_record(data: bytes, rf: RecordFile) -> None:
    """Lines are real lines; every placed path reference sits exactly where it says, as a whole token."""
    n = len(rf.text.split("\n")) if rf.text else 1
    parsed = rf.text.split("\n")
    for st_ in rf.statements:
        assert 1 <= st_.line <= st_.end_line <= n, (st_.line, st_.end_line, n)
        for ref in st_.mentions.paths:
            if ref.record_line is None:
                continue
            assert ref.start_col is not None and ref.end_col is not None
            assert st_.line <= ref.record_line <= st_.end_line
            assert parsed[ref.record_line - 1][ref.start_col : ref.end_col] == ref.text, (ref, st_.raw)
    for p in rf.problems:
        assert 1 <= p.line <= n + 1


_LINE_NO = re.compile(r"(:|#L)(\d+)")


def repointed(text: str) -> str | None:
    """The reference with its first line number moved by 7 (what RL303's fix does), or None without one."""
    m = _LINE_NO.search(text)
    return None if m is None else text[: m.start(2)] + str(int(m.group(2)) + 7) + text[m.end(2) :]


def edit_one_reference(data: bytes, rf: RecordFile, pick: int) -> tuple[str, Edit, str] | None:
    """Apply a fix to one placed reference of `rf`, as roadmap/fix.py would: (text before, the edit, text
    after), or None when the record has no reference with a line number. The edit must apply and change
    nothing outside its span."""
    refs = [r for s in rf.statements for r in s.mentions.paths if r.record_line is not None and repointed(r.text)]
    if not refs:
        return None
    ref = refs[pick % len(refs)]
    new = repointed(ref.text)
    assert new is not None and ref.record_line is not None and ref.start_col is not None
    before = data.decode("utf-8", "surrogateescape")
    edit = Edit("r.md", ref.record_line, ref.start_col, ref.text, new)
    after, applied, skipped = apply_edits(before, [edit])
    raw_line = source_lines(data)[ref.record_line - 1]
    col = ref.start_col
    if raw_line[col : col + len(ref.text)] != ref.text:
        # only the characters the parser normalises ("\r" -> " ", "\0" -> U+FFFD, bad byte -> U+FFFD) may differ
        assert skipped == [edit] and after == before
        return None
    assert applied == [edit], (edit, raw_line)
    b_lines, a_lines = before.split("\n"), after.split("\n")
    assert len(b_lines) == len(a_lines)
    changed = [i for i, (x, y) in enumerate(zip(b_lines, a_lines)) if x != y]
    assert changed == [ref.record_line - 1]
    bom = 1 if before.startswith("\ufeff") and ref.record_line == 1 else 0
    line_b, line_a = b_lines[ref.record_line - 1], a_lines[ref.record_line - 1]
    assert line_a == line_b[: col + bom] + new + line_b[col + bom + len(ref.text) :]
    return before, edit, after
