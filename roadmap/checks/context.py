"""Everything a check may read: config, parsed records, and facts (tree, history, evidence). Checks never do I/O
of their own beyond what these objects offer."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roadmap.records.model import RecordFile, Statement
from roadmap.history.tree import Tree


@dataclass
class LintContext:
    root: Path                      # repository top level
    config: Any                     # roadmap.config.Config
    records: list[RecordFile]
    tree: Tree                      # files at the linted revision (working tree by default)
    head: str | None = None         # the commit sha the lint runs against (HEAD or --at REV); None outside git
    history: Any = None             # roadmap.history index (lazy; built by the runner when a rule needs it)
    evidence: Any = None            # roadmap.evidence store (lazy)
    extra: dict[str, Any] = field(default_factory=dict)

    def statements(self):
        for rf in self.records:
            yield from rf.statements

    def statements_by_row(self) -> dict[str, list[Statement]]:
        out: dict[str, list[Statement]] = {}
        for st in self.statements():
            if st.row_id:
                out.setdefault(st.row_id, []).append(st)
        return out
