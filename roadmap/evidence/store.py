"""The evidence store: every evidence dir/file under the evidence root, read through a Tree (so `--at REV` works).

A `result.json` (or a `.json` file entry) that declares one of our schemas (`"schema": "evident.bench/1"`, see
roadmap/evidence/schema.py) is validated and read by its fields; a dated folder without a result.json keeps its
result in its only JSON file or in one named like a summary (`summary.json`, `metrics.json`). Evidence other teams keep is evidence too: JSON
that declares no schema of ours is kept as it is (`raw`, its numbers read by roadmap/analysis/evidence_figures.py)
and never validated; a summary without JSON is read as text. Either way date and series come from the name
(`20260727-slug` or `slug-20260727`, dir or file). JSON that does not parse is a problem whoever wrote it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from roadmap import safejson
from roadmap.evidence import schema
from roadmap.evidence.cache import SchemaCache

if TYPE_CHECKING:
    from roadmap.config import Config
    from roadmap.history.tree import Tree

_DATE = r"(\d{8}|\d{4}-\d{2}-\d{2})"
_FIRST = re.compile(rf"^{_DATE}(?:[-_](.+))?$")
_LAST = re.compile(rf"^(.+?)[-_]{_DATE}$")
_EXTS = {"md", "json", "jsonl", "txt", "csv", "tsv", "png", "svg", "log", "html", "yaml", "yml", "pdf"}
_ROW_LINE = re.compile(r"(?im)^[\s>*-]*\**row(?: id)?\**\s*[:=]\s*\**`?([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)")
_MAX_JSON = 16 * 1024 * 1024
_ID = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+")


@dataclass
class EvidenceEntry:
    path: str  # repo-relative path of the dir or file
    name: str  # its last path component
    kind: str  # "dir" | "file"
    date: str | None  # YYYY-MM-DD: from the name, else from result.json `created`
    slug: str  # the name without its date (and a file's extension)
    series: str  # result.json `series`, else the slug
    row: str | None = None  # result.json `row`, else a `Row: ID` line in its markdown
    commit: str | None = None
    dirty: bool | None = None
    created: str | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    runs: list[Any] = field(default_factory=list)
    peers: list[Any] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    raw: dict[str, Any] | None = None  # the parsed result.json (ours or foreign), when it is a JSON object
    declared: str | None = None  # the schema of ours it declares ("evident.bench/1"); None: foreign evidence
    files: tuple[str, ...] = ()  # repo-relative files of a dir entry (the file itself for a file entry)

    @property
    def result_path(self) -> str | None:
        want = f"{self.path}/result.json" if self.kind == "dir" else self.path
        return want if want in self.files and want.endswith(".json") else None


class EvidenceStore:
    def __init__(self, root: str, entries: list[EvidenceEntry], ignored: list[str] | None = None):
        self.root = root
        self.entries = sorted(entries, key=lambda e: (e.date or "", e.name))
        self.ignored = ignored or []  # names under the root that are not evidence (README.md, ...)
        self._by_name = {e.name: e for e in self.entries}
        self._by_name.update({e.path: e for e in self.entries})
        for e in self.entries:  # a file entry is cited without its extension too: `slug-20260405`
            if e.kind == "file" and "." in e.name:
                self._by_name.setdefault(e.name.rsplit(".", 1)[0], e)
        self.by_series: dict[str, list[EvidenceEntry]] = {}
        self.by_row: dict[str, list[EvidenceEntry]] = {}
        for e in self.entries:
            self.by_series.setdefault(e.series, []).append(e)
            if e.row:
                self.by_row.setdefault(e.row, []).append(e)

    def __iter__(self) -> Iterator[EvidenceEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def get(self, name: str) -> EvidenceEntry | None:
        """By name (`20260727-slug`, a file's with or without its extension), repo path, or a name written with
        the root or a trailing slash."""
        key = name.strip().rstrip("/")
        return self._by_name.get(key) or self._by_name.get(key.rsplit("/", 1)[-1])

    def after(self, date: str, *, series: str | None = None, row: str | None = None) -> list[EvidenceEntry]:
        """Entries dated strictly after `date` (YYYY-MM-DD), optionally of one series or row."""
        pool = self.by_series.get(series, []) if series else self.by_row.get(row, []) if row else self.entries
        return [e for e in pool if e.date and e.date > date]

    def latest(self, series: str) -> EvidenceEntry | None:
        pool = self.by_series.get(series)
        return pool[-1] if pool else None


def parse_name(name: str, naming: str = "any", strip_ext: bool = False) -> tuple[str, str] | None:
    """("YYYY-MM-DD", slug) from `20260727-slug` / `slug-20260727` (per `naming`), or None."""
    stem = name
    if strip_ext and "." in name and name.rsplit(".", 1)[1].lower() in _EXTS:
        stem = name.rsplit(".", 1)[0]
    candidates = []
    if naming in ("any", "date-first"):
        m = _FIRST.match(stem)
        if m:
            candidates.append((m.group(1), m.group(2) or ""))
    if naming in ("any", "date-last"):
        m = _LAST.match(stem)
        if m:
            candidates.append((m.group(2), m.group(1)))
    for raw_date, slug in candidates:
        iso = _iso(raw_date)
        if iso:
            return iso, slug
    return None


def _iso(d: str) -> str | None:
    digits = d.replace("-", "")
    if len(digits) != 8 or not digits.isdigit():
        return None
    try:
        day = date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
    except ValueError:
        return None
    return day.isoformat() if 1990 <= day.year <= 2199 else None


# Where evidence is looked for when the configured root is the default one and holds no file: the folders teams
# keep benchmark results in (`bench/<series>/<date>.json`, `perf/<date>/<series>.json`), at the top level first,
# then one or two folders down (`loadtest/results/`, `docs/benchmarks/`). The first that holds a dated entry is
# the root.
DEFAULT_ROOT = "docs/bench-evidence"
FALLBACK_ROOTS = ("bench", "benches", "benchmarks", "perf", "results", "evidence")
MAX_FALLBACK_DEPTH = 3  # folders in a fallback root's path: loadtest/results, docs/perf/results
MAX_FALLBACKS = 8  # candidate roots tried, in order


def _fallback_roots(files: Iterable[str]) -> list[str]:
    """Folders named like FALLBACK_ROOTS that hold files: top-level ones in FALLBACK_ROOTS order, then deeper
    ones, shallowest first, then by name."""
    found: set[str] = set()
    for f in files:
        parts = f.split("/")[:-1]
        for i, part in enumerate(parts[:MAX_FALLBACK_DEPTH]):
            if part in FALLBACK_ROOTS:
                found.add("/".join(parts[: i + 1]))
    top = [r for r in FALLBACK_ROOTS if r in found]
    return (top + sorted(found - set(top), key=lambda r: (r.count("/"), r)))[:MAX_FALLBACKS]


# Run folders are kept wherever a team keeps them (`runs/20260519-poisson512-128r/result.json`,
# `experiments/2026-05-19_sweep/metrics.json`): when no usual folder holds a dated entry, a folder that directly
# holds dated folders with a result file of these names is a root too, the one holding most of them first.
_RESULT_STEMS = ("result", "results", "summary", "metrics", "stats", "bench", "benchmark")
_NOT_RUNS = ("node_modules", "vendor", "third_party", "site-packages", "test", "tests", "testdata", "fixtures")
MAX_RUN_ROOT_DEPTH = 3  # folders in a discovered root's path: runs, bench/runs, docs/perf/runs
MAX_RUN_ROOTS = 4  # discovered roots tried, in order


def _run_folder_roots(files: Iterable[str]) -> list[str]:
    """Folders (MAX_RUN_ROOT_DEPTH deep at most, none hidden, vendored or test data) whose dated sub-folders hold
    a result file (`result.json`, `metrics.json`, ...): most such folders first, then shallowest, then by name."""
    runs: dict[str, set[str]] = {}
    for f in files:
        parts = f.split("/")
        if len(parts) < 3 or len(parts) - 2 > MAX_RUN_ROOT_DEPTH or not parts[-1].lower().endswith(".json"):
            continue
        if parts[-1][: -len(".json")].lower() not in _RESULT_STEMS:
            continue
        folders = parts[:-1]
        if any(p.startswith(".") or p.lower() in _NOT_RUNS for p in folders):
            continue
        parsed = parse_name(folders[-1])
        if parsed is None:
            continue
        # a folder named by a date alone sits in its series' folder (`runs/poisson512/2026-05-19/`): the root is
        # above that one, which groups the series
        above = 2 if not parsed[1] and len(folders) > 2 else 1
        runs.setdefault("/".join(folders[:-above]), set()).add("/".join(folders[-above:]))
    ranked = sorted(runs, key=lambda r: (-len(runs[r]), r.count("/"), r))
    return ranked[:MAX_RUN_ROOTS]


def load_evidence(tree: "Tree", config: "Config", cache_dir: str | Path | None = None) -> EvidenceStore:
    """Every entry under the evidence root of `tree`. With `cache_dir` (the directory holding
    `.roadmap_cache/`), schema verdicts are looked up by content (roadmap/evidence/cache.py)."""
    root = config.evidence.root.strip("/")
    if root == DEFAULT_ROOT and not any(f.startswith(root + "/") for f in tree.files):
        usual = _fallback_roots(tree.files)
        for candidate in usual + [r for r in _run_folder_roots(tree.files) if r not in usual]:
            store = _load(tree, config, cache_dir, candidate)
            if any(e.date for e in store):
                return store
        for candidate in _undated_run_roots(tree.files):
            store = _load_undated(tree, cache_dir, candidate)
            if any(e.date for e in store):
                return store
    return _load(tree, config, cache_dir, root)


# Run folders named by the run alone (`runs/exp-07/metrics.json`, `experiments/baseline-lr3e-4/results.json`): when
# no folder holds dated evidence, a folder named like a home of runs whose sub-folders (MIN_UNDATED_RUNS of them at
# least) each hold a result file is the root, and each run is dated by the commit that added its result file.
_RUN_HOMES = ("runs", "run", "experiments", "experiment", "exps", "exp", "results", "outputs", "evals", "expériences")
MIN_UNDATED_RUNS = 2


def _undated_run_roots(files: Iterable[str]) -> list[str]:
    """Folders named like _RUN_HOMES (MAX_RUN_ROOT_DEPTH deep at most, none hidden, vendored or test data) whose
    undated sub-folders hold a result file directly: most such folders first, then shallowest, then by name."""
    runs: dict[str, set[str]] = {}
    for f in files:
        parts = f.split("/")
        if len(parts) < 3 or len(parts) - 2 > MAX_RUN_ROOT_DEPTH or not _result_file(parts[-1]):
            continue
        folders = parts[:-1]
        if folders[-2].lower() not in _RUN_HOMES or parse_name(folders[-1]) is not None:
            continue
        if any(p.startswith(".") or p.lower() in _NOT_RUNS for p in folders):
            continue
        runs.setdefault("/".join(folders[:-1]), set()).add(folders[-1])
    ranked = sorted(
        (r for r in runs if len(runs[r]) >= MIN_UNDATED_RUNS), key=lambda r: (-len(runs[r]), r.count("/"), r)
    )
    return ranked[:MAX_RUN_ROOTS]


def _result_file(name: str) -> bool:
    low = name.lower()
    return low.endswith(".json") and low[: -len(".json")] in _RESULT_STEMS


def _load_undated(tree: "Tree", cache_dir: str | Path | None, root: str) -> EvidenceStore:
    """The run folders of `root`, each an entry dated by the commit that first added its result file (a run
    folder git does not know yet stays undated)."""
    cache = SchemaCache(cache_dir) if cache_dir is not None else None
    prefix = root + "/"
    groups: dict[str, list[str]] = {}
    for f in sorted(tree.files):
        if f.startswith(prefix) and "/" in f[len(prefix) :]:
            groups.setdefault(f[len(prefix) :].split("/", 1)[0], []).append(f)
    added = _added_on(tree, root)
    entries: list[EvidenceEntry] = []
    for name, files in groups.items():
        path = prefix + name
        results = [f for f in files if "/" not in f[len(path) + 1 :] and _result_file(f.rsplit("/", 1)[1])]
        if parse_name(name) is not None or len(results) != 1:
            continue
        entry = EvidenceEntry(
            path=path, name=name, kind="dir", date=added.get(results[0]), slug=name, series=name, files=tuple(files)
        )
        _read_result(tree, results[0], entry, cache)
        entries.append(entry)
    if cache is not None:
        cache.save()
    return EvidenceStore(root, entries)


def _added_on(tree: "Tree", root: str) -> dict[str, str]:
    """The day (committer's, YYYY-MM-DD) each file under `root` was first added in the linted revision's history."""
    from roadmap.history.git import GitError, run_git

    try:
        out = run_git(
            tree.root,
            "log",
            "--no-renames",
            "--diff-filter=A",
            "--name-only",
            "--format=%x00%cs",
            "--end-of-options",
            tree.rev or "HEAD",
            "--",
            root,
        )
    except GitError:
        return {}
    days: dict[str, str] = {}
    for chunk in out.decode("utf-8", "surrogateescape").split("\0")[1:]:
        day, _, names = chunk.partition("\n")
        for n in names.split("\n"):
            if n.strip():
                days[n.strip()] = day.strip()  # newest first: the oldest addition is written last
    return days


def _load(tree: "Tree", config: "Config", cache_dir: str | Path | None, root: str) -> EvidenceStore:
    cache = SchemaCache(cache_dir) if cache_dir is not None else None
    prefix = root + "/"
    groups: dict[str, list[str]] = {}
    plain: list[str] = []
    for f in sorted(tree.files):
        if not f.startswith(prefix):
            continue
        rest = f[len(prefix) :]
        if "/" in rest:
            groups.setdefault(rest.split("/", 1)[0], []).append(f)
        else:
            plain.append(f)
    entries: list[EvidenceEntry] = []
    ignored: list[str] = []
    _scan(tree, config, cache, prefix, groups, plain, "", 0, entries, ignored)
    if cache is not None:
        cache.save()
    return EvidenceStore(root, entries, ignored)


MAX_NESTING = 2  # folders of series above the dated entries: results/<metric>/<date>.json, evals/<run>/<task>/


def _scan(
    tree: "Tree",
    config: "Config",
    cache: SchemaCache | None,
    prefix: str,
    groups: dict[str, list[str]],
    plain: list[str],
    parent: str,
    depth: int,
    entries: list[EvidenceEntry],
    ignored: list[str],
) -> None:
    """The entries of one folder under the root. A folder that is no entry itself (no date in its name, no
    result.json) groups a series: its dated files and folders are that series' entries (`results/ppl/
    2026-09-06.json` is the ppl series of 2026-09-06; `evals/run-047/mmmu_val-2026-07-17.json` is
    run-047/mmmu_val), up to MAX_NESTING folders deep."""
    kinds = config.evidence.kinds
    naming = config.evidence.naming
    for name, files in groups.items():
        dated = _dated_folder_of_series(tree, prefix + name, name, files, naming, cache)
        if dated:  # perf/2026-02-10/regalloc-suite.json: one entry per series file, of the folder's date
            for each in dated:
                _in_series(each, parent)
            entries.extend(dated)
            continue
        entry = _dir_entry(tree, prefix + name, name, files, naming, cache) if kinds in ("any", "dir") else None
        if entry is not None:
            _in_series(entry, parent)
            entries.append(entry)
            continue
        before = len(entries)
        if depth < MAX_NESTING:
            inner = prefix + name + "/"
            sub: dict[str, list[str]] = {}
            subplain: list[str] = []
            for f in files:
                rest = f[len(inner) :]
                (sub.setdefault(rest.split("/", 1)[0], []).append(f) if "/" in rest else subplain.append(f))
            series = f"{parent}/{name}" if parent else name
            _scan(tree, config, cache, inner, sub, subplain, series, depth + 1, entries, [])
        if len(entries) == before and not parent:
            ignored.append(name)
    if kinds in ("any", "file"):
        for f in plain:
            name = f[len(prefix) :]
            entry = _file_entry(tree, f, name, naming, cache)
            if entry is not None:
                _in_series(entry, parent)
                entries.append(entry)
            elif not parent:
                ignored.append(name)


def _dated_folder_of_series(
    tree: "Tree", path: str, name: str, files: list[str], naming: str, cache: SchemaCache | None
) -> list[EvidenceEntry]:
    """A folder named by a date alone, with no result.json, holding JSON files named by series (and no dates):
    each file is that series' entry of the folder's date. Empty for any other folder."""
    parsed = parse_name(name, naming)
    if parsed is None or parsed[1] or f"{path}/result.json" in files:
        return []
    direct = [f for f in files if "/" not in f[len(path) + 1 :] and f.endswith(".json")]
    if not direct or any(parse_name(f.rsplit("/", 1)[1], naming, strip_ext=True) for f in direct):
        return []
    if len(direct) == 1 and direct[0].rsplit("/", 1)[1].lower() in _SUMMARY_NAMES:
        return []  # `<series>/2026-05-19/metrics.json`: the dated run's own result, not a series named "metrics"
    out = []
    for f in direct:
        stem = f.rsplit("/", 1)[1][: -len(".json")]
        entry = EvidenceEntry(
            path=f, name=f"{name}/{stem}", kind="file", date=parsed[0], slug=stem, series=stem, files=(f,)
        )
        _read_result(tree, f, entry, cache)
        out.append(entry)
    return out


def _in_series(entry: EvidenceEntry, parent: str) -> None:
    """An entry inside a series folder belongs to that series (and the slug its name adds)."""
    if parent and entry.series == entry.slug:
        entry.series = f"{parent}/{entry.slug}" if entry.slug else parent


def _dir_entry(
    tree: "Tree", path: str, name: str, files: list[str], naming: str, cache: SchemaCache | None
) -> EvidenceEntry | None:
    parsed = parse_name(name, naming)
    result_path = f"{path}/result.json"
    if parsed is None and result_path not in files:
        return None
    date, slug = parsed if parsed else (None, name)
    entry = EvidenceEntry(path=path, name=name, kind="dir", date=date, slug=slug, series=slug, files=tuple(files))
    json_path = result_path if result_path in files else _summary_json(path, files)
    if json_path is not None:
        _read_result(tree, json_path, entry, cache)
    if entry.row is None:
        entry.row = _row_from_markdown(tree, [f for f in files if f.endswith(".md")])
    return entry


# What a dated folder without a result.json calls its machine-readable result (another team's harness writes
# `results/2026-05-14_stmv-8gpu/summary.json` beside its raw logs).
_SUMMARY_NAMES = ("results.json", "summary.json", "metrics.json", "stats.json")


def _summary_json(path: str, files: list[str]) -> str | None:
    """The JSON file a dated folder keeps its result in, when it has no result.json: its only JSON file, or the
    one named like a summary (`summary.json`, `metrics.json`). None when several JSON files could be it."""
    direct = [f for f in files if f.endswith(".json") and "/" not in f[len(path) + 1 :]]
    if len(direct) == 1:
        return direct[0]
    named = [f for f in direct if f.rsplit("/", 1)[1].lower() in _SUMMARY_NAMES]
    return named[0] if len(named) == 1 else None


def _file_entry(tree: "Tree", path: str, name: str, naming: str, cache: SchemaCache | None) -> EvidenceEntry | None:
    parsed = parse_name(name, naming, strip_ext=True)
    if parsed is None:
        return None
    date, slug = parsed
    entry = EvidenceEntry(path=path, name=name, kind="file", date=date, slug=slug, series=slug, files=(path,))
    if name.endswith(".json"):
        _read_result(tree, path, entry, cache)
    elif name.endswith(".md"):
        entry.row = _row_from_markdown(tree, [path])
    return entry


def _read_result(tree: "Tree", path: str, entry: EvidenceEntry, cache: SchemaCache | None) -> None:
    data = tree.read_bytes(path)
    if data is None:
        skip = tree.skipped(path)
        if skip is not None and skip.on_purpose:
            return  # a symlink out of the tree: never read, reported as info by RL001
        entry.problems.append(f"{path}: {'not read: ' + skip.reason if skip else 'cannot be read'}")
        return
    try:
        # bounded: depth, integer digits, size, finite numbers only (roadmap/safejson.py)
        obj = safejson.loads(data, max_bytes=_MAX_JSON)
    except safejson.JsonError as exc:
        entry.problems.append(f"{path}: not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})")
        return
    declared = obj.get("schema") if isinstance(obj, dict) else None
    if not schema.is_ours(declared):
        _read_foreign(obj, entry)
        return
    assert isinstance(obj, dict) and isinstance(declared, str)
    entry.raw = obj
    entry.declared = declared
    problems = cache.problems(data, obj) if cache is not None else schema.validate_result(obj)
    entry.problems.extend(f"{path}: {msg}" for msg in problems)
    if isinstance(obj.get("series"), str) and obj["series"].strip():
        entry.series = obj["series"]
    entry.row = obj["row"] if isinstance(obj.get("row"), str) and obj["row"] else None
    entry.commit = obj.get("commit") if isinstance(obj.get("commit"), str) else None
    entry.dirty = obj.get("dirty") if isinstance(obj.get("dirty"), bool) else None
    entry.created = obj.get("created") if isinstance(obj.get("created"), str) else None
    metrics, runs, peers = obj.get("metrics"), obj.get("runs"), obj.get("peers")
    entry.metrics = metrics if isinstance(metrics, dict) else {}
    entry.runs = runs if isinstance(runs, list) else []
    entry.peers = peers if isinstance(peers, list) else []
    created_date = _iso(entry.created[:10]) if entry.created else None
    if entry.date is None:
        entry.date = created_date
    elif created_date and abs(_days(created_date) - _days(entry.date)) > 1:
        entry.problems.append(
            f"{path}: created {entry.created} but the name says {entry.date}; "
            "rename the evidence to the date it was taken"
        )


def _read_foreign(obj: Any, entry: EvidenceEntry) -> None:
    """Another team's JSON: kept for its numbers; its date and series stay the name's (a `series` or `date`
    field only fills in what the name lacks), never validated."""
    if not isinstance(obj, dict):
        return
    entry.raw = obj
    if not entry.slug and isinstance(obj.get("series"), str) and obj["series"].strip():
        entry.series = obj["series"].strip()
    row = obj.get("row")
    if isinstance(row, str) and _ID.fullmatch(row):
        entry.row = row
    if entry.date is None:
        for key in ("date", "created", "timestamp"):
            value = obj.get(key)
            day = _iso(value[:10]) if isinstance(value, str) else None
            if day:
                entry.date = day
                break


def _days(iso: str) -> int:
    return date.fromisoformat(iso).toordinal()


def _row_from_markdown(tree: "Tree", paths: list[str]) -> str | None:
    for p in paths[:4]:
        data = tree.read_bytes(p)
        if not data or len(data) > 256 * 1024:
            continue
        m = _ROW_LINE.search(data.decode("utf-8", "replace"))
        if m:
            return m.group(1)
    return None
