"""Suppression comments: drop the findings they cover and remember which comments covered something.

    <!-- roadmap: disable-next-line RL201 -- reason -->   the next non-blank line
    <!-- roadmap: disable RL2 -->  ...  <!-- roadmap: enable RL2 -->   a range (codes are prefixes)
    <!-- roadmap: disable-file RL304 -->   the whole file

A finding is suppressed by a `disable` when the nearest `disable`/`enable` before its line that names its
code (or names no code, meaning all) is a `disable`. Comments that suppress nothing are reported by RL901.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from roadmap.findings import Finding, matches
from roadmap.records.model import RecordFile, Suppression
from roadmap.records.source import split_lines


def covers(sup: Suppression, code: str) -> bool:
    return not sup.codes or matches(code, [c.upper() for c in sup.codes])


@dataclass
class SuppressionResult:
    kept: list[Finding]
    suppressed: list[Finding]
    used: set[Suppression] = field(default_factory=set)


class _FileSuppressions:
    def __init__(self, rf: RecordFile):
        sups = sorted(rf.suppressions, key=lambda s: s.line)
        self.whole = [s for s in sups if s.action == "disable-file"]
        self.ranges = [s for s in sups if s.action in ("disable", "enable")]
        self.range_lines = [s.line for s in self.ranges]
        lines = split_lines(rf.text)
        self.next_line: list[tuple[int, Suppression]] = []
        for s in sups:
            if s.action == "disable-next-line":
                target = s.target_line  # the parser's answer when it gives one
                if target is None:
                    target = s.line + 1
                    while target <= len(lines) and not lines[target - 1].strip():
                        target += 1  # a blank line between comment and statement is allowed
                self.next_line.append((target, s))

    def covering(self, f: Finding) -> list[Suppression]:
        out = [s for s in self.whole if covers(s, f.code)]
        out += [s for target, s in self.next_line if f.line <= target <= f.end_line and covers(s, f.code)]
        # Walk back from the finding's line to the nearest disable/enable that names this code.
        i = bisect.bisect_left(self.range_lines, f.line)
        while i > 0:
            i -= 1
            s = self.ranges[i]
            if covers(s, f.code):
                if s.action == "disable":
                    out.append(s)
                break
        return out


def apply_suppressions(findings: list[Finding], records: list[RecordFile]) -> SuppressionResult:
    by_path = {rf.path: _FileSuppressions(rf) for rf in records if rf.suppressions}
    result = SuppressionResult(kept=[], suppressed=[])
    for f in findings:
        fs = by_path.get(f.path)
        hits = fs.covering(f) if fs else []
        if hits:
            result.suppressed.append(f)
            result.used.update(hits)
        else:
            result.kept.append(f)
    return result
