"""The lint runner: config -> records -> facts -> checks -> findings (suppressed, selected, filtered).

    result = lint(Path("."), LintOptions(select=("RL3",), at="v1.2"))
    for f in result.findings: ...

History and evidence are built lazily (`ctx.get_history()`), so deselected history rules cost nothing.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from roadmap import runcache
from roadmap.analysis.context import LintContext
from roadmap.analysis.asof import finish_blame
from roadmap.analysis.stale import PRIORITY, STALE_RULES, applying, early_blame, ordered, reads_history, set_todo
from roadmap.analysis.states import states
from roadmap.config import Config, load_config, with_fallback_records
from roadmap.errors import RuleCrashed, UsageError
from roadmap.findings import SEVERITIES, Finding
from roadmap.history import forked
from roadmap.history.git import GitError, resolve_rev, run_git
from roadmap.history.tree import Tree
from roadmap.records.loader import annotated_with_table_ids, gc_paused, load_annotated
from roadmap.registry import DETECTORS, Rule, all_rules
from roadmap.selection import Layer, per_file_ignored, resolve
from roadmap.suppress import apply_suppressions


@dataclass(frozen=True)
class LintOptions:
    select: tuple[str, ...] = ()  # code prefixes to run (empty: what the config selects)
    ignore: tuple[str, ...] = ()  # code prefixes not to run (besides the config's `ignore`)
    extend_select: tuple[str, ...] = ()  # code prefixes to run besides the selected ones
    at: str | None = None  # lint the records as they were at this revision
    since: str | None = None  # only findings on record lines changed since this revision
    only_paths: tuple[str, ...] = ()  # repo-relative files/dirs: report findings in these records only
    use_cache: bool = True
    config_file: Path | None = None
    run_cache: bool = False  # reuse a whole run's result when nothing it read changed (roadmap/runcache.py);
    # such a result has no context (`roadmap lint` needs none, `report` does)


@dataclass
class LintResult:
    root: Path
    head: str | None
    findings: list[Finding]
    rules: list[Rule]  # the rules that ran
    records: int = 0
    statements: int = 0
    suppressed: int = 0
    elapsed_s: float = 0.0
    context: LintContext | None = field(default=None, repr=False)
    config: Config | None = field(default=None, repr=False)
    from_cache: bool = False  # the result of an earlier identical run (roadmap/runcache.py)

    def summary(self) -> dict[str, int]:
        counts = Counter(f.severity for f in self.findings)
        return {s: counts.get(s, 0) for s in SEVERITIES}

    def statistics(self) -> list[tuple[str, str, int]]:
        """(code, name, count) per code, most frequent first."""
        counts = Counter((f.code, f.name) for f in self.findings)
        return sorted(((c, n, k) for (c, n), k in counts.items()), key=lambda t: (-t[2], t[0]))


def parse_codes(value: str | None) -> tuple[str, ...]:
    """`RL3,rl401 , RL9` -> ("RL3", "RL401", "RL9")."""
    return tuple(c.strip().upper() for c in (value or "").split(",") if c.strip())


def select_rules(options: LintOptions, config: Config) -> list[Rule]:
    """The config's select/extend-select/ignore, then the command line's (roadmap/selection.py)."""
    rules = all_rules()
    cli = Layer(
        "the command line", select=options.select or None, extend_select=options.extend_select, ignore=options.ignore
    )
    on = set(resolve([r.code for r in rules], [Layer.of(config), cli]))
    chosen = [r for r in rules if r.code in on]
    if not chosen:
        raise UsageError(
            "--select/--ignore (with select/ignore in the config) leave no rule to run; run "
            "`roadmap rule` to list the rule codes"
        )
    return chosen


def head_sha(root: Path, at: str | None) -> str | None:
    """The commit linted against: `at` resolved, else HEAD (None in a repository without commits)."""
    if at is not None:
        return resolve_rev(root, at)
    try:
        return resolve_rev(root, "HEAD")
    except GitError:
        return None


def lint(root: Path, options: LintOptions = LintOptions(), config: Config | None = None) -> LintResult:
    started = time.perf_counter()
    root = Path(root)
    if config is None:
        config = load_config(root, options.config_file)
    rules = select_rules(options, config)
    head = head_sha(root, options.at)
    if options.at is not None and head is None:
        raise UsageError(f"--at {options.at}: not a commit")
    since = head_sha(root, options.since) if options.since is not None else None
    tree = Tree(root, rev=head if options.at is not None else None, max_bytes=config.max_file_bytes)
    config = with_fallback_records(config, tree.files)
    key = _run_key(root, config, head, since, rules, options)
    if key is not None:
        hit = runcache.load(root, key, tree, head)
        if hit is not None:
            return LintResult(
                root=root,
                head=hit.head,
                findings=hit.findings,
                rules=rules,
                records=hit.records,
                statements=hit.statements,
                suppressed=hit.suppressed,
                elapsed_s=time.perf_counter() - started,
                config=config,
                from_cache=True,
            )
    selected = frozenset(r.code for r in rules)
    detectors = ordered(DETECTORS[c] for c in PRIORITY if c in selected and c in DETECTORS)
    # the statements the stale analysis tests are picked by the process that parses their record (on both cores)
    loaded = load_annotated(
        tree,
        config,
        cache_dir=root if options.use_cache else None,
        annotate=applying(detectors) if detectors else None,
        split=forked.run_split if forked.enabled() else None,
    )
    # records that name a tracker key a table defines, parsed again (on both cores): annotated again
    config, loaded = annotated_with_table_ids(
        tree,
        config,
        loaded,
        cache_dir=root if options.use_cache else None,
        annotate=applying(detectors) if detectors else None,
        split=forked.run_split if forked.enabled() else None,
    )
    records = [rf for rf, _ in loaded]
    ctx = LintContext(
        root=root,
        config=config,
        records=records,
        tree=tree,
        head=head,
        at=options.at,
        selected=selected,
        known_codes=frozenset(r.code for r in all_rules()),
        detectors=detectors,
        use_cache=options.use_cache,
    )
    if detectors:
        set_todo(ctx, loaded)

    with gc_paused():  # the rules allocate per statement too; see roadmap/records/loader.py
        findings = _run_checks(ctx, [r for r in rules if r.phase == "check"])
    sup = apply_suppressions(findings, records)
    ctx.facts.suppressions_used = sup.used
    late = apply_suppressions(_run(ctx, [r for r in rules if r.phase == "post"]), records)
    kept = [f for f in sup.kept + late.kept if not per_file_ignored(f, config)]
    if options.only_paths:
        kept = [f for f in kept if _under(f.path, options.only_paths)]
    if since is not None:
        kept = filter_since(
            kept,
            changed_lines(root, since, head if options.at is not None else None, sorted({rf.path for rf in records})),
        )
    kept = sorted(_dedupe(kept), key=Finding.sort_key)
    result = LintResult(
        root=root,
        head=head,
        findings=kept,
        rules=rules,
        records=len(records),
        statements=sum(len(rf.statements) for rf in records),
        suppressed=len(sup.suppressed) + len(late.suppressed),
        elapsed_s=time.perf_counter() - started,
        context=ctx,
        config=config,
    )
    if key is not None:
        runcache.store(
            root, key, tree, runcache.CachedRun(head, kept, result.records, result.statements, result.suppressed)
        )
    return result


def _run_key(
    root: Path, config: Config, head: str | None, since: str | None, rules: list[Rule], options: LintOptions
) -> str | None:
    """The run cache key (roadmap/runcache.py), or None when this run neither reads nor writes that cache."""
    if not (options.run_cache and options.use_cache) or head is None:
        return None
    return runcache.run_key(
        root,
        config,
        head,
        {
            "rules": [r.code for r in rules],
            "at": options.at is not None,
            "since": since,
            "only": list(options.only_paths),
        },
    )


def _run(ctx: LintContext, rules: list[Rule]) -> list[Finding]:
    out: list[Finding] = []
    for r in rules:
        try:
            out.extend(hit.stamp(r.code, r.name, r.severity) for hit in r.func(ctx))
        except (GitError, UsageError):
            raise
        except Exception as exc:  # a bug in a rule: name it instead of a bare traceback
            raise RuleCrashed(r.code, exc) from exc
    return out


def _run_checks(ctx: LintContext, rules: list[Rule]) -> list[Finding]:
    """_run over the check rules, the ones that read no stale analysis in a forked child (history/forked.py) while
    this process runs the stale directive rules, whose analysis is most of a long run. The findings come in the
    rules' order, as a serial run gives them, and a rule that raises raises here in that order too."""
    stale = [r for r in rules if r.code in STALE_RULES]
    rest = [r for r in rules if r.code not in STALE_RULES]
    if not stale or not rest or not forked.enabled():
        return _run(ctx, rules)
    _shared(ctx)
    ours, theirs = forked.run_split(lambda: _outcomes(ctx, stale), lambda: _outcomes(ctx, rest))
    by_code = {**ours, **theirs}
    out: list[Finding] = []
    for r in rules:
        got = by_code[r.code]
        if isinstance(got, BaseException):
            raise got
        out.extend(got)
    return out


