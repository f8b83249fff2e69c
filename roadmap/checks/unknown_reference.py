"""RL304 unknown-reference."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.hexes import commit_tokens, is_upstream_sha
from roadmap.analysis.ids import ID_SHAPE, named_in_history, prefix, row_tag, undefined_ids, vocabulary
from roadmap.analysis.refs import line_of, live_statements
from roadmap.findings import Hit
from roadmap.history.git import SHA_RE, run_git
from roadmap.records.model import RecordFile, Statement


def missing_shas(root: str | Path, shas: Iterable[str], head: str | None = None) -> dict[str, str]:
    """The shas (full or abbreviated) that are no commit of the linted history: "missing" when they name no
    object, "elsewhere" when the commit exists but `head` does not contain it (a branch that never merged).
    One `git cat-file --batch-check` call, and one `git rev-list` when some shas exist."""
    wanted = sorted({s for s in shas if SHA_RE.match(s)})
    if not wanted:
        return {}
    out = run_git(root, "cat-file", "--batch-check", input=("\n".join(wanted) + "\n").encode())
    status: dict[str, str] = {}
    found: dict[str, str] = {}
    for name, line in zip(wanted, out.decode("utf-8", "replace").splitlines()):
        parts = line.split()
        if parts[-1:] == ["missing"]:
            status[name] = "missing"
        elif len(parts) == 3 and parts[1] == "commit":
            found[name] = parts[0]
    if found and head:
        history = set(run_git(root, "rev-list", "--end-of-options", head, "--").decode().split())
        status.update({name: "elsewhere" for name, full in found.items() if full not in history})
    return status


def evidence_names(ctx: LintContext, root: str) -> set[str]:
    """Names an evidence reference may use: each entry under the root (dir or file) with and without suffix."""
    names: set[str] = set()
    prefix = root + "/"
    for f in ctx.tree.files:
        if f.startswith(prefix):
            rel = f[len(prefix) :]
            first = rel.split("/", 1)[0]
            names.update({first, first.rsplit(".", 1)[0], rel})
    return names


def unknown_reference(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Flags a reference to something nothing defines: a row id or claim id that no record defines, a commit of
    ours that is not in the repository or not on the linted branch's history (a branch that never merged), or
    an evidence entry (`20260727-slug`) that is not under the evidence root.

    Why:
    A typo in an id or sha silently detaches a statement from everything the linter checks it against, and
    a sha that is not in the repository cannot be verified by anyone (rebased away, or never pushed).

    Example:
    ```markdown
    Landed in `deed7c2a9`; see docs/bench-evidence/20260727-throughput-4b.
    ```
    when no commit starts with `deed7c2a9` and no such evidence entry exists.

    Fix:
    Correct the id, sha or evidence name (or push the missing commit).
    An id is reported only in a namespace the records use (`ROAD-V1-C2-LOCAL-BF17` when `ROAD-...` rows are
    defined in an id column; `BIT-IDENTICAL` is a word unless `BIT-...` ids are defined), and not when a heading
    or a commit message names it (a claim released and taken off the board is history, not a typo).
    A hex token is a commit only in a commit context ("commit", "sha", "landed in", "fixed by", `@`, `a..b`, a
    trailer, a Commit column); digests (sha256/md5/hash/fingerprint contexts, elided `f784ba01…e046`, 16+ hex)
    and another project's pins ("upstream", "whisper.cpp 2c8d4f1", a foreign path before `@`) are skipped.
    Struck-through and historical text is not checked; shas are looked up with one `git cat-file
    --batch-check` call for the whole run.
    """
    vocab = vocabulary(ctx)
    evidence_root = ctx.config.evidence.root.strip("/")
    ev_names = evidence_names(ctx, evidence_root) if evidence_root and ctx.tree.is_dir(evidence_root) else None
    families = {_family(n) for n in ev_names} if ev_names is not None else set()
    sites = list(live_statements(ctx))
    commits = {
        (rf.path, st.line, st.column): list(commit_tokens(ctx, rf.path, st)) for rf, st in sites if st.mentions.shas
    }
    all_shas = {sha for found in commits.values() for sha in found}
    missing = missing_shas(ctx.root, all_shas, ctx.head) if ctx.head and all_shas else {}
    in_messages: frozenset[str] | None = None
    seen: set[tuple[str, int, str]] = set()

    def emit(rf: RecordFile, st: Statement, token: str, kind: str, message: str, fix: str) -> Iterator[Hit]:
        line = line_of(ctx, rf, st, token)
        if (rf.path, line, token) in seen:
            return
        seen.add((rf.path, line, token))
        yield Hit(
            message=message,
            path=rf.path,
            line=line,
            end_line=line,
            record_id=row_tag(ctx, st),
            fix=fix,
            key=f"{kind}:{token}",
        )

    for rf, st in sites:
        for token in undefined_ids(ctx, st):
            if in_messages is None:
                in_messages = named_in_history(ctx) | _named_in_history_text(ctx)
            if token in in_messages:
                continue
            where = vocab.namespaces.get(prefix(token))
            hint = f"; `{prefix(token)}-` ids such as `{where}` are defined in the records" if where else ""
            yield from emit(
                rf,
                st,
                token,
                "id",
                f"`{token}` is not defined by any record (no table row, heading or item has this id{hint})",
                "correct the id, or add the row/claim it refers to",
            )
        for sha in commits.get((rf.path, st.line, st.column), ()):
            if sha in missing and sha not in named_in_history(ctx) and not is_upstream_sha(ctx, sha):
                if missing[sha] == "elsewhere" and _BRANCH_NAMED.search(_near(st.text, sha)):
                    continue  # "Commit `f787cf8` on `origin/perf/x`": the record says it is on another branch
                where = (
                    "is not in this repository"
                    if missing[sha] == "missing"
                    else "is not on this branch's history (it is on a branch that never merged)"
                )
                yield from emit(
                    rf,
                    st,
                    sha,
                    "sha",
                    f"commit `{sha}` {where}",
                    "correct the sha (`git log --oneline` lists the commits), or fetch/push the commit",
                )
        if ev_names is not None:
            for name in st.mentions.evidence:
                name = name.rstrip(".,;:")  # sentence punctuation, not part of the name
                short = name.strip("/")
                if short.startswith(evidence_root + "/"):
                    short = short[len(evidence_root) + 1 :]
                if short in ev_names or short.rsplit(".", 1)[0] in ev_names or not _plain_name(short):
                    continue
                written_as_path = any(r.path.startswith(f"{evidence_root}/{short}") for r in st.mentions.paths)
                if not written_as_path and _family(short) not in families:
                    continue  # a dated name of no series here: a trace or log kept elsewhere, not our evidence
                yield from emit(
                    rf,
                    st,
                    name,
                    "evidence",
                    f"evidence `{name}` does not exist under {evidence_root}/",
                    f"correct the evidence name (ls {evidence_root}), or commit the evidence",
                )


