"""Everything a check may read: config, parsed records, and facts (tree, history, evidence). Checks never do I/O
of their own beyond what these objects offer."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

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
    # Lazy fact builders: a rule that needs history calls get_history(); deselected rules never pay for it.
    history_factory: Callable[["LintContext"], Any] | None = None
    evidence_factory: Callable[["LintContext"], Any] | None = None
    selected: frozenset[str] = frozenset()   # codes of the rules this run executes
    use_cache: bool = True          # False under --no-cache

    def statements(self):
        for rf in self.records:
            yield from rf.statements

    def statements_by_row(self) -> dict[str, list[Statement]]:
        out: dict[str, list[Statement]] = {}
        for st in self.statements():
            if st.row_id:
                out.setdefault(st.row_id, []).append(st)
        return out

    def get_history(self) -> Any:
        """The history index, built on first use (may raise GitError, e.g. for a shallow clone)."""
        if self.history is None and self.history_factory is not None:
            self.history = self.history_factory(self)
        return self.history

    def get_evidence(self) -> Any:
        """The evidence store, loaded on first use."""
        if self.evidence is None and self.evidence_factory is not None:
            self.evidence = self.evidence_factory(self)
        return self.evidence

    def record(self, path: str) -> RecordFile | None:
        by_path = self.extra.get("_records_by_path")
        if by_path is None:
            by_path = self.extra["_records_by_path"] = {rf.path: rf for rf in self.records}
        return by_path.get(path)
