"""Everything a rule may read: config, parsed records, facts about the tree, history and evidence, and the
derived facts computed from them. Rules do no I/O of their own beyond what these objects offer.

History and evidence are built on first use (`get_history()`), so deselected history rules cost nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from roadmap.analysis.facts import Facts, News, Reason
from roadmap.analysis.work import CommitWork, commit_work, remember_commit_work
from roadmap.config import Config
from roadmap.evidence.store import EvidenceStore, load_evidence
from roadmap.history.git import GitError
from roadmap.history.index import HistoryIndex
from roadmap.history.tree import Tree
from roadmap.records.model import RecordFile, Statement


@dataclass(frozen=True)
class Detector:
    """One rule's test for a stale directive; analysis/stale.py runs every selected one and groups the reasons."""

    code: str
    applies: Callable[[Statement], bool]
    detect: Callable[["LintContext", Statement, News], Reason | None]
    # The symbols it asks the history index to count (`-S`) for a statement it applies to; the index counts
    # only what some selected detector asks (build_history).
    symbols: Callable[[Statement], Iterable[str]] | None = None
    # Builds what every one of its tests reads (an index over the whole history), given the statements it applies
    # to: analysis/stale.py calls it before it shares the tests out to a forked child, which then inherits it.
    prepare: Callable[["LintContext", list[Statement]], None] | None = None
    # Its prepare blames the record file of every statement it applies to (analysis/stale.early_blame starts those
    # blames before the history pass and the fork of lint._run_checks, so every process inherits them).
    blames_files: bool = False
    # The commit-message tests its prepare runs over the whole history through asof.commits_matching, as (name,
    # test of a message, whether merge commits count): analysis/stale.py runs them first, on both cores.
    commit_tests: tuple[tuple[str, Callable[[str], object], bool], ...] = ()
    # What its prepare computes before it waits on git, run in this thread before the prepares' threads start
    # (theirs is then started first): its git processes start at once instead of after a share of the GIL.
    prelude: Callable[["LintContext", list[Statement]], None] | None = None


@dataclass
class LintContext:
    root: Path  # repository top level
    config: Config
    records: list[RecordFile]
    tree: Tree  # files at the linted revision (working tree by default)
    head: str | None = None  # the commit sha the lint runs against (HEAD or --at REV); None outside git
    at: str | None = None  # --at REV as given (None: the working tree)
    history: HistoryIndex | None = None  # built by get_history() when a rule first needs it
    evidence: EvidenceStore | None = None  # loaded by get_evidence() when a rule first needs it
    selected: frozenset[str] = frozenset()  # codes of the rules this run executes
    known_codes: frozenset[str] = frozenset()  # codes of every rule there is (RL901 names unknown ones)
    detectors: tuple[Detector, ...] = ()  # the selected rules' stale-directive detectors
    use_cache: bool = True  # False under --no-cache
    facts: Facts = field(default_factory=Facts)

    def statements(self) -> Iterator[Statement]:
        for rf in self.records:
            yield from rf.statements

    def statements_by_row(self) -> dict[str, list[Statement]]:
        out: dict[str, list[Statement]] = {}
        for st in self.statements():
            if st.row_id:
                out.setdefault(st.row_id, []).append(st)
        return out

    def get_history(self) -> HistoryIndex:
        """The history index, built on first use (may raise GitError, e.g. for a shallow clone)."""
        if self.history is None:
            self.history = build_history(self)
        return self.history

    def get_evidence(self) -> EvidenceStore:
        """The evidence store, loaded on first use."""
        if self.evidence is None:
            self.evidence = load_evidence(self.tree, self.config, cache_dir=self.root if self.use_cache else None)
        return self.evidence

    def record(self, path: str) -> RecordFile | None:
        by_path = self.facts.records_by_path
        if by_path is None:
            by_path = self.facts.records_by_path = {rf.path: rf for rf in self.records}
        return by_path.get(path)


def build_history(ctx: LintContext) -> HistoryIndex:
    """The history index for the linted revision, counting the symbols the selected detectors ask about (one pass).

    Raises ShallowHistoryError (a GitError: exit 2 with the fix) when the walk would cross a shallow boundary.
    """
    if ctx.head is None:
        raise GitError("the repository has no commits yet; commit the records first (`git commit`)")
    symbols = sorted(history_symbols(ctx))
    hist = ctx.config.history
    pathspecs = [*hist.include, *(f":(exclude){p}" for p in hist.exclude)]
    if pathspecs and not hist.include:
        pathspecs.insert(0, ".")  # excludes alone need something to exclude from
    index = HistoryIndex.build(
        ctx.root,
        ctx.head,
        symbols,
        cache_dir=ctx.root,
        pathspecs=pathspecs or None,
        use_cache=ctx.use_cache,
        uncounted=uncounted_pathspecs(ctx.config),
        per_commit=commit_work,  # every message's work terms are read by the directive rules: on both cores here
    )
    remember_commit_work({c: w for c in index.commits if isinstance(w := index.extras.get(c.sha), CommitWork)})
    return index


DOC_SUFFIXES = ("md", "markdown", "rst", "txt", "adoc")


def uncounted_pathspecs(config: Config) -> list[str]:
    """Exclude pathspecs for what is not the team's code: records, evidence, prose docs, and files .gitattributes
    marks generated or vendored. A symbol named there was written about, regenerated or taken from upstream, not
    changed by the work (analysis/code_symbols.py), so the history pass counts no change in them either."""
    specs = [f":(exclude,glob)**/*.{s}" for s in DOC_SUFFIXES]
    # code the repository marks generated or vendored in .gitattributes (GitHub's linguist attributes, which fold
    # its diffs away): regenerated output or another project's code, where no work of the team's lands
    specs += [f":(exclude,attr:linguist-{a}{v})" for a in ("generated", "vendored") for v in ("", "=true")]
    specs.append(f":(exclude){config.evidence.root.strip('/')}")
    specs += [f":(exclude,glob){g}" for g in config.records]
    return specs


def history_symbols(ctx: LintContext) -> set[str]:
    """What the selected detectors will ask the index to count, over the statements they run on (analysis/stale.py
    runs them on every statement that is not historical): a symbol nobody asks about is never counted."""
    asking = [d for d in ctx.detectors if d.symbols is not None]
    out: set[str] = set()
    for st in ctx.statements():
        if st.historical:
            continue
        for d in asking:
            if d.symbols is not None and d.applies(st):
                out.update(d.symbols(st))
    return out