def _shared(ctx: LintContext) -> None:
    """Build the history before the fork shares it, when the stale analysis will read it (history stays lazy: a
    run that never reads it never builds it). One that cannot be built is left for the rules that need it to fail
    on, as they would in a serial run. The record files the analysis blames in any case are blamed first, while
    the statements it tests are picked, and collected before the history pass forks (analysis/stale.py)."""
    early_blame(ctx)
    try:
        history = reads_history(ctx)
        if "RL401" in ctx.selected:
            states(ctx)  # RL401 reads it here, RL403 in the forked child: worked out once, while the blames run
    finally:
        finish_blame(ctx)
    if history:
        try:
            ctx.get_history()
        except GitError:
            pass


def _outcomes(ctx: LintContext, rules: list[Rule]) -> dict[str, list[Finding] | BaseException]:
    """Each rule's findings, or the exception it raised (rules after it are not run, as in a serial run)."""
    out: dict[str, list[Finding] | BaseException] = {}
    for r in rules:
        try:
            out[r.code] = _run(ctx, [r])
        except Exception as exc:
            out[r.code] = exc
            break
    return out


def _under(path: str, prefixes: tuple[str, ...]) -> bool:
    return any(p in ("", ".") or path == p or path.startswith(p.rstrip("/") + "/") for p in prefixes)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str, int, int, str]] = set()
    out = []
    for f in findings:
        k = (f.code, f.path, f.line, f.end_line, f.message)
        if k not in seen:
            seen.add(k)
            out.append(f)
    return out


