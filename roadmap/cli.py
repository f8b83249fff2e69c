"""`roadmap`: lint engineering records against git history and evidence.

Exit codes (roadmap/exits.py): 0 no finding at or above --fail-on, 1 findings, 2 usage/config/git error (one
line on stderr), 3 internal error (a bug in roadmap).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

import roadmap
from roadmap import exits
from roadmap.config import FAIL_ON
from roadmap.errors import RuleCrashed, UsageError
from roadmap.render import FORMATS

if TYPE_CHECKING:
    from roadmap.config import Config
    from roadmap.evidence.store import EvidenceEntry, EvidenceStore
    from roadmap.lint import LintResult
    from roadmap.target import Target

LINT_EPILOG = """\
examples:
  roadmap lint                          lint the records of the repository containing the current directory
                                        (from any subdirectory: the cwd never narrows what is linted)
  roadmap lint agents/roadmap.md        report findings in one record file (all records are still read)
  roadmap lint notes/plan.md            a named file is linted even when the `records` globs miss it
  roadmap lint --select RL3 --ignore RL303      only the reference rules, without anchor drift
  roadmap lint --output-format concise  one `path:line:col: CODE message` line per finding
  roadmap lint --output-format sarif -o roadmap.sarif  for GitHub code scanning
  roadmap lint --output-format github   annotations in a GitHub Actions log
  roadmap lint --output-format markdown >> "$GITHUB_STEP_SUMMARY"
  roadmap lint --since origin/main      only findings on record lines this branch changed
  roadmap lint --at v1.2                the records (and history) as they were at a revision
  roadmap lint --diff                   show the safe fixes as a diff; --fix applies them
  roadmap lint --write-baseline .roadmap-baseline.json   accept today's findings ...
  roadmap lint --baseline .roadmap-baseline.json         ... and fail only on new ones
  roadmap rule RL303                    what a rule checks, why, and how to fix it

