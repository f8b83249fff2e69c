"""Typed statements parsed from markdown records: the only thing checks read about the records.

Every statement carries its exact 1-based line span so findings, suppressions and fixes can point at it.
"""

from __future__ import annotations

from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Figure:
    """A number the text quotes: `6831.71 tok/s`, `1.0283x`, `42.20 ms/call`, `+3.1%`."""

    value: float
    text: str  # exactly as written, e.g. "1.0283x"
    unit: str | None  # normalised unit: "tok/s", "x", "%", "ms", "s", "GiB", "req/s", ... or None
    metric: str | None  # normalised metric words near it, e.g. "throughput", "ttft p50", or None
    start: int = 0  # character offset in Statement.text


@dataclass(frozen=True)
class PathRef:
    """A reference to a file in the repository, possibly to lines or a symbol in it."""

    path: str  # repo-relative posix path as written (no leading ./)
    line: int | None = None  # first line referenced (1-based) or None
    end_line: int | None = None
    symbol: str | None = None  # `path::Symbol`, or the code symbol written right beside a path:line
    text: str = ""  # the reference exactly as written
    form: str = "colon"  # "colon" (path:10-20), "hash" (path#L10-L20), "link" ([t](path#L10)), "symbol" (path::Sym), "bare" (path)
    # Where `text` is written in the record (records/spans.py): its 1-based line, and the character offsets
    # [start_col, end_col) on that line (lines split on "\n" only). None when it could not be placed exactly
    # (markup between its characters): such a reference is never fixed.
    record_line: int | None = None
    start_col: int | None = None
    end_col: int | None = None


@dataclass(frozen=True)
class Mentions:
    """Everything a statement names that a fact can confirm or contradict."""

    ids: tuple[str, ...] = ()  # row ids, whole-token, by the configured id patterns
    claims: tuple[str, ...] = ()  # claim ids (e.g. CLAIM-LOCAL-BF16-H32-AOT)
    symbols: tuple[str, ...] = ()  # backticked code symbols / flags (`AsyncDeviceInputs`, `--no-async`)
    env_vars: tuple[str, ...] = ()  # VT_ASYNC_DEVICE_MIRROR=0 -> "VT_ASYNC_DEVICE_MIRROR"
    shas: tuple[str, ...] = ()  # 7..40 hex commit abbreviations, lower case
    dates: tuple[str, ...] = ()  # ISO dates YYYY-MM-DD in text order
    figures: tuple[Figure, ...] = ()
    paths: tuple[PathRef, ...] = ()
    evidence: tuple[
        str, ...
    ] = ()  # evidence entries named (dir/file names under the evidence root, or bare 20260727-slug)


@dataclass(frozen=True)
class Statement:
    path: str  # repo-relative posix path of the record file
    line: int  # 1-based first line
    end_line: int  # 1-based last line (inclusive)
    kind: str  # "cell" | "item" | "heading" | "paragraph"
    text: str  # plain text (markup removed, struck-through text removed)
    raw: str  # the source text of the lines/cell as written
    section: tuple[str, ...] = ()  # enclosing heading titles, outermost first
    row_id: str | None = None  # the row/claim this statement belongs to (id cell of its table row, or item title id)
    column: str | None = None  # for table cells: the header name
    table_row: int | None = None  # for table cells: index of the row within its table
    item_number: int | None = None  # for ordered list items: the number as written
    mentions: Mentions = field(default_factory=Mentions)
    directive: bool = (
        False  # asks for work (imperative start, directive column/section, "Next owner must", "Next:", TODO)
    )
    historical: bool = False  # explicitly past/superseded; never read as a current claim
    as_of: "AsOf | None" = None  # what the record says it was written from (base sha or date), if it names one
    defines: str | None = None  # the row/claim id this statement defines (id cell of a table row, id-led title)
    directive_text: str | None = None  # the part that asks for work ("Next owner must ..."), when directive
    history: str = ""  # why the record's structure makes it history ("a log", "section 'History'"), else ""


@dataclass(frozen=True)
class AsOf:
    """What a statement was written from: a base commit the record names, or a date."""

    sha: str | None = None
    date: str | None = None  # YYYY-MM-DD
    source: str = ""  # "statement" | "row" (a date/as-of column of the cell's row) | "section" | "preamble"


@dataclass(frozen=True)
class Table:
    path: str
    line: int  # header line
    end_line: int
    section: tuple[str, ...]
    headers: tuple[str, ...]
    rows: tuple[tuple[Statement, ...], ...]  # the cell statements of each body row, in header order
    id_column: int | None = None  # index of the header that names row ids (ID/Row/Key/...), if any

    def column(self, *names: str) -> int | None:
        """Index of the first header equal (case-insensitively) to one of `names`, else None."""
        wanted = {n.strip().lower() for n in names}
        return next((i for i, h in enumerate(self.headers) if h.strip().lower() in wanted), None)


@dataclass(frozen=True)
class Suppression:
    """`<!-- roadmap: disable-next-line RL201 -- reason -->` and friends."""

    path: str
    line: int  # line of the comment
    action: str  # "disable-next-line" | "disable" | "enable" | "disable-file"
    codes: tuple[str, ...]  # empty = all codes
    reason: str = ""
    target_line: int | None = None  # for disable-next-line: the next non-blank line, which it covers


@dataclass(frozen=True)
class Problem:
    """Input the parser could not read as intended: becomes a finding with a location, never a crash."""

    path: str
    line: int
    message: str
    severity: str | None = None  # None: the rule's default (RL001: warning); "info" for files skipped on purpose


@dataclass
class RecordFile:
    path: str
    text: str  # decoded text ("" when unreadable)
    statements: list[Statement] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    preamble_as_of: AsOf | None = None


_TEMPLATES: dict[type, tuple[dict[str, Any], frozenset[str]]] = {}


def built(cls: type[T], values: dict[str, Any]) -> T:
    """`cls(**values)` for a frozen dataclass, made in one step: the generated __init__ sets each field through
    object.__setattr__, which for the 150,000 cells of a 50,000-row table was a tenth of the parse
    (tests/roadmap/test_safety_scale.py). Fields `values` leaves out take their defaults; the object is equal,
    hashes, pickles and prints as the one __init__ makes, its fields in the same order."""
    known = _TEMPLATES.get(cls)
    if known is None:
        if not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            raise TypeError(f"{cls.__name__} is not a frozen dataclass: a shared default could be changed")
        every = fields(cls)  # type: ignore[arg-type]
        template = {f.name: _default(f) for f in every}  # a required field's None is always overwritten
        required = frozenset(f.name for f in every if f.default is MISSING and f.default_factory is MISSING)
        known = _TEMPLATES[cls] = (template, required)
    template, required = known
    if not values.keys() >= required:
        return cls(**values)  # raises the TypeError __init__ raises for a missing field
    obj = object.__new__(cls)
    state = obj.__dict__
    state.update(template)
    state.update(values)
    if len(state) != len(template):
        return cls(**values)  # raises the TypeError __init__ raises for a field the class does not have
    return obj


def _default(f: Field[Any]) -> Any:
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return None