_BRANCH_NAMED = re.compile(r"\bbranch(?:es)?\b|\borigin/|\bworktree\b|\bunmerged\b|\bnot merged\b|\bstash", re.I)


def _near(text: str, token: str) -> str:
    i = text.find(token)
    return text[max(0, i - 80) : i + len(token) + 80] if i >= 0 else ""


_SLUG_WORD = re.compile(r"[a-z][a-z0-9]*", re.I)


def _family(name: str) -> str:
    """`20260406-silesia-l9` and `silesia-l3-lowmem-20260405.md` -> "silesia": the series' first word."""
    m = _SLUG_WORD.search(re.sub(r"(?:^|-)20\d{6}(?=-|\.|$)", "-", name))
    return m.group(0).lower() if m else ""


def _plain_name(name: str) -> bool:
    """A whole name, not a pattern (`qwen3-4b-{a,b}`, `*-20260720`) nor the stem a brace expansion leaves."""
    return bool(name) and not any(c in name for c in "{}*?<>[]") and not name.endswith(("-", "_"))


def _named_in_history_text(ctx: LintContext) -> frozenset[str]:
    """Ids the records name in historical text (a dated log entry, a struck or superseded line), and claims
    named in two record files or more: a claim taken off the board after its release lives on in the logs and
    specs that name it, while a mistyped claim is written once."""
    found = {
        m.group(0) for rf in ctx.records for st in rf.statements if st.historical for m in ID_SHAPE.finditer(st.text)
    }
    files: dict[str, set[str]] = {}
    for rf in ctx.records:  # the whole file's text: a claim in a 5,000-character cell counts too
        for m in ctx.config.claim_re.finditer(rf.text):
            files.setdefault(m.group(0), set()).add(rf.path)
    found.update(c for c, where in files.items() if len(where) >= 2)
    return frozenset(found)
