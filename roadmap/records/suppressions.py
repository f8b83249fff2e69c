"""Suppression comments: `<!-- roadmap: disable-next-line RL201 -- reason -->`, `disable`, `enable`, `disable-file`."""

from __future__ import annotations

import re

from roadmap.records.model import Problem, Suppression

_COMMENT = re.compile(r"<!--\s*roadmap\s*:(?P<body>.*?)-->")
_ACTIONS = ("disable-next-line", "disable-file", "disable", "enable")
_CODE = re.compile(r"^[A-Z]{2}\d{0,3}$")


def scan(path: str, lines: list[str], skip: set[int]) -> tuple[list[Suppression], list[Problem]]:
    """Suppressions on `lines` (0-based indices in `skip` are code blocks and are not scanned)."""
    sups: list[Suppression] = []
    problems: list[Problem] = []
    for i, line in enumerate(lines):
        if "roadmap" not in line or "<!--" not in line or i in skip:
            continue
        for m in _COMMENT.finditer(line):
            sup, problem = _parse(path, i + 1, m.group("body"), lines)
            if sup is not None:
                sups.append(sup)
            if problem is not None:
                problems.append(problem)
    return sups, problems


def _parse(path: str, lineno: int, body: str, lines: list[str]) -> tuple[Suppression | None, Problem | None]:
    spec, _, reason = body.partition(" --")
    words = spec.split()
    action = words[0] if words else ""
    if action not in _ACTIONS:
        return None, Problem(
            path,
            lineno,
            f"unknown suppression action {action!r}; write one of "
            f"{', '.join(_ACTIONS)}, e.g. `<!-- roadmap: disable-next-line RL201 -- why -->`",
        )
    codes = tuple(c for w in words[1:] for c in w.split(",") if c)
    bad = [c for c in codes if not _CODE.match(c)]
    if bad:
        return None, Problem(
            path,
            lineno,
            f"suppression names {', '.join(map(repr, bad))}, which is not a rule code "
            f"or prefix; write codes like RL201 or RL2, separated by spaces",
        )
    target = _next_content_line(lines, lineno) if action == "disable-next-line" else None
    return Suppression(
        path=path, line=lineno, action=action, codes=codes, reason=reason.strip(), target_line=target
    ), None


def _next_content_line(lines: list[str], lineno: int) -> int | None:
    """The line a disable-next-line comment covers: the next non-blank line that is not itself a suppression."""
    for j in range(lineno, len(lines)):
        stripped = lines[j].strip()
        if stripped and not _COMMENT.fullmatch(stripped):
            return j + 1
    return None