{exit_status}
suppress one finding with <!-- roadmap: disable-next-line RL301 -- reason --> on the line above it;
also `disable CODES` ... `enable CODES`, and `disable-file CODES` (codes are prefixes; none = all).
"""


class CliError(UsageError):
    """A user mistake the CLI reports in one line (exit 2)."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="roadmap",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Lint engineering records (markdown roadmaps, punch-lists, coordination logs, benchmark "
        "records) against git history and benchmark evidence.",
        epilog="run `roadmap lint --help` for the linter's options and examples, `roadmap rule` for the rules.",
    )
    p.add_argument("--version", action="version", version=f"roadmap {roadmap.__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    lint = sub.add_parser(
        "lint",
        help="check the records and report stale or broken statements",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=LINT_EPILOG.format(exit_status=exits.HELP),
        description="Check the records of a git repository and report findings.",
    )
    lint.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="record files or directories to report (the whole repository is read as context); "
        "default: the repository containing the current directory",
    )
    lint.add_argument(
        "--output-format",
        "--format",
        dest="output_format",
        choices=FORMATS,
        default=None,
        metavar="FORMAT",
        help="full (`text` is its older name), concise, json, sarif, github or "
        "markdown; default: output_format from config, else full",
    )
    lint.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    lint.add_argument(
        "--select",
        metavar="CODES",
        help="comma-separated rule code prefixes to run, e.g. RL3,RL401 (replaces the config's select)",
    )
    lint.add_argument("--extend-select", metavar="CODES", help="rule code prefixes to run besides the selected ones")
    lint.add_argument("--ignore", metavar="CODES", help="comma-separated rule code prefixes not to run")
    lint.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default=None,
        help="lowest severity that makes the exit status 1 (default: fail_on from config, else error)",
    )
    lint.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when there are findings (2 and 3 still report errors)"
    )
    lint.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print the findings and nothing else (no summary line, no notes on stderr)",
    )
    lint.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour in the full and concise formats (auto: on a terminal, unless NO_COLOR is set)",
    )
    lint.add_argument(
        "--force-exclude",
        action="store_true",
        help="lint a named file only if the `records` globs select it and `exclude` does not (the "
        "pre-commit hook passes this with the changed files)",
    )
    fix = lint.add_mutually_exclusive_group()
    fix.add_argument(
        "--fix",
        action="store_true",
        help="apply safe fixes to the record files (only the lines the fixes name), then report what is left",
    )
    fix.add_argument(
        "--diff",
        action="store_true",
        help="print the safe fixes as a unified diff; change nothing (exit 1 when there is something to fix)",
    )
    lint.add_argument("--statistics", action="store_true", help="print the number of findings per rule code")
    lint.add_argument("--at", metavar="REV", help="lint the records as they were at REV (a sha, branch or tag)")
    lint.add_argument("--since", metavar="REV", help="report only findings on record lines changed since REV")
    lint.add_argument("--baseline", metavar="FILE", help="hide findings recorded in FILE (by fingerprint)")
    lint.add_argument("--write-baseline", metavar="FILE", help="record the current findings in FILE and exit 0")
    lint.add_argument(
        "--no-cache", action="store_true", help="do not read or write .roadmap_cache/ (history index, parsed records)"
    )
    lint.add_argument(
        "--config",
        metavar="FILE",
        help="config file (roadmap.yaml, or a TOML file with [tool.roadmap]); default: roadmap.yaml or pyproject.toml",
    )
    lint.set_defaults(func=cmd_lint)

    rule = sub.add_parser(
        "rule",
        help="explain a rule (all rules listed without CODE)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  roadmap rule           list every rule\n  roadmap rule RL301     "
        "what RL301 checks, why, an example and the fix",
    )
    rule.add_argument("code", nargs="?", metavar="CODE", help="a rule code such as RL301")
    rule.set_defaults(func=cmd_rule)

    rep = sub.add_parser(
        "report",
        help="the coordination report: rows, evidence trends, open directives, claims, "
        "findings as reconciliations (Markdown or one HTML file)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  roadmap report                          Markdown on stdout\n"
        "  roadmap report -o out/report.html       one self-contained HTML file\n"
        '  roadmap report -o "$GITHUB_STEP_SUMMARY"  a CI job summary (Markdown)',
    )
    rep.add_argument(
        "path",
        nargs="?",
        default=None,
        metavar="PATH",
        help="the repository (default: the one containing the current directory)",
    )
    rep.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    rep.add_argument(
        "--format",
        choices=("markdown", "html"),
        default=None,
        help="default: html when FILE ends in .html/.htm, else markdown",
    )
    rep.add_argument("--at", metavar="REV", help="the records (and history) as they were at REV")
    rep.add_argument("--no-cache", action="store_true", help="do not read or write .roadmap_cache/")
    rep.add_argument("--config", metavar="FILE", help="config file (default: roadmap.yaml or pyproject.toml)")
    rep.set_defaults(func=cmd_report)

    ev = sub.add_parser(
        "evidence",
        help="list or verify the benchmark evidence under the evidence root",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  roadmap evidence list                       every entry, oldest first\n"
        "  roadmap evidence list --series throughput-nano-qwen3-0.6b --format json\n"
        "  roadmap evidence verify                     exit 1 if any result.json is invalid, "
        "names\n                                              a commit not in history, or "
        "was taken dirty",
    )
    ev_sub = ev.add_subparsers(dest="action", metavar="ACTION")
    ev_sub.required = True
    for action, helptext in (
        ("list", "one line per evidence entry: date, name, series, row, commit, figure"),
        (
            "verify",
            "check every entry: result.json parses and follows the schema, its commit "
            "is on HEAD's history, it was not taken dirty",
        ),
    ):
        a = ev_sub.add_parser(action, help=helptext, description=helptext)
        a.add_argument("names", nargs="*", metavar="NAME", help="only these entries (name or path)")
        a.add_argument("--path", default=None, metavar="PATH", help="the repository (default: the one containing cwd)")
        a.add_argument("--series", help="only entries of this series")
        a.add_argument("--row", help="only entries for this row id")
        a.add_argument("--format", choices=("text", "json"), default="text")
        a.add_argument("--config", metavar="FILE", help="config file (default: roadmap.yaml or pyproject.toml)")
        a.set_defaults(func=cmd_evidence)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # No cyclic garbage collection while a command runs: it builds millions of long-lived acyclic objects
    # (records, history, facts), and each collection after roadmap/records/loader.py's gc_paused rescanned them all
    # (1.4 s of a cold lint of the 10,000-commit benchmark, in three collections). The command's few cycles are
    # collected once it is turned back on.
    was = gc.isenabled()
    gc.disable()
    try:
        code: int = args.func(args)
        return code
    except KeyboardInterrupt:
        return exits.INTERRUPTED
    except BrokenPipeError:
        return exits.OK
    except Exception as exc:  # one line on stderr: the fix for a user's mistake, a bug report for ours
        return _report_error(exc)
    finally:
        if was:
            gc.enable()


