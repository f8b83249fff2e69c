"""Where a symbol named beside a `path:line` reference is in the file now (shared by RL302 and RL303)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from roadmap.records.model import PathRef

# A line that defines a name scores higher than one that merely uses it.
_DEF_WORDS = r"(?:def|class|fn|func|function|struct|enum|union|interface|trait|type|namespace|macro|module|impl)"


def symbol_parts(symbol: str) -> tuple[str, str | None]:
    """`GPUModelRunner::async_device_mirror()` -> ("async_device_mirror", "GPUModelRunner")."""
    s = symbol.strip().strip("`")
    s = re.sub(r"\(.*\)\s*$", "", s).strip()  # call parentheses and arguments
    parts = [p for p in re.split(r"::|\.(?=[A-Za-z_])|#", s) if p]
    if not parts:
        return "", None
    qualifier = parts[-2] if len(parts) > 1 else None
    return parts[-1], qualifier


def _name_re(name: str) -> re.Pattern[str]:
    left = r"(?<![\w-])" if name[:1] == "-" else r"(?<![\w$])"
    right = r"(?![\w-])" if name[-1:].isalnum() or name[-1:] == "_" else ""
    return re.compile(left + re.escape(name) + right)


def _score(line: str, name: str, qualifier: str | None) -> int:
    esc = re.escape(name)
    score = 1
    if (
        re.search(rf"\b{_DEF_WORDS}\s+{esc}\b", line)
        or re.match(rf"^\s*func\s*\([^)]*\)\s*{esc}\b", line)
        or re.match(rf"^\s*{esc}\s*\(\)\s*\{{?\s*$", line)  # a shell function: `rollback_release() {`
    ):
        score = 4  # a definition; Go's method with its receiver: `func (r *Reconciler) reconcileStatus(`
    elif (
        qualifier
        and re.match(rf"^(?:[\w:<>,*&]+\s+)*[*&]?{re.escape(qualifier)}::{esc}\s*\(", line)
        and not line.rstrip().endswith(";")
    ):
        score = 4  # C++ out-of-line definition (at the margin: an indented `vt::F(` is a call)
    elif re.match(rf"^(?:[\w:<>,*&]+\s+)*[*&]?[\w<>]+::{esc}\s*\(", line) and not line.rstrip().endswith(";"):
        score = 3  # ... of a class the reference does not name (`bool Runner::mirror() const {`)
    elif (
        re.match(rf"^\s*[\w:<>,*&]+(?:\s+[\w:<>,*&]+)*\s+[*&]?{esc}\s*\([^;]*$", line)
        or re.match(rf"^\s*[\w:<>,*&]+(?:\s+[\w:<>,*&]+)*\s+[*&]?{esc}\s*\([^;{{]*\)\s*(?:const\s*)?\{{", line)
    ) and not re.match(r"^\s*(?:return|if|while|for|switch|else)\b", line):
        score = 3  # a function header in a C-like language, its body on the same line or not
    elif re.match(rf'^\s*[\w-]+(?:\s+"[^"\n]*")*\s+"{esc}"\s*\{{', line):
        score = 4  # a block labelled with the name: HCL's `resource "aws_instance" "web" {`, `variable "name" {`
    elif re.match(rf"^\s*{esc}\s*[:=]", line) or re.match(rf"^#+\s.*{esc}", line):
        score = 2
    if qualifier and qualifier in line:
        score += 1
    return score


@dataclass(frozen=True)
class Location:
    status: str  # "on-lines" | "moved" | "ambiguous" | "absent"
    line: int | None = None  # moved: the line the symbol is defined on now
    candidates: tuple[int, ...] = ()  # ambiguous: the equally good lines
    score: int = 0  # moved: how that line holds the name (3-5 a definition, 2 an assignment or heading, 1 a use)


DEFINITION = 3  # a line that scores this or more defines the name


def defines(line: str, symbol: str) -> bool:
    """Does `line` define `symbol` (a `def`/`class`/`func`, a C-like function header, an HCL block)?"""
    name, qualifier = symbol_parts(symbol)
    return bool(name) and _name_re(name).search(line) is not None and _score(line, name, qualifier) >= DEFINITION


# A line that only comments on a name (`// ring shift lives in kv_ring.rs`) does not hold it; in prose files
# (`#` is a heading there) every line counts.
_COMMENT = re.compile(r"^\s*(?://|/\*|\*|#(?!include|define|if|pragma)|--|;)")
_PROSE = frozenset({"md", "markdown", "rst", "txt", "adoc"})


def distinctive(name: str) -> bool:
    """A name worth searching a file for: `P` or `x` match anywhere, `admit_waiting` or `KvCache` do not."""
    return len(name.lstrip("-")) >= 3


def locate(lines: list[str], ref: PathRef, also: tuple[tuple[int, int], ...] = ()) -> Location:
    """Is the symbol on the referenced lines; if not, where is it (a unique best line, several definitions)?
    A symbol mentioned on several lines and defined on none is taken as still there."""
    name, qualifier = symbol_parts(ref.symbol or "")
    if not name or not distinctive(name):
        return Location("on-lines")
    pat = _name_re(name)
    start = ref.line or 1
    end = max(start, ref.end_line or start)
    if ref.line is not None and any(pat.search(l) for a, b in ((start, end), *also) for l in lines[a - 1 : b]):
        slid = _slid_past(lines, name, qualifier, pat, start, end) if not also else None
        if slid is not None:
            return Location("moved", line=slid)
        return Location("on-lines")  # on the lines, or on one of the further ranges (`ops.h:158,384,789`)
    prose = ref.path.rsplit(".", 1)[-1].lower() in _PROSE
    scored = [
        (_score(l, name, qualifier), n)
        for n, l in enumerate(lines, 1)
        if pat.search(l) and (prose or not _COMMENT.match(l))
    ]
    if not scored:
        return Location("absent")  # gone from the code (a comment naming it is not where it is)
    if ref.line is None:
        return Location("on-lines")  # `path::Symbol` without lines: being in the file is enough
    if any(s >= 3 and n < start <= block_end(lines, n) for s, n in scored):
        return Location("on-lines")  # a line inside the symbol's body: `MatmulBT` (ops.cpp:158) routes dtypes
    best = max(s for s, _ in scored)
    tops = tuple(n for s, n in scored if s == best)
    if len(tops) == 1:
        return Location("moved", line=tops[0], score=best)
    if best < 3:
        return Location("on-lines")  # only mentioned, several times: which mention the record meant is unknowable
    return Location("ambiguous", candidates=tops)


_CLOSER = re.compile(r"^\s*(?:[}\])]+[;,]?|end|fi|done|esac)\s*(?://.*)?$")


def _slid_past(
    lines: list[str], name: str, qualifier: str | None, pat: re.Pattern[str], start: int, end: int
) -> int | None:
    """A range whose only line naming the symbol is its definition's header, in the range's last quarter, with the
    body past the range's end: the definition slid down and the range now ends on its first line (`calib.cpp:8-20`
    for `ImuCalib::apply`, which moved to 20-32). Returns that header line."""
    if end - start < 4:
        return None
    hits = [n for n in range(start, min(end, len(lines)) + 1) if pat.search(lines[n - 1])]
    if len(hits) != 1:
        return None
    d = hits[0]
    if d <= start + 3 * (end - start) // 4 or _score(lines[d - 1], name, qualifier) < 3:
        return None
    return d if block_end(lines, d) > end + (end - start) // 2 else None


def block_end(lines: list[str], first: int) -> int:
    """The last line of the block a definition on line `first` opens: up to the next non-blank line indented no
    deeper than the definition (its closing `}` included), for braces and indentation alike."""
    indent = len(lines[first - 1]) - len(lines[first - 1].lstrip())
    last = first
    for n in range(first + 1, len(lines) + 1):
        line = lines[n - 1]
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) <= indent:
            return n if _CLOSER.match(line) else last
        last = n
    return last


def relocate(lines: list[str], ref: PathRef, also: tuple[tuple[int, int], ...] = ()) -> Location | None:
    """The symbol's location when it is in the file but not on the referenced lines, else None."""
    loc = locate(lines, ref, also)
    return loc if loc.status in ("moved", "ambiguous") else None


_COLON_RE = re.compile(r":(\d+)(?:(\s*[-–]\s*)(\d+))?(?!.*:\d)")
_HASH_RE = re.compile(r"#L(\d+)(?:([-–]L?)(\d+))?")


def repoint(text: str, ref: PathRef, new_start: int) -> str | None:
    """`ref.text` with its line range moved to start at `new_start`, keeping the range length and style."""
    old_start = ref.line or 0
    new_end = new_start + ((ref.end_line or old_start) - old_start)
    pattern = _HASH_RE if ref.form in ("hash", "link") else _COLON_RE
    matches = list(pattern.finditer(text))
    if not matches:
        return None
    m = matches[-1]
    if int(m.group(1)) != old_start:
        return None
    if m.group(3) is not None:
        new = f"{':' if pattern is _COLON_RE else '#L'}{new_start}{m.group(2)}{new_end}"
    else:
        new = f"{':' if pattern is _COLON_RE else '#L'}{new_start}"
    return text[: m.start()] + new + text[m.end() :]