_HUNK_RE = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def changed_lines(root: Path, since: str, at: str | None, paths: list[str]) -> dict[str, list[tuple[int, int]] | None]:
    """Record lines changed since `since` (in the working tree, or at `at`): path -> [(first, last)], or
    None for a file that is new since then (every line counts)."""
    if not paths:
        return {}
    before = set(
        run_git(root, "ls-tree", "-r", "-z", "--name-only", "--end-of-options", since)
        .decode("utf-8", "surrogateescape")
        .split("\0")
    )
    out: dict[str, list[tuple[int, int]] | None] = {p: None for p in paths if p not in before}
    revs = [since] + ([at] if at else [])
    diff = run_git(
        root,
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--no-renames",
        "--no-color",
        "-U0",
        "--end-of-options",
        *revs,
        "--",
        *[p for p in paths if p in before],
    )
    current: str | None = None
    for line in diff.decode("utf-8", "surrogateescape").splitlines():
        if line.startswith("+++ "):
            name = line[4:]
            if name.startswith('"'):
                # C-quoted by git: octal escapes are UTF-8 bytes
                name = name[1:-1].encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8", "replace")
            current = name[2:] if name.startswith("b/") else None
        elif line.startswith("@@") and current is not None:
            m = _HUNK_RE.match(line)
            if m:
                start, count = int(m.group(1)), int(m.group(2) or "1")
                if count:
                    out.setdefault(current, [])
                    ranges = out[current]
                    if ranges is not None:
                        ranges.append((start, start + count - 1))
    return out


def filter_since(findings: list[Finding], changed: dict[str, list[tuple[int, int]] | None]) -> list[Finding]:
    kept = []
    for f in findings:
        if f.path not in changed:
            continue
        ranges = changed[f.path]
        if ranges is None or any(a <= f.end_line and f.line <= b for a, b in ranges):
            kept.append(f)
    return kept