def _report_error(exc: Exception) -> int:
    code = exits.for_error(exc)
    if isinstance(exc, OSError):
        print(f"roadmap: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
    elif code == exits.USAGE:
        print(f"roadmap: error: {exc}", file=sys.stderr)
    else:
        if os.environ.get("ROADMAP_DEBUG"):
            traceback.print_exception(exc.__cause__ or exc)
        what = str(exc) if isinstance(exc, RuleCrashed) else f"{type(exc).__name__}: {exc}"
        skip = f", or skip the rule with --ignore {exc.code}" if isinstance(exc, RuleCrashed) else ""
        print(
            f"roadmap: internal error: {what}; this is a bug in roadmap, please report it (set ROADMAP_DEBUG=1 "
            f"for the traceback{skip})",
            file=sys.stderr,
        )
    return code


def _target(paths: list[str], config_file: str | None, command: str) -> tuple[Target, Config]:
    """The repository the PATHs (or the cwd) are in, and its config: --config, else found from the first PATH's
    directory (or the cwd) upward to the repository's root."""
    from roadmap.config import load_config
    from roadmap.target import locate

    target = locate(paths, command)
    return target, load_config(target.root, Path(config_file) if config_file else None, target.start)


def _fallback_note(used: Config | None) -> None:
    """One line on stderr when no config was given and the default globs found nothing: which globs were read."""
    from roadmap.config import FALLBACK_RECORDS

    if used is not None and used.records == FALLBACK_RECORDS:
        print(
            "roadmap: note: no file matches the default record globs (agents/, .agents/, .agent/); read every "
            "markdown file instead (README, CHANGELOG and the like, vendored code and tests excepted); set `records` in "
            "roadmap.yaml or [tool.roadmap] of pyproject.toml to choose",
            file=sys.stderr,
        )


def _no_records(root: Path, config: Config) -> CliError:
    return CliError(
        f"no record files match {', '.join(config.records)} in {root} (config: {config.source}); set "
        "`records` in [tool.roadmap] of pyproject.toml or in roadmap.yaml to the globs of your record files"
    )


def _color(args: argparse.Namespace) -> bool:
    if args.color != "auto":
        return bool(args.color == "always")
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return not args.output and sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


def _note(args: argparse.Namespace, line: str) -> None:
    if not args.quiet:
        print(f"roadmap: {line}", file=sys.stderr)


def _emit(args: argparse.Namespace, data: str | bytes) -> None:
    """The report on stdout, or in `-o FILE` written whole or not at all: a full disk or a crash mid-way leaves
    the old file, never an empty or truncated one (a pipe or device given as FILE is written directly)."""
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    if not args.output:
        sys.stdout.flush()
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()
        return
    from roadmap.safefs import write_atomic

    target = Path(args.output)
    if target.exists() and not target.is_file():
        with open(target, "wb") as fh:
            fh.write(raw)
        return
    target.parent.mkdir(parents=True, exist_ok=True)  # as ruff's --output-file: `-o out/report.html` just works
    write_atomic(target, raw, target.stat().st_mode & 0o7777 if target.exists() else None)


def cmd_lint(args: argparse.Namespace) -> int:
    from roadmap.baseline import filter_baseline, load_baseline, write_baseline
    from roadmap.fix import plan_fixes
    from roadmap.fixpoint import fix_to_fixed_point
    from roadmap.lint import LintOptions, lint, parse_codes
    from roadmap.render import render

    if (args.fix or args.diff) and args.at:
        raise CliError("--fix/--diff change the working tree, --at reads a past revision; drop one of them")
    target, config = _target(args.paths, args.config, "roadmap lint")
    config, narrowed, notes = target.apply(config, args.force_exclude)
    for line in notes:
        _note(args, line)
    if target.narrowed and not narrowed.narrowed:  # every named path was left out: nothing to report
        _note(args, "no record file among the named paths; nothing to lint")
        return exits.OK
    root = target.root
    options = LintOptions(
        select=parse_codes(args.select),
        extend_select=parse_codes(args.extend_select),
        ignore=parse_codes(args.ignore),
        at=args.at,
        since=args.since,
        only_paths=narrowed.only,
        use_cache=not args.no_cache,
        config_file=Path(args.config) if args.config else None,
        run_cache=not args.no_cache,
    )
    accepted = load_baseline(Path(args.baseline)) if args.baseline else None
    result = lint(root, options, config)
    if result.records == 0:
        raise _no_records(root, config)
    _fallback_note(result.config)
    fmt = args.output_format or config.output_format

    if args.diff:
        plan = plan_fixes(root, result.findings, config.max_file_bytes)
        # bytes (surrogateescape), so undecodable bytes of the record show in the diff exactly as on disk
        _emit(args, plan.diff())
        return exits.FINDINGS if plan.files and not args.exit_zero else exits.OK
    if args.fix:
        outcome = fix_to_fixed_point(root, options, result, config.max_file_bytes, config)
        result = outcome.result
        for line in outcome.summary():  # a fix refused or not converging is said even with --quiet
            if args.quiet and "warning:" not in line and "no fix written" not in line:
                continue
            print(line, file=sys.stderr)
    if args.write_baseline:
        write_baseline(Path(args.write_baseline), result.findings)
        _note(args, f"wrote {len(result.findings)} finding(s) to baseline {args.write_baseline}")
        return exits.OK
    if accepted is not None:
        result.findings, hidden = filter_baseline(result.findings, accepted)
        if hidden:
            _note(args, f"{hidden} finding(s) hidden by baseline {args.baseline}")

    _emit(
        args, _statistics(result, fmt) if args.statistics else render(result, fmt, color=_color(args), quiet=args.quiet)
    )
    code = exits.for_findings(result.findings, args.fail_on or config.fail_on)
    return exits.OK if args.exit_zero else code


def _statistics(result: LintResult, fmt: str) -> str:
    from roadmap import safejson

    rows = result.statistics()
    if fmt == "json":
        return safejson.dumps([{"code": c, "name": n, "count": k} for c, n, k in rows], indent=2) + "\n"
    fixable: dict[str, int] = {}
    for f in result.findings:
        if f.edits:
            fixable[f.code] = fixable.get(f.code, 0) + 1
    lines = [f"{k:>6}  {c:<6} {n}" + (f"  ({fixable[c]} fixable)" if c in fixable else "") for c, n, k in rows]
    lines.append(f"{len(result.findings):>6}  total")
    return "\n".join(lines) + "\n"


def cmd_rule(args: argparse.Namespace) -> int:
    from roadmap.registry import all_rules

    rules = all_rules()
    if not args.code:
        width = max(len(r.name) for r in rules)
        for r in rules:
            print(f"{r.code}  {r.name:<{width}}  {r.severity:<7}  {r.summary}")
        print("\nrun `roadmap rule CODE` for what a rule checks, why, an example and the fix.")
        return exits.OK
    code = args.code.strip().upper()
    match = [r for r in rules if r.code == code]
    if not match:
        raise CliError(f"no rule {args.code!r}; run `roadmap rule` to list the rules")
    r = match[0]
    print(f"{r.code} {r.name} (default severity: {r.severity})\n")
    print(r.doc)
    return exits.OK


def cmd_report(args: argparse.Namespace) -> int:
    from roadmap.lint import LintOptions, lint
    from roadmap.report import build_report, links_for, render_report

    target, config = _target([args.path] if args.path else [], args.config, "roadmap report")
    fmt = args.format or ("html" if (args.output or "").lower().endswith((".html", ".htm")) else "markdown")
    result = lint(
        target.root,
        LintOptions(at=args.at, use_cache=not args.no_cache, config_file=Path(args.config) if args.config else None),
        config,
    )
    if result.records == 0:
        raise _no_records(target.root, config)
    _fallback_note(result.config)
    links = links_for(target.root, args.output, config.commit_url)
    _emit(args, render_report(build_report(result), fmt, links))
    return exits.OK


def _evidence_entries(args: argparse.Namespace) -> tuple[Path, EvidenceStore, list[EvidenceEntry]]:
    from roadmap.evidence import load_evidence
    from roadmap.history.tree import Tree

    target, config = _target([args.path] if args.path else [], args.config, "roadmap evidence")
    root = target.root
    store = load_evidence(Tree(root, max_bytes=config.max_file_bytes), config)
    entries = list(store)
    wanted: set[str] = set()
    for name in args.names:
        entry = store.get(name)
        if entry is None:
            raise CliError(f"no evidence entry {name!r} under {store.root}/; run `roadmap evidence list`")
        wanted.add(entry.path)
    if args.names:
        entries = [e for e in entries if e.path in wanted]
    if args.series:
        entries = [e for e in entries if e.series == args.series]
    if args.row:
        entries = [e for e in entries if e.row == args.row]
    return root, store, entries


def _figure(e: EvidenceEntry) -> str:
    m = e.metrics.get("output_tok_per_s") if isinstance(e.metrics, dict) else None
    med = m.get("median") if isinstance(m, dict) else None
    return f"{med:.2f} tok/s" if isinstance(med, (int, float)) else ""


def _verify(root: Path, entries: list[EvidenceEntry]) -> dict[str, list[str]]:
    """Entry path -> problems (empty when valid), as RL501 words them. A git failure raises GitError once."""
    from roadmap.evidence.verify import RevHistory, verify_entry

    history = RevHistory(root, "HEAD")
    return {e.path: [p.message for p in verify_entry(e, lambda: history, "HEAD")] for e in entries}


def cmd_evidence(args: argparse.Namespace) -> int:
    from roadmap import safejson

    root, store, entries = _evidence_entries(args)
    problems = _verify(root, entries) if args.action == "verify" else {}
    if args.format == "json":
        rows = [
            {
                "name": e.name,
                "path": e.path,
                "kind": e.kind,
                "date": e.date,
                "series": e.series,
                "row": e.row,
                "commit": e.commit,
                "dirty": e.dirty,
                "metrics": e.metrics,
                **({"problems": problems[e.path]} if args.action == "verify" else {}),
            }
            for e in entries
        ]
        print(safejson.dumps(rows, indent=2, sort_keys=True))
    elif args.action == "list":
        for e in entries:
            print(
                f"{e.date or '?':<10}  {e.name:<48}  {e.series:<36}  {e.row or '-':<20}  "
                f"{(e.commit or '-')[:9]:<9}  {_figure(e)}".rstrip()
            )
        print(f"{len(entries)} evidence entr{'y' if len(entries) == 1 else 'ies'} under {store.root}/")
    else:
        for e in entries:
            if problems[e.path]:
                print(f"FAIL  {e.path}")
                for p in problems[e.path]:
                    print(f"      {p}")
            else:
                print(f"ok    {e.path}")
        bad = sum(1 for e in entries if problems[e.path])
        print(
            f"{len(entries) - bad} valid, {bad} invalid evidence entr{'y' if bad == 1 else 'ies'} under {store.root}/"
        )
    return exits.FINDINGS if any(problems.values()) else exits.OK


if __name__ == "__main__":
    sys.exit(main())
