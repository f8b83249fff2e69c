"""Record bytes -> text lines, with every oddity (binary, bad UTF-8, front matter) made a Problem.

A record larger than `max_file_bytes` never gets here: roadmap/history/tree.py declines to read it and
roadmap/records/loader.py reports it."""

from __future__ import annotations

import re

from roadmap.records.model import AsOf, Problem
from roadmap.records.patterns import DATE_RE, FULL_SHA_RE

MAX_TEXT = 4000  # characters of one statement's text/raw kept; longer is capped (and says so)
_FRONT_KEY = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*:\s*['\"]?([^'\"#]*?)['\"]?\s*(?:#.*)?$")
_SHA_KEYS = {"base", "base_commit", "base-commit", "commit", "as_of_commit"}
_SURROGATE = re.compile("[\udc80-\udcff]")
_DATE_KEYS = {"as_of", "as-of", "updated", "last_updated", "last-updated", "date"}


def decode(path: str, data: bytes) -> tuple[str | None, list[Problem]]:
    """The record's text (None for a binary file) and the problems met decoding it."""
    problems: list[Problem] = []
    if not data:
        return "", problems
    if b"\0" in data[:8192]:
        return None, [
            Problem(
                path,
                1,
                "binary file matched a record glob; it was not read. "
                "Add it to `exclude` in [tool.roadmap] or move it out of the records",
            )
        ]
    # One character per undecodable byte (not one per invalid sequence, as "replace" would): columns on a
    # line then match the bytes roadmap/fix.py decodes with surrogateescape, so a fix lands where the parser saw it.
    text = data.decode("utf-8", "surrogateescape")
    bad = _SURROGATE.search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start()) + 1
        byte = ord(bad.group()) - 0xDC00
        text = _SURROGATE.sub("\ufffd", text)
        problems.append(
            Problem(
                path,
                line,
                f"not valid UTF-8 (byte 0x{byte:02x}); read with replacement characters. Re-save the file as UTF-8",
            )
        )
    if text.startswith("\ufeff"):
        text = text[1:]
    # Lines end at "\n" only, everywhere (records, fixes, sources): a lone "\r" is a space, not a line break
    # (markdown-it would break there), and "\0" one replacement character, so every column stays put.
    return text.replace("\r\n", "\n").replace("\r", " ").replace("\0", "\ufffd"), problems


def front_matter(lines: list[str]) -> tuple[list[str], AsOf | None]:
    """Blank a leading `---` YAML front matter block (markdown would read it as a heading) and take its as-of."""
    if not lines or lines[0].strip() != "---":
        return lines, None
    for end in range(1, min(len(lines), 80)):
        if lines[end].strip() in ("---", "..."):
            break
    else:
        return lines, None
    sha = date = None
    for line in lines[1:end]:
        m = _FRONT_KEY.match(line)
        if not m:
            continue
        key, value = m.group(1).lower(), m.group(2).strip().strip("`")
        if key in _SHA_KEYS and FULL_SHA_RE.match(value) and sha is None:
            sha = value
        elif key in _DATE_KEYS and date is None and (dm := DATE_RE.match(value)):
            date = dm.group(1)
    blanked = [""] * (end + 1) + lines[end + 1 :]
    return blanked, AsOf(sha=sha, date=date, source="preamble") if (sha or date) else None


def cap_problem(path: str, line: int, what: str, length: int) -> Problem:
    # The linter's own limit, not a defect of the record (a generated table or a pasted diff is long by nature):
    # information, so that a run says what it skipped without failing anyone's CI over it.
    return Problem(
        path,
        line,
        f"{what} is {length} characters; only the first {MAX_TEXT} are read. Split it into shorter statements",
        "info",
    )


def split_lines(text: str) -> list[str]:
    """Lines the way records, fixes and editors count them: split on "\\n" only (a "\\r" before it stays on
    its line), no empty last line after a final newline. str.splitlines() would also split on U+2028,
    form feeds and \\x1c-\\x1e, and disagree with the parser about line numbers."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines
