"""Derived facts: what analysis computes from records, history and evidence, once per lint run, typed.

`Facts` has one attribute per fact (or per-key cache of one fact); the module named in its comment fills it
on first use and every later reader gets the same object. The value types the facts hold live here too, so
this module imports only the layers below analysis and the pure term helpers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable

from roadmap.analysis.evidence_figures import EvidenceFigure
from roadmap.analysis.evidence_series import SeriesFinder
from roadmap.analysis.figure_quotes import Quote
from roadmap.analysis.ownership import Names
from roadmap.analysis.reverts import Reverts
from roadmap.analysis.terms import TermWeights
from roadmap.analysis.work import WorkWeights
from roadmap.config import DEFAULT_CLAIM_PATTERN, Config
from roadmap.evidence.store import EvidenceEntry
from roadmap.history.commit import Commit
from roadmap.history.paths import PathFates
from roadmap.records.model import PathRef, RecordFile, Statement, Suppression, Table

StatementKey = tuple[str, int, int, str | None]  # (path, line, end_line, column)
RowKey = tuple[tuple[str, str], ...]  # a table row's (column, text) pairs but its state


@dataclass(frozen=True)
class News:
    """A statement's as-of point and the commits it cannot have known about (analysis/asof.py)."""

    kind: str  # "sha" | "date" | "blame" | "uncommitted" | "unknown"
    base: str  # the sha or date the statement is as of ("" when unknown)
    date: str | None  # YYYY-MM-DD of the as-of point (evidence after this day is news)
    source: str  # how it was found, for messages: "the file preamble", "git blame", ...
    commits: tuple[Commit, ...] = field(default=(), repr=False)  # newest first, HEAD's ancestry only

    def describe(self) -> str:
        if self.kind == "sha":
            return f"as of {self.base[:9]} ({self.source})"
        if self.kind == "date":
            return f"as of {self.base} ({self.source})"
        if self.kind == "blame":
            return f"last edited in {self.base[:9]} on {self.date} (git blame)"
        return "with no known as-of point"


@dataclass
class Reason:
    """Why a directive is stale, as one rule sees it (analysis/stale.py merges the reasons of its surfaces)."""

    code: str
    severity: str  # "error" (strong) | "warning" (weak match)
    phrase: str  # a clause of the finding's message
    fix: str  # what a records-only correction changes, for this reason
    commits: list[tuple[Commit, str]] = field(default_factory=list)  # (commit, role)
    evidence: list[EvidenceEntry] = field(default_factory=list)
    news: News | None = None
    statements: list[tuple[Statement, str]] = field(default_factory=list)  # (record statement, role)
    # the lines of the statement the reason is about, when fewer than its span (a premise of a paragraph of several)
    lines: tuple[int, int] | None = None


@dataclass
class StaleGroup:
    """One stale thing: the directive reported, the statements repeating it, and every reason."""

    primary: Statement
    surfaces: list[Statement]  # primary first
    reasons: list[Reason]  # leading reason first

    @property
    def lead(self) -> str:
        return self.reasons[0].code


@dataclass
class Resolved:
    """Where a path reference points in the linted tree (analysis/refs.py)."""

    path: str | None  # the existing file/dir it points at, or None
    ambiguous: bool = False  # several files match a bare name: exists, but which one is unknown
    candidates: tuple[str, ...] = ()  # repo-relative spellings to look up history with when missing


@dataclass(frozen=True)
class IdVocabulary:
    """The ids of the records and the namespaces they use (analysis/ids.py)."""

    defined: frozenset[str]  # defined by a record, or named by a heading
    namespaces: dict[str, str]  # id prefix -> an id defined in it, for messages
    configured: bool  # id_patterns are not the default: every match is an id
    claims_used: bool  # some record defines a claim
    code_style: frozenset[str] = frozenset()  # prefixes whose ids the records write in code spans
    parts: frozenset[str] = frozenset()  # group names defined ids are built from (`ROAD-V1` of `ROAD-V1-A`)

    def is_id(self, token: str, config: Config) -> bool:
        """Whether `token` (an id-shaped word) is an id of these records, defined or not."""
        if token in self.defined:
            return True
        if token.upper() in config.state_set:
            return False
        if config.claim_re.fullmatch(token):
            return self.claims_used or config.claim_patterns != (DEFAULT_CLAIM_PATTERN,)
        if self.configured and config.id_re.fullmatch(token):
            return True
        return token.split("-", 1)[0] in self.namespaces


@dataclass
class RefSite:
    """A path reference in a live statement, with the record line it is written on (analysis/refs.py)."""

    rf: RecordFile
    st: Statement
    ref: PathRef
    line: int
    start: int = -1  # offset of the reference in st.text (-1 for a markdown link)
    floor: int = 0  # where the previous reference of the statement ends (its context starts after)
    foreign: bool | None = None  # another project's reference (analysis/refs.py:is_foreign, computed on first use)


@dataclass(frozen=True)
class Flip:
    """A commit whose diff turned a flag's default on or off (analysis/default_flips.py)."""

    sha: str
    path: str
    before: str  # the line as it was (stripped)
    after: str  # the line as it became
    on: bool  # True: turned on by default; False: turned back off


@dataclass
class Facts:
    # roadmap/lint.py, after the check phase: the suppression comments that suppressed a finding (RL901)
    suppressions_used: set[Suppression] = field(default_factory=set)
    # analysis/context.py: LintContext.record()
    records_by_path: dict[str, RecordFile] | None = None
    # analysis/asof.py
    news: dict[StatementKey, News] = field(default_factory=dict)
    commits_after: dict[str, tuple[Commit, ...]] = field(default_factory=dict)
    blame: dict[str, dict[int, str]] = field(default_factory=dict)  # record path -> {line: sha}
    newest_blame: dict[tuple[str, int, int], str | None] = field(default_factory=dict)  # (path, first, last) -> sha
    blaming: Any = None  # asof.start_blame's blames still running (asof._Blaming), None when none are
    news_shas: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    commits_matching: dict[str, list[Commit]] = field(default_factory=dict)
    news_subsets: dict[tuple[Hashable, str, str], list[Commit]] = field(default_factory=dict)
    # analysis/cell_asof.py
    cells_by_line: dict[str, dict[int, list[Statement]]] = field(default_factory=dict)
    row_keys: dict[tuple[str, int], RowKey | None] = field(default_factory=dict)  # (path, line) -> key now
    # analysis/rows_at.py: (path, rev, row id) -> rows; a file's lines and token index at a revision; full parses
    rows_at: dict[tuple[str, str, str], list[tuple[int, RowKey]]] = field(default_factory=dict)
    lines_at: dict[tuple[str, str], list[str] | None] = field(default_factory=dict)
    tokens_at: dict[tuple[str, str], dict[str, list[int]]] = field(default_factory=dict)
    separators_at: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    rows_parsed: dict[tuple[str, str], dict[str, list[tuple[int, RowKey]]]] = field(default_factory=dict)
    blamed_line: dict[tuple[str, str, int], str | None] = field(default_factory=dict)
    # analysis/code_symbols.py
    in_code: dict[tuple[str, str], bool] = field(default_factory=dict)
    code_blobs: dict[str, tuple[str, ...] | None] = field(default_factory=dict)  # rev -> code blob ids
    blob_data: dict[str, bytes | None] = field(default_factory=dict)  # blob id -> its bytes, bounded
    blob_bytes: int = 0
    blob_hits: dict[str, dict[str, bool]] = field(default_factory=dict)  # symbol -> blob id -> holds it
    code_deltas: dict[tuple[str, str], int] = field(default_factory=dict)
    code_diffs: dict[str, tuple[str, str] | None] = field(default_factory=dict)
    # analysis/commit_text.py
    term_weights: TermWeights | None = None
    # analysis/claims.py: record path -> its first rule for claims' TTL (days, where)
    claim_ttl_rules: dict[str, tuple[float, str]] | None = None
    # analysis/refs.py
    live: list[tuple[RecordFile, Statement]] | None = None
    record_lines: dict[str, list[str]] = field(default_factory=dict)
    basename_index: dict[str, list[str]] | None = None
    resolved: dict[tuple[str, str], Resolved] = field(default_factory=dict)
    path_refs: list[RefSite] | None = None
    project_names: Names | None = None
    vendored_roots: tuple[str, ...] | None = None
    # analysis/ids.py
    id_vocabulary: IdVocabulary | None = None
    ids_in_messages: frozenset[str] | None = None
    # analysis/hexes.py: hex tokens the records write as another project's
    foreign_shas: dict[str, frozenset[str]] | None = None
    file_lines: dict[str, list[str] | None] = field(default_factory=dict)
    # analysis/stale.py
    stale_groups: list[StaleGroup] | None = None
    stale_todo: list[tuple[Statement, list[Any]]] | None = None  # the statements tested, with their detectors
    # analysis/states.py and analysis/claims.py: every state and claim the records write (their own types)
    states: object = None
    statement_texts: Any = None  # claims._naming's index: every statement's text joined, with where each starts
    claims: object = None
    # checks/path_missing.py: deletions and renames on the linted history, loaded once; near-miss paths
    path_fates: PathFates | None = None
    path_fates_loaded: bool = False
    # analysis/gone.py: per record, the paths it plans to remove or tells how to restore
    removal_planned: dict[str, frozenset[str]] | None = None
    close_matches: dict[str, str | None] = field(default_factory=dict)
    paths_by_depth: dict[int, list[str]] | None = None
    # checks/directive_landed.py: the newest commit on or before an as-of point
    landed_base: dict[tuple[str, str], str | None] = field(default_factory=dict)
    issue_commits: dict[str, list[Commit]] | None = None  # RL101: issue number -> commits that settle it
    work_matches: dict[Hashable, Any] = field(default_factory=dict)  # RL101: (terms, commit work, forms) -> match
    landed: dict[int, Reason | None] = field(default_factory=dict)  # id(directive) -> its RL101 reason, once tested
    # analysis/landing.py: work-term weights and postings over the history; statements the records mark done
    work_weights: WorkWeights | None = None
    done_statements: dict[str, list[tuple[Statement, frozenset[str]]]] | None = None
    changed_paths: dict[str, tuple[str, ...]] = field(default_factory=dict)  # commit sha -> paths it changed
    declared_terms: dict[str, frozenset[str]] = field(default_factory=dict)  # commit sha -> names it declares
    path_commits: dict[str, set[str]] | None = None  # path -> shas that changed it
    reverts: Reverts | None = None  # analysis/reverts.py: the commits a later revert took out, and the reverts
    # analysis/default_flips.py: per set of flags, flag -> the commits whose diff flipped its default
    default_flips: dict[frozenset[str], dict[str, list[Flip]]] = field(default_factory=dict)
    opt_in_flags: frozenset[str] | None = None  # checks/default_changed.py
    # checks/figure_unbacked.py: evidence path -> (field path, value) for every number it holds
    evidence_numbers: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    # analysis/evidence_index.py: every figure the records quote, the figures of each evidence entry (by path),
    # the evidence series names, and each table row (record path -> line -> (table, cells))
    figure_quotes: list[Quote] | None = None
    evidence_figures: dict[str, list[EvidenceFigure]] = field(default_factory=dict)
    series_finder: SeriesFinder | None = None
    cell_rows: dict[str, dict[int, tuple[Table, tuple[Statement, ...]]]] = field(default_factory=dict)
    # analysis/repeated_run.py: record path -> the dated evidence entries its statements cite
    cited_in_record: dict[str, list[EvidenceEntry]] = field(default_factory=dict)
    # checks/figure_unbacked.py: id(statement) -> its figure quotes
    quotes_by_statement: dict[int, list[Quote]] | None = None
